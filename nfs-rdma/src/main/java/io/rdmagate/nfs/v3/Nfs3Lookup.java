package io.rdmagate.nfs.v3;

import io.rdmagate.nfs.NfsExports;
import io.rdmagate.nfs.NfsExports.Target;
import io.rdmagate.oncrpc.xdr.XdrDecoder;
import io.rdmagate.oncrpc.xdr.XdrEncoder;
import io.rdmagate.oncrpc.xdr.XdrException;
import io.rdmagate.oncrpc.xdr.XdrMessage;
import io.rdmagate.vfs.Caller;
import io.rdmagate.vfs.Node;
import io.rdmagate.vfs.VfsException;

/**
 * RFC 1813 §3.3.3 LOOKUP: args diropargs3; resok nfs_fh3 object, post_op_attr object, post_op_attr
 * dir; resfail post_op_attr dir. "." is the directory itself and ".." its parent (the root is its
 * own parent), so a client never leaves the export.
 */
public final class Nfs3Lookup extends Nfs3Procedure {
    public Nfs3Lookup() {
        super(Nfs3.LOOKUP, "LOOKUP", false);
    }

    @Override
    public XdrMessage run(Nfs3Request r) throws XdrException {
        XdrDecoder in = r.in();
        byte[] fh = Nfs3Xdr.readFh(in);
        String name = Nfs3Xdr.readName(in);
        Target dir = null;
        try {
            dir = r.resolve(fh);
            Caller c = r.reader(dir);
            Node n = switch (name) {
                case "." -> new Node(dir.handle(), dir.fs().getattr(dir.handle()));
                case ".." -> dir.fs().parent(c, dir.handle());
                default -> dir.fs().lookup(c, dir.handle(), name);
            };
            XdrEncoder out = r.ok();
            out.writeOpaque(NfsExports.wire(dir.export(), n.handle()));
            Nfs3Xdr.postOpAttr(out, n.attributes());
            Nfs3Xdr.postOpAttr(out, Nfs3Request.attributesOrNull(dir));
            return out.finish();
        } catch (VfsException | Nfs3Exception e) {
            XdrEncoder out = r.fail(e);
            Nfs3Xdr.postOpAttr(out, Nfs3Request.attributesOrNull(dir));
            return out.finish();
        }
    }
}
