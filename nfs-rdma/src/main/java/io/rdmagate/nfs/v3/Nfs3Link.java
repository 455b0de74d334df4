package io.rdmagate.nfs.v3;

import io.rdmagate.nfs.NfsExports.Target;
import io.rdmagate.nfs.v3.Nfs3Xdr.WccAttr;
import io.rdmagate.oncrpc.xdr.XdrDecoder;
import io.rdmagate.oncrpc.xdr.XdrEncoder;
import io.rdmagate.oncrpc.xdr.XdrException;
import io.rdmagate.oncrpc.xdr.XdrMessage;
import io.rdmagate.vfs.Caller;
import io.rdmagate.vfs.Node;
import io.rdmagate.vfs.VfsException;
import io.rdmagate.vfs.state.Conflict;

/**
 * RFC 1813 §3.3.15 LINK: args nfs_fh3 file, diropargs3 link; resok and resfail post_op_attr file,
 * wcc_data linkdir. A file and a directory of two exports are NFS3ERR_XDEV.
 */
public final class Nfs3Link extends Nfs3Procedure {
    public Nfs3Link() {
        super(Nfs3.LINK, "LINK", true);
    }

    @Override
    public XdrMessage run(Nfs3Request r) throws XdrException {
        XdrDecoder in = r.in();
        byte[] fileFh = Nfs3Xdr.readFh(in);
        byte[] dirFh = Nfs3Xdr.readFh(in);
        String name = Nfs3Xdr.readName(in);
        Target file = null;
        Target dir = null;
        WccAttr before = null;
        int use = -1;
        try {
            file = r.resolve(fileFh);
            dir = r.resolve(dirFh);
            Caller c = r.writer(dir);
            if (file.export() != dir.export()) {
                throw new Nfs3Exception(Nfs3Status.NFS3ERR_XDEV, "link across exports");
            }
            before = WccAttr.of(dir.fs().getattr(dir.handle()));
            use = file.begin(Conflict.NAMESPACE);
            Node n = dir.fs().link(c, file.handle(), dir.handle(), name);
            dir.stable();
            XdrEncoder out = r.ok();
            Nfs3Xdr.postOpAttr(out, n.attributes());
            Nfs3Xdr.wcc(out, before, Nfs3Request.attributesOrNull(dir));
            return out.finish();
        } catch (VfsException | Nfs3Exception e) {
            XdrEncoder out = r.fail(e);
            Nfs3Xdr.postOpAttr(out, Nfs3Request.attributesOrNull(file));
            Nfs3Xdr.wcc(out, before, Nfs3Request.attributesOrNull(dir));
            return out.finish();
        } finally {
            if (file != null) {
                file.end(use);
            }
        }
    }
}
