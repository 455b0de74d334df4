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

    /**
     * Posts like {@link #postSend} but may leave the work queued until {@link #doorbell}: a poster
     * that holds locks queues its work requests under them and rings once it holds none. A
     * hardware provider transmits at once (the default).
     */
    default void postSendDeferred(SendWr wr) throws RdmaException {
        postSend(wr);
    }

    /**
     * Starts what {@link #postSendDeferred} queued. With {@code transmitHere} a software provider may
     * transmit on the calling thread when its transmitter is idle, saving a thread hand-off per
     * reply (the caller holds no lock and may block on the wire: a worker, never a completion
     * handler; completions of what it transmits may be delivered on it before this returns);
     * without, or when it cannot, the provider's own thread transmits.
     */
    default void doorbell(boolean transmitHere) {
    }

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
