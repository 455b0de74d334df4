package io.rdmagate.rdma;

/** rdma_cm events of one connection, delivered off the caller's and the socket's threads. */
public interface ConnectionEvents {
    ConnectionEvents NONE = new ConnectionEvents() {
    };

    default void established(QueuePair qp) {
    }

    default void disconnected(QueuePair qp, String reason) {
    }
}
