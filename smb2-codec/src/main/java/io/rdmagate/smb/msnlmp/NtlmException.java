package io.rdmagate.smb.msnlmp;

/** Authentication failed or a message was malformed; {@code malformed} tells which. */
public final class NtlmException extends Exception {
    private static final long serialVersionUID = 1L;
    private final boolean malformed;

    public NtlmException(String message, boolean malformed) {
        super(message, null, false, false);
        this.malformed = malformed;
    }

    public boolean malformed() {
        return malformed;
    }
}
