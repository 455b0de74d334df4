package io.rdmagate.nfs.v4;

/** An operation's failure with its nfsstat4 (RFC 8881 §15). */
public class Nfs4Exception extends Exception {
    private final int status;

    public Nfs4Exception(int status, String message) {
        super(message, null, false, false);
        this.status = status;
    }

    public int status() {
        return status;
    }
}
