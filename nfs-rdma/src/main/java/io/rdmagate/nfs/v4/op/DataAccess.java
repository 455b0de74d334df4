package io.rdmagate.nfs.v4.op;

import static io.rdmagate.nfs.v4.Nfs4.*;

import io.rdmagate.nfs.NfsExports.Target;
import io.rdmagate.nfs.v4.Compound;
import io.rdmagate.nfs.v4.Fh4;
import io.rdmagate.nfs.v4.Nfs4Exception;
import io.rdmagate.nfs.v4.state.Delegations;
import io.rdmagate.nfs.v4.state.OpenState;
import io.rdmagate.nfs.v4.state.Stateid;
import io.rdmagate.vfs.Caller;
import io.rdmagate.vfs.FileAttributes;
import io.rdmagate.vfs.FileType;
import io.rdmagate.vfs.VfsException;
import io.rdmagate.vfs.state.Conflict;

/**
 * What the operations on a file's data (WRITE, and NFSv4.2's ALLOCATE, DEALLOCATE, COPY, CLONE,
 * SEEK, READ_PLUS) check alike: that the file is a regular one, and that a stateid allows writing.
 */
final class DataAccess {
    private DataAccess() {
    }

    /** The attributes of {@code t}, a regular file; NFS4ERR_ISDIR, NFS4ERR_SYMLINK or {@code otherStatus} otherwise. */
    static FileAttributes regular(Target t, int otherStatus) throws Nfs4Exception, VfsException {
        FileAttributes a = t.fs().getattr(t.handle());
        if (a.type() != FileType.REGULAR) {
            throw new Nfs4Exception(a.type() == FileType.DIRECTORY ? NFS4ERR_ISDIR
                    : a.type() == FileType.SYMLINK ? NFS4ERR_SYMLINK : otherStatus, "not a regular file: " + a.type());
        }
        return a;
    }

    /** COPY's and CLONE's two files and the caller that reads the one and writes the other. */
    record Pair(Target src, Target dst, Caller caller) {
    }

    /**
     * The two files of COPY and CLONE (RFC 7862 §15.2.3, §15.13.3): the source is the saved
     * filehandle, the destination the current one; both regular files (NFS4ERR_WRONG_TYPE) of one
     * export (NFS4ERR_XDEV); the source's stateid must allow reading it, the destination's writing.
     */
    static Pair sourceAndDestination(Compound c, Stateid srcStateid, Stateid dstStateid)
            throws Nfs4Exception, VfsException {
        Fh4 saved;
        try {
            saved = c.saved();
        } catch (Nfs4Exception e) {
            throw new Nfs4Exception(NFS4ERR_NOFILEHANDLE, "no saved filehandle for the source");
        }
        Target dst = c.currentFile(NFS4ERR_WRONG_TYPE);
        Target src = switch (saved) {
            case Fh4.File f -> f.target();
            case Fh4.Pseudo p -> throw new Nfs4Exception(NFS4ERR_WRONG_TYPE, "the source is a pseudo directory");
        };
        if (src.export().id() != dst.export().id()) {
            throw new Nfs4Exception(NFS4ERR_XDEV, "source and destination are on two exports");
        }
        regular(src, NFS4ERR_WRONG_TYPE);
        regular(dst, NFS4ERR_WRONG_TYPE);
        Caller caller = c.reader(src);
        c.writer(dst);
        OpRead.checkStateid(c, srcStateid, src);
        checkWriteStateid(c, dstStateid, dst);
        return new Pair(src, dst, caller);
    }

    /** What the backend does with both files. */
    interface Transfer {
        long run() throws VfsException;
    }

    /**
     * Runs {@code t} once others' caching is recalled: write caching of the source (its bytes are
     * read), any of the destination (it changes). Returns what {@code t} returned.
     */
    static long recalled(Compound c, Pair p, Transfer t) throws VfsException {
        int reading = p.src().begin(Conflict.READ, c.breaker());
        try {
            int writing = p.dst().begin(Conflict.WRITE, c.breaker());
            try {
                return t.run();
            } finally {
                p.dst().end(writing);
            }
        } finally {
            p.src().end(reading);
        }
    }

    /** Source and destination ranges of one file that overlap: NFS4ERR_INVAL. */
    static void checkOverlap(Pair p, long srcOffset, long dstOffset, long length) throws Nfs4Exception {
        if (p.src().handle().equals(p.dst().handle()) && srcOffset < dstOffset + length && dstOffset < srcOffset + length) {
            throw new Nfs4Exception(NFS4ERR_INVAL, "source and destination ranges overlap");
        }
    }

    /**
     * A stateid that allows writing {@code t}: a special stateid (outside the grace period), the
     * session's client's write delegation of it, or an open of it with write access.
     */
    static void checkWriteStateid(Compound c, Stateid s, Target t) throws Nfs4Exception {
        if (s.isSpecial()) {
            c.server().state().notInGrace(c.server().now());
        } else if (Delegations.isDelegation(s)) {
            OpRead.checkWriteDelegation(c, s, t); // a client writes back what it kept under a write delegation
        } else {
            OpenState o = OpRead.checkOwner(c, s, t);
            if ((o.access() & OPEN4_SHARE_ACCESS_WRITE) == 0) {
                throw new Nfs4Exception(NFS4ERR_OPENMODE, "open " + s + " does not allow writing");
            }
        }
    }

    /** An offset and a length that name bytes of a file: NFS4ERR_INVAL for none, NFS4ERR_FBIG past 2^63-1. */
    static void checkRange(long offset, long length) throws Nfs4Exception {
        if (length == 0) {
            throw new Nfs4Exception(NFS4ERR_INVAL, "a range of no bytes");
        }
        if (offset < 0 || length < 0 || offset + length < 0) {
            throw new Nfs4Exception(NFS4ERR_FBIG, "a range beyond 2^63-1");
        }
    }
}
