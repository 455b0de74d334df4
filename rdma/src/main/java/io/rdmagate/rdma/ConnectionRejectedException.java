package io.rdmagate.rdma;

/** The peer rejected a connect (RDMA_CM_EVENT_REJECTED), with its private data. */
public final class ConnectionRejectedException extends RdmaException {
    private static final long serialVersionUID = 1L;
    private final byte[] privateData;

    public ConnectionRejectedException(String message, byte[] privateData) {
        super(message);
        this.privateData = privateData.clone();
    }

    public byte[] privateData() {
        return privateData.clone();
    }
}
