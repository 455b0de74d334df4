package io.rdmagate.nfs.v3;

import io.netty.buffer.ByteBuf;
import io.rdmagate.nfs.NfsExports.Target;
import io.rdmagate.nfs.WriteData;
import io.rdmagate.nfs.v3.Nfs3Xdr.WccAttr;
import io.rdmagate.oncrpc.xdr.XdrDecoder;
import io.rdmagate.oncrpc.xdr.XdrEncoder;
import io.rdmagate.oncrpc.xdr.XdrException;
import io.rdmagate.oncrpc.xdr.XdrMessage;
import io.rdmagate.vfs.Caller;
import io.rdmagate.vfs.FileAttributes;
import io.rdmagate.vfs.Stability;
import io.rdmagate.vfs.VfsException;
import io.rdmagate.vfs.state.Conflict;
import io.rdmagate.vfs.WriteResult;

/**
 * RFC 1813 §3.3.7 WRITE: args nfs_fh3, offset3, count3, stable_how, opaque data; resok wcc_data,
 * count3, stable_how committed, writeverf3; resfail wcc_data.
 *
 * <p>Accepts data of at most wtmax bytes whose length equals count; refuses a different count, a
 * larger payload and a stable_how outside 0..2 as GARBAGE_ARGS (as knfsd does).
 *
 * <p>Where the bytes travel: {@link WriteData}, from the receive buffers they arrived in, with no
 * copy. FILE_SYNC and DATA_SYNC reach stable storage before the reply.
 */
public final class Nfs3Write extends Nfs3Procedure {
    public Nfs3Write() {
        super(Nfs3.WRITE, "WRITE", false);
    }

    @Override
    public XdrMessage run(Nfs3Request r) throws XdrException {
        XdrDecoder in = r.in();
        byte[] fh = Nfs3Xdr.readFh(in);
        long offset = in.readHyper();
        long count = in.readUnsignedInt();
        int how = in.readEnum();
        if (how < Nfs3.UNSTABLE || how > Nfs3.FILE_SYNC) {
            throw new XdrException("stable_how " + how);
        }
        ByteBuf data = in.readOpaqueSlice(r.maxIoSize());
        try {
            if (data.readableBytes() != count) {
                throw new XdrException("WRITE count " + count + " but " + data.readableBytes() + " bytes of data");
            }
            return write(r, fh, offset, Stability.values()[how], data);
        } finally {
            data.release();
        }
    }

    private static XdrMessage write(Nfs3Request r, byte[] fh, long offset, Stability stability, ByteBuf data) {
        Target t = null;
        WccAttr before = null;
        int use = -1;
        try {
            t = r.resolve(fh);
            Caller c = r.writer(t);
            use = t.begin(Conflict.WRITE); // SMB opens denying writes refuse it; SMB caching of the file is recalled
            if (offset < 0 || offset + data.readableBytes() < 0) {
                throw new Nfs3Exception(Nfs3Status.NFS3ERR_FBIG, "write beyond 2^63-1");
            }
            FileAttributes b = t.fs().getattr(t.handle());
            before = WccAttr.of(b);
            c = WriteData.ownerOverride(t, c, b.uid());
            WriteResult w = WriteData.write(t, c, offset, stability, data, r.memory(), r.copies());
            XdrEncoder out = r.ok();
            Nfs3Xdr.wcc(out, before, w.after());
            out.writeInt(w.count());
            out.writeInt(w.committed().ordinal());
            Nfs3Xdr.verifier(out, t.fs().writeVerifier());
            return out.finish();
        } catch (VfsException | Nfs3Exception e) {
            XdrEncoder out = r.fail(e);
            Nfs3Xdr.wcc(out, before, Nfs3Request.attributesOrNull(t));
            return out.finish();
        } finally {
            if (t != null) {
                t.end(use);
            }
        }
    }
}
