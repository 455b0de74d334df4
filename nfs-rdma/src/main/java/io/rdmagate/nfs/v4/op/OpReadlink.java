package io.rdmagate.nfs.v4.op;

import static io.rdmagate.nfs.v4.Nfs4.*;

import io.rdmagate.nfs.NfsExports.Target;
import io.rdmagate.nfs.v4.Compound;
import io.rdmagate.nfs.v4.Nfs4Exception;
import io.rdmagate.nfs.v4.Nfs4Op;
import io.rdmagate.vfs.VfsException;

/** RFC 8881 §18.24 READLINK: resok linktext4 of the current filehandle; NFS4ERR_INVAL when it is not a symlink. */
public final class OpReadlink extends Nfs4Op {
    public OpReadlink() {
        super(OP_READLINK, "READLINK");
    }

    @Override
    public void run(Compound c) throws Nfs4Exception, VfsException {
        Target t = c.currentFile(NFS4ERR_INVAL);
        c.out().writeString(t.fs().readlink(c.reader(t), t.handle()));
    }
}
