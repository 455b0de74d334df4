package io.rdmagate.vfs;

/** A filesystem operation failed with a protocol-neutral {@link VfsError}. */
public class VfsException extends Exception {
    private static final long serialVersionUID = 1L;
    private final VfsError error;

    public VfsException(VfsError error, String message) {
        super(error + ": " + message, null, false, false);
        this.error = error;
    }

    public VfsException(VfsError error, String message, Throwable cause) {
        super(error + ": " + message, cause, false, false);
        this.error = error;
    }

    public VfsError error() {
        return error;
    }
}
