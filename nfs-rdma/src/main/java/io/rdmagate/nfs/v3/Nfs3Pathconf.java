package io.rdmagate.nfs.v3;

import io.rdmagate.nfs.NfsExports.Target;
import io.rdmagate.oncrpc.xdr.XdrEncoder;
import io.rdmagate.oncrpc.xdr.XdrException;
import io.rdmagate.oncrpc.xdr.XdrMessage;
import io.rdmagate.vfs.FsStat;
import io.rdmagate.vfs.VfsException;

/**
 * RFC 1813 §3.3.20 PATHCONF: args nfs_fh3; resok post_op_attr, linkmax, name_max, no_trunc,
 * chown_restricted, case_insensitive, case_preserving; resfail post_op_attr. Long names are
 * refused, never truncated; only the superuser may chown; case insensitivity is the export's.
 */
public final class Nfs3Pathconf extends Nfs3Procedure {
    static final int LINK_MAX = 65000;

    public Nfs3Pathconf() {
        super(Nfs3.PATHCONF, "PATHCONF", false);
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
            out.writeInt(LINK_MAX);
            out.writeInt(s.maxNameBytes());
            out.writeBool(true); // no_trunc
            out.writeBool(true); // chown_restricted
            out.writeBool(t.fs().options().caseInsensitive());
            out.writeBool(true); // case_preserving
            return out.finish();
        } catch (VfsException | Nfs3Exception e) {
            XdrEncoder out = r.fail(e);
            Nfs3Xdr.postOpAttr(out, Nfs3Request.attributesOrNull(t));
            return out.finish();
        }
    }
}
