package io.rdmagate.nfs.v3;

import io.rdmagate.nfs.NfsExports.Target;
import io.rdmagate.oncrpc.xdr.XdrDecoder;
import io.rdmagate.oncrpc.xdr.XdrEncoder;
import io.rdmagate.oncrpc.xdr.XdrException;
import io.rdmagate.oncrpc.xdr.XdrMessage;
import io.rdmagate.vfs.Caller;
import io.rdmagate.vfs.FileAttributes;
import io.rdmagate.vfs.VfsError;
import io.rdmagate.vfs.VfsException;
import io.rdmagate.vfs.state.Conflict;
import io.rdmagate.vfs.memory.IoMemory;

/**
 * RFC 1813 §3.3.6 READ: args nfs_fh3, offset3, count3; resok post_op_attr, count3, bool eof,
 * opaque data; resfail post_op_attr.
 *
 * <p>Where the bytes travel: the vfs maps the file region (when the export allows mapped reads)
 * or {@code pread}s it into I/O memory leased from this connection's pool account; that memory
 * becomes the reply's DDP-eligible payload (RFC 8267 §2), a part of its own that the TCP transport
 * writes with a gathering write and releases after. No copy in the gateway. A count over the
 * server's rtmax is served up to rtmax (§3.3.6 allows a short read).
 *
 * <p>Like knfsd, the owner of a file may read it whatever its mode bits say (the client checked
 * them at open; a file created read-only must still be readable by the writer that created it).
 */
public final class Nfs3Read extends Nfs3Procedure {
    public Nfs3Read() {
        super(Nfs3.READ, "READ", false);
    }

    @Override
    public XdrMessage run(Nfs3Request r) throws XdrException {
        XdrDecoder in = r.in();
        byte[] fh = Nfs3Xdr.readFh(in);
        long offset = in.readHyper();
        int count = (int) Math.min(in.readUnsignedInt(), r.maxIoSize());
        Target t = null;
        IoMemory data = null;
        try {
            t = r.resolve(fh);
            Caller c = r.reader(t);
            if (offset < 0) {
                throw new Nfs3Exception(Nfs3Status.NFS3ERR_INVAL, "offset beyond 2^63-1");
            }
            if (count > 0) {
                t.end(t.begin(Conflict.READ)); // SMB write caching of the file flushes first
                try {
                    data = read(t, c, offset, count, r);
                } catch (VfsException e) {
                    if (e.error() != VfsError.ACCESS || !owns(t, c)) {
                        throw e;
                    }
                    data = read(t, Caller.ROOT, offset, count, r);
                }
            }
            FileAttributes after = t.fs().getattr(t.handle());
            int n = data == null ? 0 : (int) data.length();
            boolean eof = offset + n >= after.size();
            XdrEncoder out = r.ok();
            Nfs3Xdr.postOpAttr(out, after);
            out.writeInt(n);
            out.writeBool(eof);
            if (data != null) {
                out.writePayload(data); // the reply owns it now
                data = null;
            } else {
                out.writeInt(0);
            }
            return out.finish();
        } catch (VfsException | Nfs3Exception e) {
            if (data != null) {
                data.release();
            }
            XdrEncoder out = r.fail(e);
            Nfs3Xdr.postOpAttr(out, Nfs3Request.attributesOrNull(t));
            return out.finish();
        }
    }

    private static IoMemory read(Target t, Caller c, long offset, int count, Nfs3Request r) throws VfsException {
        IoMemory mapped = t.fs().map(c, t.handle(), offset, count);
        return mapped != null ? mapped : t.fs().read(c, t.handle(), offset, count, r.memory());
    }

    static boolean owns(Target t, Caller c) {
        FileAttributes a = Nfs3Request.attributesOrNull(t);
        return a != null && a.uid() == c.uid();
    }
}
