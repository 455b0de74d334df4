package io.rdmagate.smb.server;

import io.rdmagate.smb.mserref.NtStatus;

/** A request fails with an NTSTATUS; the connection survives. */
public final class SmbException extends Exception {
    private static final long serialVersionUID = 1L;
    private final int status;

    public SmbException(int status, String message) {
        super(NtStatus.hex(status) + " " + message, null, false, false);
        this.status = status;
    }

    public int status() {
        return status;
    }
}
