package io.rdmagate.nfs.v3;

import io.rdmagate.nfs.NfsExports;
import io.rdmagate.nfs.NfsExports.Target;
import io.rdmagate.nfs.v3.Nfs3Xdr.WccAttr;
import io.rdmagate.oncrpc.xdr.XdrDecoder;
import io.rdmagate.oncrpc.xdr.XdrEncoder;
import io.rdmagate.oncrpc.xdr.XdrException;
import io.rdmagate.oncrpc.xdr.XdrMessage;
import io.rdmagate.vfs.Caller;
import io.rdmagate.vfs.CreateMode;
import io.rdmagate.vfs.Node;
import io.rdmagate.vfs.SetAttributes;
import io.rdmagate.vfs.VfsException;
import io.rdmagate.vfs.state.Conflict;

/**
 * RFC 1813 §3.3.8 CREATE: args diropargs3, createhow3 (UNCHECKED or GUARDED with sattr3,
 * EXCLUSIVE with createverf3); resok post_op_fh3, post_op_attr, wcc_data dir; resfail wcc_data
 * dir. EXCLUSIVE keeps the verifier with the file, so a retransmission finds the file it created
 * and succeeds while another client's create of the name fails with NFS3ERR_EXIST; the client then
 * sets the attributes with SETATTR. A createmode outside 0..2 is GARBAGE_ARGS.
 */
public final class Nfs3Create extends Nfs3Procedure {
    public Nfs3Create() {
        super(Nfs3.CREATE, "CREATE", true);
    }

    @Override
    public XdrMessage run(Nfs3Request r) throws XdrException {
        XdrDecoder in = r.in();
        byte[] fh = Nfs3Xdr.readFh(in);
        String name = Nfs3Xdr.readName(in);
        int how = in.readEnum();
        SetAttributes attrs = SetAttributes.NONE;
        long verifier = 0;
        CreateMode mode = switch (how) {
            case Nfs3.UNCHECKED -> CreateMode.UNCHECKED;
            case Nfs3.GUARDED -> CreateMode.GUARDED;
            case Nfs3.EXCLUSIVE -> CreateMode.EXCLUSIVE;
            default -> throw new XdrException("createmode3 " + how);
        };
        if (mode == CreateMode.EXCLUSIVE) {
            verifier = in.readHyper();
        } else {
            attrs = Nfs3Xdr.readSattr(in);
        }
        Target dir = null;
        WccAttr before = null;
        int use = -1;
        try {
            dir = r.resolve(fh);
            Caller c = r.writer(dir);
            Nfs3Xdr.checkSize(attrs);
            before = WccAttr.of(dir.fs().getattr(dir.handle()));
            if (mode == CreateMode.UNCHECKED && attrs != null && !attrs.isEmpty()) {
                use = dir.begin(name, Conflict.WRITE); // UNCHECKED over an existing file sets its attributes (size 0 truncates)
            }
            Node n = dir.fs().create(c, dir.handle(), name, mode, attrs, verifier);
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
        } finally {
            if (dir != null) {
                dir.end(use);
            }
        }
    }
}
