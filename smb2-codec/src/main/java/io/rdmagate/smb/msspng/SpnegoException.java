package io.rdmagate.smb.msspng;

/** A malformed SPNEGO token; the session setup fails with STATUS_INVALID_PARAMETER. */
public final class SpnegoException extends Exception {
    private static final long serialVersionUID = 1L;

    public SpnegoException(String message) {
        super(message, null, false, false);
    }
}
