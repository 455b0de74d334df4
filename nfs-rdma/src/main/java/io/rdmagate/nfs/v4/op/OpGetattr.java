package io.rdmagate.nfs.v4.op;

import static io.rdmagate.nfs.v4.Nfs4.*;

import io.rdmagate.nfs.NfsExports.Target;
import io.rdmagate.nfs.v4.Compound;
import io.rdmagate.nfs.v4.Fattr4;
import io.rdmagate.nfs.v4.Fh4;
import io.rdmagate.nfs.v4.Nfs4Exception;
import io.rdmagate.nfs.v4.Nfs4Op;
import io.rdmagate.oncrpc.xdr.XdrException;
import io.rdmagate.vfs.VfsException;
import io.rdmagate.vfs.state.Conflict;

/**
 * RFC 8881 §18.7 GETATTR: args bitmap4; resok fattr4 of the supported attributes asked for. As NFSv3
 * GETATTR, an SMB client's write caching of the file is flushed first, so size and times are what it has.
 */
public final class OpGetattr extends Nfs4Op {
    public OpGetattr() {
        super(OP_GETATTR, "GETATTR");
    }

    @Override
    public void run(Compound c) throws Nfs4Exception, XdrException, VfsException {
        int[] requested = Fattr4.readBitmap(c.in());
        Fh4 fh = c.current();
        if (fh instanceof Fh4.File f) {
            Target t = f.target();
            c.reader(t);
            t.end(t.begin(Conflict.READ, c.breaker()));
        }
        Fattr4.write(c.out(), requested, c.attributes(fh), c.server());
    }
}
