package io.rdmagate.oncrpc.server;

import io.rdmagate.oncrpc.rpc.CallHeader;
import io.rdmagate.oncrpc.xdr.XdrMessage;

/**
 * What an RPC server reports as it works, for metrics and audit logs. The one dispatch path
 * ({@link RpcDispatcher}) reports every record of every transport (TCP, UDP, RPC-over-RDMA); the
 * transports report their connections.
 *
 * <p>Called on the thread that did the work (a call's virtual thread, an event loop, a completion
 * handler): an implementation must be cheap, must not block and must not throw. The default
 * methods do nothing.
 */
public interface RpcObserver {
    RpcObserver NONE = new RpcObserver() {
    };

    /** A connection was accepted on {@code transport} ("tcp" or "rdma"). */
    default void connectionOpened(String transport) {
    }

    /** A connection counted by {@link #connectionOpened} ended. */
    default void connectionClosed(String transport) {
    }

    /**
     * One record was handled.
     *
     * @param connection where it came from
     * @param program    the program that took it, or null (not a call, a bad header, an unknown program)
     * @param call       the decoded call header, or null when it did not decode
     * @param callBytes  the record's length (the RPC message, without record marks or transport headers)
     * @param reply      the reply about to be handed to the transport (read it, do not keep or release
     *                   it), or null when none is sent (not a call, a retransmission in progress)
     * @param startNanos {@link System#nanoTime()} when the dispatcher took the record
     */
    default void completed(Connection connection, RpcProgram program, CallHeader call, int callBytes,
            XdrMessage reply, long startNanos) {
    }
}
