package io.rdmagate.gateway.spi.config;

/**
 * One SMB share: a directory inside an export.
 *
 * @param export the name of the export it lies in
 * @param path   the directory inside that export, '/'-separated, "" for its root
 * @param ntlm   whether sessions authenticated with NTLMv2 may connect to it ({@code sec: [ntlm]})
 * @param krb5   whether sessions authenticated with Kerberos may connect to it ({@code sec: [krb5]})
 */
public record ShareConfig(String name, String export, String path, boolean readOnly, boolean guestOk,
        boolean encrypt, boolean ntlm, boolean krb5) {
    public ShareConfig(String name, String export, String path, boolean readOnly, boolean guestOk, boolean encrypt) {
        this(name, export, path, readOnly, guestOk, encrypt, true, true);
    }
}
