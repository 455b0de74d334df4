package io.rdmagate.oncrpc.rpc;

/**
 * The credential of an RPCSEC_GSS call once its context and MIC are checked: the client
 * principal (user@REALM), the service it asked for, and the POSIX identity the principal maps
 * to, or null when it maps to none (the export's anonymous ids then apply, as knfsd does).
 */
public record GssPrincipal(String principal, int service, AuthSys identity) implements Credentials {
    @Override
    public int flavor() {
        return AuthFlavor.RPCSEC_GSS;
    }
}
