package io.rdmagate.oncrpc.rpc;

/** RFC 5531 §8.2 and Appendix A auth_flavor numbers. */
public final class AuthFlavor {
    public static final int AUTH_NONE = 0;
    public static final int AUTH_SYS = 1;
    public static final int AUTH_SHORT = 2;
    public static final int AUTH_DH = 3;
    public static final int RPCSEC_GSS = 6;

    private AuthFlavor() {
    }
}
