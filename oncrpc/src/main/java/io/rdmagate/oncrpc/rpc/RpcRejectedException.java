package io.rdmagate.oncrpc.rpc;

/**
 * A call refused with MSG_DENIED (RFC 5531 §9): RPC_MISMATCH (rpcvers other than 2) or
 * AUTH_ERROR with an auth_stat. Thrown by the header decoder, and by programs that refuse a
 * credential (for example AUTH_TOOWEAK for AUTH_NONE where AUTH_SYS is required).
 */
public final class RpcRejectedException extends Exception {
    private final int rejectStat;
    private final int authStat;

    private RpcRejectedException(int rejectStat, int authStat, String message) {
        super(message, null, false, false);
        this.rejectStat = rejectStat;
        this.authStat = authStat;
    }

    public static RpcRejectedException rpcMismatch(long rpcvers) {
        return new RpcRejectedException(Rpc.RPC_MISMATCH, 0, "rpcvers " + rpcvers);
    }

    public static RpcRejectedException authError(int authStat, String why) {
        return new RpcRejectedException(Rpc.AUTH_ERROR, authStat, why);
    }

    public int rejectStat() {
        return rejectStat;
    }

    public int authStat() {
        return authStat;
    }
}
