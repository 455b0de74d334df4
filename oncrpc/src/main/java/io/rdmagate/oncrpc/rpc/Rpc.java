package io.rdmagate.oncrpc.rpc;

/** RFC 5531 §9 protocol constants. */
public final class Rpc {
    public static final int VERSION = 2;

    // msg_type
    public static final int CALL = 0;
    public static final int REPLY = 1;

    // reply_stat
    public static final int MSG_ACCEPTED = 0;
    public static final int MSG_DENIED = 1;

    // accept_stat
    public static final int SUCCESS = 0;
    public static final int PROG_UNAVAIL = 1;
    public static final int PROG_MISMATCH = 2;
    public static final int PROC_UNAVAIL = 3;
    public static final int GARBAGE_ARGS = 4;
    public static final int SYSTEM_ERR = 5;

    // reject_stat
    public static final int RPC_MISMATCH = 0;
    public static final int AUTH_ERROR = 1;

    /** RFC 5531 §8.2: opaque_auth bodies are at most 400 bytes. */
    public static final int MAX_AUTH_BYTES = 400;

    private Rpc() {
    }
}
