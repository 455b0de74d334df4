package io.rdmagate.nfs.v4;

import static io.rdmagate.nfs.v4.Nfs4.*;

import io.rdmagate.oncrpc.xdr.XdrException;
import io.rdmagate.vfs.VfsError;
import io.rdmagate.vfs.VfsException;

/**
 * The one mapping from {@link VfsError} to RFC 8881 §15 nfsstat4, the NFSv4 counterpart of
 * {@code Nfs3Errors}. Where the two protocols differ: a name that would leave the export is
 * NFS4ERR_ACCESS; a byte-range lock held by another protocol, a full I/O pool and a break still
 * in progress are NFS4ERR_DELAY (the client retries); a share mode of another protocol that
 * denies the operation is NFS4ERR_SHARE_DENIED; a symlink where a directory was expected is
 * NFS4ERR_SYMLINK only where an operation says so, else NFS4ERR_NOTDIR.
 */
public final class Nfs4Errors {
    private Nfs4Errors() {
    }

    public static int of(VfsError e) {
        return switch (e) {
            case NOT_FOUND -> NFS4ERR_NOENT;
            case EXISTS -> NFS4ERR_EXIST;
            case ACCESS, ESCAPE -> NFS4ERR_ACCESS;
            case SHARING_VIOLATION -> NFS4ERR_SHARE_DENIED;
            case NOT_OWNER -> NFS4ERR_PERM;
            case NOT_DIRECTORY -> NFS4ERR_NOTDIR;
            case IS_DIRECTORY -> NFS4ERR_ISDIR;
            case NOT_EMPTY -> NFS4ERR_NOTEMPTY;
            case STALE -> NFS4ERR_STALE;
            case BAD_HANDLE -> NFS4ERR_BADHANDLE;
            case NAME_TOO_LONG -> NFS4ERR_NAMETOOLONG;
            case INVALID, NOT_SYMLINK, LOOP, RANGE_NOT_LOCKED -> NFS4ERR_INVAL;
            case NO_SPACE -> NFS4ERR_NOSPC;
            case QUOTA -> NFS4ERR_DQUOT;
            case READ_ONLY -> NFS4ERR_ROFS;
            case CROSS_DEVICE -> NFS4ERR_XDEV;
            case FILE_TOO_BIG -> NFS4ERR_FBIG;
            case TOO_MANY_LINKS -> NFS4ERR_MLINK;
            case NOT_SUPPORTED -> NFS4ERR_NOTSUPP;
            case NO_XATTR -> NFS4ERR_NOXATTR;
            case LOCK_CONFLICT -> NFS4ERR_DENIED;
            case NO_RESOURCES -> NFS4ERR_DELAY;
            case BAD_COOKIE -> NFS4ERR_BAD_COOKIE;
            case DEADLOCK -> NFS4ERR_DEADLOCK;
            case IO -> NFS4ERR_IO;
        };
    }

    /** The status of an operation's failure. */
    public static int status(Exception e) {
        return switch (e) {
            case VfsException v -> of(v.error());
            case Nfs4Exception n -> n.status();
            case XdrException x -> NFS4ERR_BADXDR;
            default -> NFS4ERR_SERVERFAULT;
        };
    }
}
