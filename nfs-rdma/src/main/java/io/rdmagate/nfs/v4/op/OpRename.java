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
 * RFC 8881 §18.26 RENAME: the saved filehandle is the source directory, the current one the target;
 * args oldname, newname; resok change_info4 of both. An existing target is replaced (a directory
 * only if empty); directories of two exports are NFS4ERR_XDEV. SMB opens and handle caching of
 * the two names are treated as for NFSv3 RENAME.
 */
public final class OpRename extends Nfs4Op {
    public OpRename() {
        super(OP_RENAME, "RENAME");
    }

    @Override
    public void run(Compound c) throws Nfs4Exception, XdrException, VfsException {
        String oldName = Names4.read(c.in());
        String newName = Names4.read(c.in());
        Target from = Dirs.directory(c.saved());
        Target to = Dirs.currentDirectory(c);
        if (from.export() != to.export()) {
            throw new Nfs4Exception(NFS4ERR_XDEV, "rename across exports");
        }
        Caller caller = c.writer(from);
        c.server().state().notInGrace(c.server().now()); // as knfsd: a file a client may reclaim stays
        long fromBefore = ChangeInfo.of(from);
        long toBefore = ChangeInfo.of(to);
        int moved = from.begin(oldName, Conflict.NAMESPACE, c.breaker());
        int replaced = -1;
        try {
            replaced = to.begin(newName, Conflict.NAMESPACE, c.breaker());
            from.fs().rename(caller, from.handle(), oldName, to.handle(), newName, true);
        } finally {
            from.end(moved);
            to.end(replaced);
        }
        from.stable(to);
        new ChangeInfo(fromBefore, ChangeInfo.of(from)).write(c.out());
        new ChangeInfo(toBefore, ChangeInfo.of(to)).write(c.out());
    }
}
