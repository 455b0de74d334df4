package io.rdmagate.oncrpc.rpc;

/** RFC 5531 §9 auth_stat. */
public final class AuthStat {
    public static final int AUTH_OK = 0;
    public static final int AUTH_BADCRED = 1;
    public static final int AUTH_REJECTEDCRED = 2;
    public static final int AUTH_BADVERF = 3;
    public static final int AUTH_REJECTEDVERF = 4;
    public static final int AUTH_TOOWEAK = 5;
    public static final int AUTH_INVALIDRESP = 6;
    public static final int AUTH_FAILED = 7;
    /** RFC 2203 §5.3.3.3: no credentials for the user (a bad MIC on the call header). */
    public static final int RPCSEC_GSS_CREDPROBLEM = 13;
    /** RFC 2203 §5.3.3.3: no such context, or it expired or is used up; the client makes a new one. */
    public static final int RPCSEC_GSS_CTXPROBLEM = 14;

    private AuthStat() {
    }
}
