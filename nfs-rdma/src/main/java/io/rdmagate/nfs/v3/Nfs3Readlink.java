package io.rdmagate.nfs.v3;

import io.rdmagate.nfs.NfsExports.Target;
import io.rdmagate.oncrpc.xdr.XdrEncoder;
import io.rdmagate.oncrpc.xdr.XdrException;
import io.rdmagate.oncrpc.xdr.XdrMessage;
import io.rdmagate.vfs.VfsException;

/**
 * RFC 1813 §3.3.5 READLINK: args nfs_fh3; resok post_op_attr, nfspath3; resfail post_op_attr. A
 * handle of something other than a symlink is NFS3ERR_INVAL.
 *
 * <p>The link text is DDP-eligible (RFC 8267 §2.2.1): it goes out as the reply's payload, so over
 * RPC-over-RDMA it lands in the client's write chunk when the client offers one.
 */
public final class Nfs3Readlink extends Nfs3Procedure {
    public Nfs3Readlink() {
        super(Nfs3.READLINK, "READLINK", false);
    }

    @Override
    public XdrMessage run(Nfs3Request r) throws XdrException {
        byte[] fh = Nfs3Xdr.readFh(r.in());
        Target t = null;
        try {
            t = r.resolve(fh);
            String target = t.fs().readlink(r.reader(t), t.handle());
            XdrEncoder out = r.ok();
            Nfs3Xdr.postOpAttr(out, Nfs3Request.attributesOrNull(t));
            byte[] text = target.getBytes(java.nio.charset.StandardCharsets.UTF_8);
            if (text.length == 0) {
                out.writeString(target);
            } else {
                io.rdmagate.vfs.memory.IoMemory m = r.memory().lease(text.length);
                java.lang.foreign.MemorySegment.copy(text, 0, m.segment(), java.lang.foreign.ValueLayout.JAVA_BYTE, 0,
                        text.length);
                out.writePayload(m);
            }
            return out.finish();
        } catch (VfsException | Nfs3Exception e) {
            XdrEncoder out = r.fail(e);
            Nfs3Xdr.postOpAttr(out, Nfs3Request.attributesOrNull(t));
            return out.finish();
        }
    }
}
