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

/**
 * RFC 1813 §3.3.14 RENAME: args diropargs3 from, diropargs3 to; resok and resfail wcc_data of
 * both directories. An existing target is replaced (§3.3.14: atomically, a directory only if
 * empty); directories of two exports are NFS3ERR_XDEV.
 */
public final class Nfs3Rename extends Nfs3Procedure {
    public Nfs3Rename() {
        super(Nfs3.RENAME, "RENAME", true);
    }

    @Override
    public XdrMessage run(Nfs3Request r) throws XdrException {
        XdrDecoder in = r.in();
        byte[] fromFh = Nfs3Xdr.readFh(in);
        String fromName = Nfs3Xdr.readName(in);
        byte[] toFh = Nfs3Xdr.readFh(in);
        String toName = Nfs3Xdr.readName(in);
        Target from = null;
        Target to = null;
        WccAttr fromBefore = null;
        WccAttr toBefore = null;
        int moved = -1;
        int replaced = -1;
        try {
            from = r.resolve(fromFh);
            to = r.resolve(toFh);
            Caller c = r.writer(from);
            if (from.export() != to.export()) {
                throw new Nfs3Exception(Nfs3Status.NFS3ERR_XDEV, "rename across exports");
            }
            fromBefore = WccAttr.of(from.fs().getattr(from.handle()));
            toBefore = WccAttr.of(to.fs().getattr(to.handle()));
            moved = from.begin(fromName, Conflict.NAMESPACE);
            replaced = to.begin(toName, Conflict.NAMESPACE);
            from.fs().rename(c, from.handle(), fromName, to.handle(), toName, true);
            from.stable(to);
            XdrEncoder out = r.ok();
            Nfs3Xdr.wcc(out, fromBefore, Nfs3Request.attributesOrNull(from));
            Nfs3Xdr.wcc(out, toBefore, Nfs3Request.attributesOrNull(to));
            return out.finish();
        } catch (VfsException | Nfs3Exception e) {
            XdrEncoder out = r.fail(e);
            Nfs3Xdr.wcc(out, fromBefore, Nfs3Request.attributesOrNull(from));
            Nfs3Xdr.wcc(out, toBefore, Nfs3Request.attributesOrNull(to));
            return out.finish();
        } finally {
            if (from != null) {
                from.end(moved);
            }
            if (to != null) {
                to.end(replaced);
            }
        }
    }
}
