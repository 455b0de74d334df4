package io.rdmagate.oncrpc.rpc;

/** The decoded credential of a call: AUTH_NONE or AUTH_SYS. */
public sealed interface Credentials permits Credentials.None, AuthSys {
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
