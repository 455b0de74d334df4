package io.rdmagate.nfs.v4.op;

import static io.rdmagate.nfs.v4.Nfs4.*;

import io.rdmagate.nfs.NfsExports.Target;
import io.rdmagate.nfs.v4.Compound;
import io.rdmagate.nfs.v4.Nfs4Exception;
import io.rdmagate.nfs.v4.Nfs4Op;
import io.rdmagate.oncrpc.xdr.XdrException;
import io.rdmagate.vfs.VfsException;
import io.rdmagate.vfs.state.Conflict;

/**
 * RFC 8276 §8.4.1 GETXATTR: args the name; resok the value. NFS4ERR_NOXATTR when the file has no
 * such attribute (a pseudo directory has none), NFS4ERR_REP_TOO_BIG when the value does not fit the
 * session's replies. Another client's write delegation of the file is recalled first, as for GETATTR.
 */
public final class OpGetxattr extends Nfs4Op {
    public OpGetxattr() {
        super(OP_GETXATTR, "GETXATTR");
    }

    @Override
    public void run(Compound c) throws Nfs4Exception, XdrException, VfsException {
        String name = Xattrs4.readName(c.in());
        Target t = c.currentFile(NFS4ERR_NOXATTR);
        t.end(t.begin(Conflict.READ, c.breaker()));
        byte[] value = t.fs().getxattr(c.reader(t), t.handle(), name);
        if (value.length > c.maxResponse() - 1024L) {
            throw new Nfs4Exception(NFS4ERR_REP_TOO_BIG, "a value of " + value.length + " bytes");
        }
        c.out().writeOpaque(value);
    }
}
