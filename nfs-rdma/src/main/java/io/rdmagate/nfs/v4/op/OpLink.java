package io.rdmagate.nfs.v4.op;

import static io.rdmagate.nfs.v4.Nfs4.*;

import io.rdmagate.nfs.NfsExports.Target;
import io.rdmagate.nfs.v4.Compound;
import io.rdmagate.nfs.v4.Fh4;
import io.rdmagate.nfs.v4.Nfs4Exception;
import io.rdmagate.nfs.v4.Nfs4Op;
import io.rdmagate.oncrpc.xdr.XdrException;
import io.rdmagate.vfs.Caller;
import io.rdmagate.vfs.VfsException;
import io.rdmagate.vfs.state.Conflict;

/**
 * RFC 8881 §18.9 LINK: the saved filehandle is the file, the current one the directory; args newname;
 * resok change_info4 of the directory. Across exports NFS4ERR_XDEV.
 */
public final class OpLink extends Nfs4Op {
    public OpLink() {
        super(OP_LINK, "LINK");
    }

    @Override
    public void run(Compound c) throws Nfs4Exception, XdrException, VfsException {
        String name = Names4.read(c.in());
        if (!(c.saved() instanceof Fh4.File f)) {
            throw new Nfs4Exception(NFS4ERR_ISDIR, "LINK of a pseudo directory");
        }
        Target file = f.target();
        Target dir = Dirs.currentDirectory(c);
        if (file.export() != dir.export()) {
            throw new Nfs4Exception(NFS4ERR_XDEV, "link across exports");
        }
        Caller caller = c.writer(dir);
        long before = ChangeInfo.of(dir);
        int use = file.begin(Conflict.NAMESPACE, c.breaker());
        try {
            dir.fs().link(caller, file.handle(), dir.handle(), name);
        } finally {
            file.end(use);
        }
        dir.stable();
        new ChangeInfo(before, ChangeInfo.of(dir)).write(c.out());
    }
}
