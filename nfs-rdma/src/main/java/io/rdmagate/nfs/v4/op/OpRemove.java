package io.rdmagate.nfs.v4.op;

import static io.rdmagate.nfs.v4.Nfs4.*;

import io.rdmagate.nfs.NfsExports.Target;
import io.rdmagate.nfs.v4.Compound;
import io.rdmagate.nfs.v4.Nfs4Exception;
import io.rdmagate.nfs.v4.Nfs4Op;
import io.rdmagate.oncrpc.xdr.XdrException;
import io.rdmagate.vfs.Caller;
import io.rdmagate.vfs.FileType;
import io.rdmagate.vfs.VfsException;
import io.rdmagate.vfs.state.Conflict;

/**
 * RFC 8881 §18.25 REMOVE: args component4 in the current directory; resok change_info4. Removes a
 * file or an empty directory (NFS4ERR_NOTEMPTY otherwise). An SMB open without FILE_SHARE_DELETE
 * refuses it, and SMB handle caching of the file is recalled first, as for NFSv3 REMOVE. During the
 * grace period after a restart it is NFS4ERR_GRACE, as knfsd answers (a client may still reclaim an
 * open of the file).
 */
public final class OpRemove extends Nfs4Op {
    public OpRemove() {
        super(OP_REMOVE, "REMOVE");
    }

    @Override
    public void run(Compound c) throws Nfs4Exception, XdrException, VfsException {
        String name = Names4.read(c.in());
        Target dir = Dirs.currentDirectory(c);
        Caller caller = c.writer(dir);
        c.server().state().notInGrace(c.server().now()); // as knfsd: a file a client may reclaim stays
        long before = ChangeInfo.of(dir);
        FileType type = dir.fs().lookup(caller, dir.handle(), name).attributes().type();
        int use = dir.begin(name, Conflict.NAMESPACE, c.breaker());
        try {
            if (type == FileType.DIRECTORY) {
                dir.fs().rmdir(caller, dir.handle(), name);
            } else {
                dir.fs().remove(caller, dir.handle(), name);
            }
        } finally {
            dir.end(use);
        }
        dir.stable();
        new ChangeInfo(before, ChangeInfo.of(dir)).write(c.out());
    }
}
