package io.rdmagate.nfs.v3;

import io.rdmagate.nfs.NfsExports.Target;
import io.rdmagate.oncrpc.xdr.XdrEncoder;
import io.rdmagate.oncrpc.xdr.XdrException;
import io.rdmagate.oncrpc.xdr.XdrMessage;
import io.rdmagate.vfs.FileAttributes;
import io.rdmagate.vfs.VfsException;
import io.rdmagate.vfs.state.Conflict;

/** RFC 1813 §3.3.1 GETATTR: args nfs_fh3; resok fattr3; resfail nothing. */
public final class Nfs3Getattr extends Nfs3Procedure {
    public Nfs3Getattr() {
        super(Nfs3.GETATTR, "GETATTR", false);
    }

    @Override
    public XdrMessage run(Nfs3Request r) throws XdrException {
        byte[] fh = Nfs3Xdr.readFh(r.in());
        try {
            Target t = r.resolve(fh);
            r.reader(t);
            t.end(t.begin(Conflict.READ)); // size and times as an SMB client with write caching has them
            FileAttributes a = t.fs().getattr(t.handle());
            XdrEncoder out = r.ok();
            Nfs3Xdr.fattr(out, a);
            return out.finish();
        } catch (VfsException | Nfs3Exception e) {
            return r.fail(e).finish();
        }
    }
}
