package io.rdmagate.nfs.v3;

import io.rdmagate.nfs.NfsExports.Target;
import io.rdmagate.nfs.v3.Nfs3Xdr.WccAttr;
import io.rdmagate.oncrpc.xdr.XdrDecoder;
import io.rdmagate.oncrpc.xdr.XdrEncoder;
import io.rdmagate.oncrpc.xdr.XdrException;
import io.rdmagate.oncrpc.xdr.XdrMessage;
import io.rdmagate.vfs.Caller;
import io.rdmagate.vfs.VfsException;
import io.rdmagate.vfs.state.Conflict;

/** RFC 1813 §3.3.12 REMOVE: args diropargs3; resok and resfail wcc_data dir. Not for directories. */
public final class Nfs3Remove extends Nfs3Procedure {
    public Nfs3Remove() {
        super(Nfs3.REMOVE, "REMOVE", true);
    }

    @Override
    public XdrMessage run(Nfs3Request r) throws XdrException {
        XdrDecoder in = r.in();
        byte[] fh = Nfs3Xdr.readFh(in);
        String name = Nfs3Xdr.readName(in);
        Target dir = null;
        WccAttr before = null;
        int use = -1;
        try {
            dir = r.resolve(fh);
            Caller c = r.writer(dir);
            before = WccAttr.of(dir.fs().getattr(dir.handle()));
            use = dir.begin(name, Conflict.NAMESPACE); // an SMB open without FILE_SHARE_DELETE refuses it
            dir.fs().remove(c, dir.handle(), name);
            dir.stable();
            XdrEncoder out = r.ok();
            Nfs3Xdr.wcc(out, before, Nfs3Request.attributesOrNull(dir));
            return out.finish();
        } catch (VfsException | Nfs3Exception e) {
            XdrEncoder out = r.fail(e);
            Nfs3Xdr.wcc(out, before, Nfs3Request.attributesOrNull(dir));
            return out.finish();
        } finally {
            if (dir != null) {
                dir.end(use);
            }
        }
    }
}
