package io.rdmagate.nfs.v3;

import io.rdmagate.nfs.NfsExports;
import io.rdmagate.nfs.NfsExports.Target;
import io.rdmagate.nfs.v3.Nfs3Xdr.WccAttr;
import io.rdmagate.oncrpc.xdr.XdrDecoder;
import io.rdmagate.oncrpc.xdr.XdrEncoder;
import io.rdmagate.oncrpc.xdr.XdrException;
import io.rdmagate.oncrpc.xdr.XdrMessage;
import io.rdmagate.vfs.Caller;
import io.rdmagate.vfs.Node;
import io.rdmagate.vfs.SetAttributes;
import io.rdmagate.vfs.VfsException;

/**
 * RFC 1813 §3.3.9 MKDIR: args diropargs3, sattr3; resok post_op_fh3, post_op_attr, wcc_data dir;
 * resfail wcc_data dir.
 */
public final class Nfs3Mkdir extends Nfs3Procedure {
    public Nfs3Mkdir() {
        super(Nfs3.MKDIR, "MKDIR", true);
    }

    @Override
    public XdrMessage run(Nfs3Request r) throws XdrException {
        XdrDecoder in = r.in();
        byte[] fh = Nfs3Xdr.readFh(in);
        String name = Nfs3Xdr.readName(in);
        SetAttributes attrs = Nfs3Xdr.readSattr(in);
        Target dir = null;
        WccAttr before = null;
        try {
            dir = r.resolve(fh);
            Caller c = r.writer(dir);
            before = WccAttr.of(dir.fs().getattr(dir.handle()));
            Node n = dir.fs().mkdir(c, dir.handle(), name, attrs);
            dir.stable();
            XdrEncoder out = r.ok();
            Nfs3Xdr.postOpFh(out, NfsExports.wire(dir.export(), n.handle()));
            Nfs3Xdr.postOpAttr(out, n.attributes());
            Nfs3Xdr.wcc(out, before, Nfs3Request.attributesOrNull(dir));
            return out.finish();
        } catch (VfsException | Nfs3Exception e) {
            XdrEncoder out = r.fail(e);
            Nfs3Xdr.wcc(out, before, Nfs3Request.attributesOrNull(dir));
            return out.finish();
        }
    }
}
