package io.rdmagate.nfs.v3;

import static io.rdmagate.nfs.v3.Nfs3Status.*;

import io.rdmagate.vfs.VfsError;
import io.rdmagate.vfs.VfsException;

/**
 * The one mapping from {@link VfsError} to RFC 1813 §2.6 nfsstat3. Choices where RFC 1813 names
 * no code: a path that would leave the export is NFS3ERR_ACCES; readlink of a non-link and too
 * many symlinks are NFS3ERR_INVAL; a full I/O memory pool or a conflicting byte-range lock is
 * NFS3ERR_JUKEBOX (RFC 1813 §2.6: "the server initiated the request, but was not able to complete
 * it in a timely fashion", the client retries later).
 */
public final class Nfs3Errors {
    private Nfs3Errors() {
    }

    public static int of(VfsError e) {
        return switch (e) {
            case NOT_FOUND -> NFS3ERR_NOENT;
            case EXISTS -> NFS3ERR_EXIST;
            case ACCESS, ESCAPE, SHARING_VIOLATION -> NFS3ERR_ACCES;
            case NOT_OWNER -> NFS3ERR_PERM;
            case NOT_DIRECTORY -> NFS3ERR_NOTDIR;
            case IS_DIRECTORY -> NFS3ERR_ISDIR;
            case NOT_EMPTY -> NFS3ERR_NOTEMPTY;
            case STALE -> NFS3ERR_STALE;
            case BAD_HANDLE -> NFS3ERR_BADHANDLE;
            case NAME_TOO_LONG -> NFS3ERR_NAMETOOLONG;
            case INVALID, NOT_SYMLINK, LOOP, RANGE_NOT_LOCKED -> NFS3ERR_INVAL;
            case NO_SPACE -> NFS3ERR_NOSPC;
            case QUOTA -> NFS3ERR_DQUOT;
            case READ_ONLY -> NFS3ERR_ROFS;
            case CROSS_DEVICE -> NFS3ERR_XDEV;
            case FILE_TOO_BIG -> NFS3ERR_FBIG;
            case TOO_MANY_LINKS -> NFS3ERR_MLINK;
            case NOT_SUPPORTED, NO_XATTR -> NFS3ERR_NOTSUPP;
            case LOCK_CONFLICT, NO_RESOURCES -> NFS3ERR_JUKEBOX;
            case BAD_COOKIE -> NFS3ERR_BAD_COOKIE;
            case DEADLOCK, IO -> NFS3ERR_IO;
        };
    }

    /** The status of a failure: a {@link VfsException}'s mapped error or an {@link Nfs3Exception}'s own. */
    public static int status(Exception e) {
        if (e instanceof VfsException v) {
            return of(v.error());
        }
        if (e instanceof Nfs3Exception n) {
            return n.status();
        }
        return NFS3ERR_SERVERFAULT;
    }
}
