package io.rdmagate.nfs.v4.op;

import static io.rdmagate.nfs.v4.Nfs4.*;

import io.rdmagate.nfs.NfsExports.Target;
import io.rdmagate.nfs.v4.Compound;
import io.rdmagate.nfs.v4.Nfs4Exception;
import io.rdmagate.nfs.v4.Nfs4Op;
import io.rdmagate.oncrpc.xdr.XdrException;
import io.rdmagate.vfs.FileType;
import io.rdmagate.vfs.VfsException;

/** RFC 8881 §18.3 COMMIT: args offset, count; resok the write verifier, once the file's data is on stable storage. */
public final class OpCommit extends Nfs4Op {
    public OpCommit() {
        super(OP_COMMIT, "COMMIT");
    }

    @Override
    public void run(Compound c) throws Nfs4Exception, XdrException, VfsException {
        long offset = c.in().readHyper();
        long count = Integer.toUnsignedLong(c.in().readInt());
        Target t = c.currentFile(NFS4ERR_ISDIR);
        c.reader(t);
        FileType type = t.fs().getattr(t.handle()).type();
        if (type != FileType.REGULAR) {
            throw new Nfs4Exception(type == FileType.DIRECTORY ? NFS4ERR_ISDIR
                    : type == FileType.SYMLINK ? NFS4ERR_SYMLINK : NFS4ERR_INVAL, "COMMIT of a " + type);
        }
        if (offset < 0 || offset + count < 0) {
            throw new Nfs4Exception(NFS4ERR_INVAL, "range beyond 2^64");
        }
        t.fs().commit(t.handle());
        c.out().writeHyper(t.fs().writeVerifier());
    }
}
