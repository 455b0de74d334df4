package io.rdmagate.rdma;

/** A verb was refused at once (bad arguments, exhausted resources, wrong state). */
public class RdmaException extends Exception {
    private static final long serialVersionUID = 1L;

    public RdmaException(String message) {
        super(message);
    }

    public RdmaException(String message, Throwable cause) {
        super(message, cause);
    }
}
