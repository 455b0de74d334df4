package io.rdmagate.gateway.config;

/** Server-wide SMB settings; {@code guestAccount} is null when guests are not mapped to an account. */
public record SmbConfig(boolean signingRequired, boolean encryptAll, String guestAccount) {
    public static final SmbConfig DEFAULT = new SmbConfig(false, false, null);
}
