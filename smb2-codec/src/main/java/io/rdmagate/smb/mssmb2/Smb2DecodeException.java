package io.rdmagate.smb.mssmb2;

import io.rdmagate.smb.mserref.NtStatus;

/**
 * A request that cannot be decoded. {@link #status()} is what the server answers
 * (STATUS_INVALID_PARAMETER unless the spec names another); the connection survives.
 */
public final class Smb2DecodeException extends Exception {
    private static final long serialVersionUID = 1L;
    private final int status;

    public Smb2DecodeException(String message) {
        this(NtStatus.INVALID_PARAMETER, message);
    }

    public Smb2DecodeException(int status, String message) {
        super(message, null, false, false);
        this.status = status;
    }

    public int status() {
        return status;
    }
}
