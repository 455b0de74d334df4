package io.rdmagate.nfs.v3;

/** A procedure fails with an nfsstat3 that no {@link io.rdmagate.vfs.VfsError} stands for. */
public final class Nfs3Exception extends Exception {
    private static final long serialVersionUID = 1L;
    private final int status;

    public Nfs3Exception(int status, String message) {
        super(message, null, false, false);
        this.status = status;
    }

    public int status() {
        return status;
    }
}
