package io.rdmagate.oncrpc.rpc;

/**
 * The credential of a call: AUTH_NONE, AUTH_SYS, or RPCSEC_GSS, as sent ({@link RpcGssCred}) and
 * once verified ({@link GssPrincipal}).
 */
public sealed interface Credentials permits Credentials.None, AuthSys, RpcGssCred, GssPrincipal {
    int flavor();

    /** AUTH_NONE (RFC 5531 §10.1). */
    record None() implements Credentials {
        @Override
        public int flavor() {
            return AuthFlavor.AUTH_NONE;
        }
    }

    None NONE = new None();
}
