package io.rdmagate.nfs.v3;

import io.rdmagate.nfs.NfsExports.Target;
import io.rdmagate.nfs.v3.Nfs3Xdr.WccAttr;
import io.rdmagate.oncrpc.xdr.XdrDecoder;
import io.rdmagate.oncrpc.xdr.XdrEncoder;
import io.rdmagate.oncrpc.xdr.XdrException;
import io.rdmagate.oncrpc.xdr.XdrMessage;
import io.rdmagate.vfs.Caller;
import io.rdmagate.vfs.FileAttributes;
import io.rdmagate.vfs.SetAttributes;
import io.rdmagate.vfs.VfsException;
import io.rdmagate.vfs.state.Conflict;

/**
 * RFC 1813 §3.3.2 SETATTR: args nfs_fh3, sattr3, sattrguard3; resok and resfail wcc_data. With the
 * guard, the file's ctime must equal obj_ctime or the call fails with NFS3ERR_NOT_SYNC and changes
 * nothing.
 */
public final class Nfs3Setattr extends Nfs3Procedure {
    public Nfs3Setattr() {
        super(Nfs3.SETATTR, "SETATTR", true);
    }

    @Override
    public XdrMessage run(Nfs3Request r) throws XdrException {
        XdrDecoder in = r.in();
        byte[] fh = Nfs3Xdr.readFh(in);
        SetAttributes attrs = Nfs3Xdr.readSattr(in);
        boolean guarded = in.readBool();
        long guardCtime = guarded ? Nfs3Xdr.readTime(in) : 0;
        Target t = null;
        WccAttr before = null;
        int use = -1;
        try {
            t = r.resolve(fh);
            Caller c = r.writer(t);
            Nfs3Xdr.checkSize(attrs);
            if (!attrs.isEmpty()) {
                use = t.begin(Conflict.WRITE);
            }
            FileAttributes b = t.fs().getattr(t.handle());
            before = WccAttr.of(b);
            if (guarded && b.ctimeNanos() != guardCtime) {
                throw new Nfs3Exception(Nfs3Status.NFS3ERR_NOT_SYNC, "guard ctime differs");
            }
            FileAttributes after = attrs.isEmpty() ? b : t.fs().setattr(c, t.handle(), attrs);
            if (!attrs.isEmpty()) {
                t.stable();
            }
            XdrEncoder out = r.ok();
            Nfs3Xdr.wcc(out, before, after);
            return out.finish();
        } catch (VfsException | Nfs3Exception e) {
            XdrEncoder out = r.fail(e);
            Nfs3Xdr.wcc(out, before, Nfs3Request.attributesOrNull(t));
            return out.finish();
        } finally {
            if (t != null) {
                t.end(use);
            }
        }
    }
}
