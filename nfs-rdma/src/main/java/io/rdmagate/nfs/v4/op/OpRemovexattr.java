package io.rdmagate.nfs.v4.op;

import static io.rdmagate.nfs.v4.Nfs4.*;

import io.rdmagate.nfs.NfsExports.Target;
import io.rdmagate.nfs.v4.Compound;
import io.rdmagate.nfs.v4.Nfs4Exception;
import io.rdmagate.nfs.v4.Nfs4Op;
import io.rdmagate.oncrpc.xdr.XdrException;
import io.rdmagate.vfs.Caller;
import io.rdmagate.vfs.VfsException;
import io.rdmagate.vfs.state.Conflict;

/**
 * RFC 8276 §8.4.4 REMOVEXATTR: args the name; resok the file's change_info4. NFS4ERR_NOXATTR when
 * the file has no such attribute. A change of the file, as SETXATTR.
 */
public final class OpRemovexattr extends Nfs4Op {
    public OpRemovexattr() {
        super(OP_REMOVEXATTR, "REMOVEXATTR");
    }

    @Override
    public void run(Compound c) throws Nfs4Exception, XdrException, VfsException {
        String name = Xattrs4.readName(c.in());
        Target t = c.currentFile(NFS4ERR_ROFS);
        Caller caller = c.writer(t);
        long before = ChangeInfo.of(t);
        int use = t.begin(Conflict.WRITE, c.breaker());
        try {
            t.fs().removexattr(caller, t.handle(), name);
        } finally {
            t.end(use);
        }
        new ChangeInfo(before, ChangeInfo.of(t)).write(c.out());
    }
}
