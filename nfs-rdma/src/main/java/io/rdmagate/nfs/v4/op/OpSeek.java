package io.rdmagate.nfs.v4.op;

import static io.rdmagate.nfs.v4.Nfs4.*;

import io.rdmagate.nfs.NfsExports.Target;
import io.rdmagate.nfs.v4.Compound;
import io.rdmagate.nfs.v4.Nfs4Exception;
import io.rdmagate.nfs.v4.Nfs4Op;
import io.rdmagate.nfs.v4.state.Stateid;
import io.rdmagate.oncrpc.xdr.XdrDecoder;
import io.rdmagate.oncrpc.xdr.XdrException;
import io.rdmagate.vfs.Caller;
import io.rdmagate.vfs.VfsException;
import io.rdmagate.vfs.state.Conflict;

/**
 * RFC 7862 §15.11 SEEK: args stateid, offset, what (NFS4_CONTENT_DATA or NFS4_CONTENT_HOLE); resok
 * eof, offset. The backend's {@code lseek SEEK_DATA/SEEK_HOLE} answers, so a client's {@code lseek}
 * on the mount behaves as on the server's disk: NFS4ERR_NXIO from the end of the file on, and when
 * no data follows. An SMB client's write caching of the file is flushed first, as for READ.
 */
public final class OpSeek extends Nfs4Op {
    public OpSeek() {
        super(OP_SEEK, "SEEK");
    }

    @Override
    public void run(Compound c) throws Nfs4Exception, XdrException, VfsException {
        XdrDecoder in = c.in();
        Stateid stateid = c.resolveStateid(Stateid.read(in));
        long offset = in.readHyper();
        int what = in.readInt();
        if (what != NFS4_CONTENT_DATA && what != NFS4_CONTENT_HOLE) {
            throw new Nfs4Exception(NFS4ERR_UNION_NOTSUPP, "SEEK for content " + what);
        }
        Target t = c.currentFile(NFS4ERR_ISDIR);
        Caller caller = c.reader(t);
        DataAccess.regular(t, NFS4ERR_INVAL);
        OpRead.checkStateid(c, stateid, t);
        if (offset < 0) {
            throw new Nfs4Exception(NFS4ERR_NXIO, "offset beyond 2^63-1");
        }
        t.end(t.begin(Conflict.READ, c.breaker()));
        long found = t.fs().seek(caller, t.handle(), offset, what == NFS4_CONTENT_DATA);
        if (found < 0) {
            throw new Nfs4Exception(NFS4ERR_NXIO, "no " + (what == NFS4_CONTENT_DATA ? "data" : "hole") + " from " + offset);
        }
        c.out().writeBool(found >= t.fs().getattr(t.handle()).size());
        c.out().writeHyper(found);
    }
}
