package io.rdmagate.rdma;

import java.net.InetSocketAddress;

/**
 * A connected reliable queue pair (ibv_qp of type RC, or an iWARP QP). Work requests run in the
 * order posted; their completions go to the send and receive completion queues. The first error
 * moves the pair to {@link State#ERROR}: every request still posted completes with
 * {@link WcStatus#WR_FLUSH_ERROR} and the connection is torn down.
 */
public interface QueuePair extends AutoCloseable {

    enum State {
        CONNECTED, ERROR, CLOSED
    }

    /** Posts a receive; refused at once when the receive queue is full or an SGE is malformed. */
    void postReceive(RecvWr wr) throws RdmaException;

    /** Posts to the send queue; refused at once when it is full or the request is malformed. */
    void postSend(SendWr wr) throws RdmaException;

    State state();

    /** Private data the peer sent in its connect or accept. */
    byte[] remotePrivateData();

    /** Inbound RDMA Reads the peer may have outstanding (IRD, negotiated). */
    int inboundReads();

    /** Outbound RDMA Reads this pair may have outstanding (ORD, negotiated). */
    int outboundReads();

    InetSocketAddress localAddress();

    InetSocketAddress remoteAddress();

    /** Disconnects; posted requests flush. */
    void disconnect();

    @Override
    default void close() {
        disconnect();
    }
}
