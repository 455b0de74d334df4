package io.rdmagate.nfs.v3;

import io.rdmagate.nfs.NfsExports.Target;
import io.rdmagate.nfs.v3.Nfs3Xdr.WccAttr;
import io.rdmagate.oncrpc.xdr.XdrDecoder;
import io.rdmagate.oncrpc.xdr.XdrEncoder;
import io.rdmagate.oncrpc.xdr.XdrException;
import io.rdmagate.oncrpc.xdr.XdrMessage;
import io.rdmagate.vfs.VfsException;

/**
 * RFC 1813 §3.3.21 COMMIT: args nfs_fh3, offset3, count3; resok wcc_data, writeverf3; resfail
 * wcc_data. The whole file reaches stable storage before the reply (a range is allowed to commit
 * more than asked). The verifier changes when the gateway restarts, so a client re-sends unstable
 * writes that a restart may have lost.
 */
public final class Nfs3Commit extends Nfs3Procedure {
    public Nfs3Commit() {
        super(Nfs3.COMMIT, "COMMIT", false);
    }

    @Override
    public XdrMessage run(Nfs3Request r) throws XdrException {
        XdrDecoder in = r.in();
        byte[] fh = Nfs3Xdr.readFh(in);
        in.readHyper(); // offset
        in.readUnsignedInt(); // count
        Target t = null;
        WccAttr before = null;
        try {
            t = r.resolve(fh);
            r.reader(t);
            before = WccAttr.of(t.fs().getattr(t.handle()));
            t.fs().commit(t.handle());
            XdrEncoder out = r.ok();
            Nfs3Xdr.wcc(out, before, Nfs3Request.attributesOrNull(t));
            Nfs3Xdr.verifier(out, t.fs().writeVerifier());
            return out.finish();
        } catch (VfsException | Nfs3Exception e) {
            XdrEncoder out = r.fail(e);
            Nfs3Xdr.wcc(out, before, Nfs3Request.attributesOrNull(t));
            return out.finish();
        }
    }
}
