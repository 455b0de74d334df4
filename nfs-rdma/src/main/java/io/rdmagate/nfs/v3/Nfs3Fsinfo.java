package io.rdmagate.nfs.v3;

import io.rdmagate.nfs.NfsExports.Target;
import io.rdmagate.oncrpc.xdr.XdrEncoder;
import io.rdmagate.oncrpc.xdr.XdrException;
import io.rdmagate.oncrpc.xdr.XdrMessage;
import io.rdmagate.vfs.FsStat;
import io.rdmagate.vfs.VfsException;

/**
 * RFC 1813 §3.3.19 FSINFO: args nfs_fh3; resok post_op_attr, rtmax, rtpref, rtmult, wtmax, wtpref,
 * wtmult, dtpref, maxfilesize, time_delta, properties; resfail post_op_attr.
 *
 * <p>rtmax = rtpref = wtmax = wtpref = the configured maxIoSize (1 MiB by default), multiples of
 * 4 KiB, dtpref 64 KiB (at most maxIoSize), time_delta 1 ns (the vfs keeps nanoseconds),
 * properties LINK | SYMLINK | HOMOGENEOUS | CANSETTIME.
 */
public final class Nfs3Fsinfo extends Nfs3Procedure {
    static final int MULTIPLE = 4096;
    static final int DTPREF = 64 * 1024;

    public Nfs3Fsinfo() {
        super(Nfs3.FSINFO, "FSINFO", false);
    }

    @Override
    public XdrMessage run(Nfs3Request r) throws XdrException {
        byte[] fh = Nfs3Xdr.readFh(r.in());
        Target t = null;
        try {
            t = r.resolve(fh);
            r.reader(t);
            FsStat s = t.fs().statfs(t.handle());
            int io = r.maxIoSize();
            XdrEncoder out = r.ok();
            Nfs3Xdr.postOpAttr(out, Nfs3Request.attributesOrNull(t));
            out.writeInt(io); // rtmax
            out.writeInt(io); // rtpref
            out.writeInt(MULTIPLE); // rtmult
            out.writeInt(io); // wtmax
            out.writeInt(io); // wtpref
            out.writeInt(MULTIPLE); // wtmult
            out.writeInt(Math.min(DTPREF, io)); // dtpref
            out.writeHyper(s.maxFileSize());
            Nfs3Xdr.time(out, 1); // time_delta: 0 s 1 ns
            out.writeInt(Nfs3.FSF3_LINK | Nfs3.FSF3_SYMLINK | Nfs3.FSF3_HOMOGENEOUS | Nfs3.FSF3_CANSETTIME);
            return out.finish();
        } catch (VfsException | Nfs3Exception e) {
            XdrEncoder out = r.fail(e);
            Nfs3Xdr.postOpAttr(out, Nfs3Request.attributesOrNull(t));
            return out.finish();
        }
    }
}
