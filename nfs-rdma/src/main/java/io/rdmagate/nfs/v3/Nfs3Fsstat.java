package io.rdmagate.nfs.v3;

import io.rdmagate.nfs.NfsExports.Target;
import io.rdmagate.oncrpc.xdr.XdrEncoder;
import io.rdmagate.oncrpc.xdr.XdrException;
import io.rdmagate.oncrpc.xdr.XdrMessage;
import io.rdmagate.vfs.FsStat;
import io.rdmagate.vfs.VfsException;

/**
 * RFC 1813 §3.3.18 FSSTAT: args nfs_fh3; resok post_op_attr, tbytes, fbytes, abytes, tfiles,
 * ffiles, afiles, invarsec (0: the figures may change at any time); resfail post_op_attr.
 */
public final class Nfs3Fsstat extends Nfs3Procedure {
    public Nfs3Fsstat() {
        super(Nfs3.FSSTAT, "FSSTAT", false);
    }

    @Override
    public XdrMessage run(Nfs3Request r) throws XdrException {
        byte[] fh = Nfs3Xdr.readFh(r.in());
        Target t = null;
        try {
            t = r.resolve(fh);
            r.reader(t);
            FsStat s = t.fs().statfs(t.handle());
            XdrEncoder out = r.ok();
            Nfs3Xdr.postOpAttr(out, Nfs3Request.attributesOrNull(t));
            out.writeHyper(s.totalBytes());
            out.writeHyper(s.freeBytes());
            out.writeHyper(s.availableBytes());
            out.writeHyper(s.totalFiles());
            out.writeHyper(s.freeFiles());
            out.writeHyper(s.availableFiles());
            out.writeInt(0);
            return out.finish();
        } catch (VfsException | Nfs3Exception e) {
            XdrEncoder out = r.fail(e);
            Nfs3Xdr.postOpAttr(out, Nfs3Request.attributesOrNull(t));
            return out.finish();
        }
    }
}
