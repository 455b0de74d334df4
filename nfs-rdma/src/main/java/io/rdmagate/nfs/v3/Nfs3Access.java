package io.rdmagate.nfs.v3;

import io.rdmagate.nfs.ClientAccess;
import io.rdmagate.nfs.NfsExports.Target;
import io.rdmagate.oncrpc.xdr.XdrDecoder;
import io.rdmagate.oncrpc.xdr.XdrEncoder;
import io.rdmagate.oncrpc.xdr.XdrException;
import io.rdmagate.oncrpc.xdr.XdrMessage;
import io.rdmagate.vfs.VfsException;
import io.rdmagate.vfs.VirtualFileSystem;

/**
 * RFC 1813 §3.3.4 ACCESS: args nfs_fh3, uint32 access; resok post_op_attr, uint32 access; resfail
 * post_op_attr. On a read-only export or rule, MODIFY, EXTEND and DELETE are never granted.
 */
public final class Nfs3Access extends Nfs3Procedure {
    private static final int CHANGES = VirtualFileSystem.ACCESS_MODIFY | VirtualFileSystem.ACCESS_EXTEND
            | VirtualFileSystem.ACCESS_DELETE;

    public Nfs3Access() {
        super(Nfs3.ACCESS, "ACCESS", false);
    }

    @Override
    public XdrMessage run(Nfs3Request r) throws XdrException {
        XdrDecoder in = r.in();
        byte[] fh = Nfs3Xdr.readFh(in);
        int requested = in.readInt() & 0x3f;
        Target t = null;
        try {
            t = r.resolve(fh);
            ClientAccess a = r.access(t.export());
            int granted = t.fs().access(a.caller(), t.handle(), requested);
            if (!a.writable()) {
                granted &= ~CHANGES;
            }
            XdrEncoder out = r.ok();
            Nfs3Xdr.postOpAttr(out, Nfs3Request.attributesOrNull(t));
            out.writeInt(granted);
            return out.finish();
        } catch (VfsException | Nfs3Exception e) {
            XdrEncoder out = r.fail(e);
            Nfs3Xdr.postOpAttr(out, Nfs3Request.attributesOrNull(t));
            return out.finish();
        }
    }
}
