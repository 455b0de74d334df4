package io.rdmagate.oncrpc.server;

import io.rdmagate.oncrpc.rpc.Rpc;

/**
 * A program's refusal of a call with an accept_stat other than SUCCESS (RFC 5531 §9):
 * PROC_UNAVAIL, GARBAGE_ARGS or SYSTEM_ERR. The dispatcher sends the matching reply.
 */
public final class RpcErrorException extends Exception {
    private final int acceptStat;

    private RpcErrorException(int acceptStat, String message) {
        super(message, null, false, false);
        this.acceptStat = acceptStat;
    }

    public static RpcErrorException procUnavailable(int procedure) {
        return new RpcErrorException(Rpc.PROC_UNAVAIL, "procedure " + procedure);
    }

    public static RpcErrorException garbageArgs(String why) {
        return new RpcErrorException(Rpc.GARBAGE_ARGS, why);
    }

    public static RpcErrorException systemError(String why) {
        return new RpcErrorException(Rpc.SYSTEM_ERR, why);
    }

    public int acceptStat() {
        return acceptStat;
    }
}
