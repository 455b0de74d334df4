package io.rdmagate.nfs.v4.op;

import static io.rdmagate.nfs.v4.Nfs4.*;

import io.rdmagate.nfs.NfsExports.Target;
import io.rdmagate.nfs.v4.Compound;
import io.rdmagate.nfs.v4.Fh4;
import io.rdmagate.nfs.v4.Nfs4Exception;
import io.rdmagate.nfs.v4.Nfs4Op;
import io.rdmagate.oncrpc.xdr.XdrException;
import io.rdmagate.vfs.VfsException;

/**
 * RFC 8881 §18.29 SECINFO: args component4 in the current directory; resok the flavors for that
 * object (NFS4ERR_NOENT when it does not exist). The current filehandle is consumed (§18.29.3).
 */
public final class OpSecinfo extends Nfs4Op {
    public OpSecinfo() {
        super(OP_SECINFO, "SECINFO");
    }

    @Override
    public void run(Compound c) throws Nfs4Exception, XdrException, VfsException {
        String name = Names4.read(c.in());
        io.rdmagate.nfs.NfsExport export = switch (c.current()) {
            case Fh4.Pseudo p -> OpLookup.child(c, p.node(), name) instanceof Fh4.File f ? f.target().export() : null;
            case Fh4.File f -> {
                Target dir = f.target();
                dir.fs().lookup(c.reader(dir), dir.handle(), name);
                yield dir.export();
            }
        };
        Secinfos.write(c, export);
        c.current(null);
    }
}
