package io.rdmagate.rdma;

import java.net.InetSocketAddress;

/** An incoming connect (RDMA_CM_EVENT_CONNECT_REQUEST): answer it with accept or reject, once. */
public interface ConnectionRequest {
    InetSocketAddress remoteAddress();

    InetSocketAddress localAddress();

    byte[] privateData();

    int requestedIrd();

    int requestedOrd();

    /**
     * Accepts with the given queue pair configuration and private data (at most the device limit);
     * {@code setup} runs on the new queue pair before the peer learns of the accept.
     */
    QueuePair accept(QpConfig config, byte[] privateData, QueuePairSetup setup) throws RdmaException;

    default QueuePair accept(QpConfig config, byte[] privateData) throws RdmaException {
        return accept(config, privateData, QueuePairSetup.NONE);
    }

    void reject(byte[] privateData);
}
