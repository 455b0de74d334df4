package io.rdmagate.rdma;

/** Decides on incoming connects; called on the listener's own thread. */
@FunctionalInterface
public interface ConnectionRequestHandler {
    void onRequest(ConnectionRequest request);
}
