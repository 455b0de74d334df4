package io.rdmagate.nfs.v3;

import io.rdmagate.nfs.NfsExports.Target;
import io.rdmagate.nfs.v3.Nfs3Xdr.WccAttr;
import io.rdmagate.oncrpc.xdr.XdrDecoder;
import io.rdmagate.oncrpc.xdr.XdrEncoder;
import io.rdmagate.oncrpc.xdr.XdrException;
import io.rdmagate.oncrpc.xdr.XdrMessage;
import io.rdmagate.vfs.VfsException;

/**
 * RFC 1813 §3.3.11 MKNOD: args diropargs3, mknoddata3 (a union on ftype3: devicedata3 for NF3CHR
 * and NF3BLK, sattr3 for NF3SOCK and NF3FIFO, nothing otherwise); resok post_op_fh3, post_op_attr,
 * wcc_data dir; resfail wcc_data dir.
 *
 * <p>The vfs has no special files, so a device, socket or fifo is NFS3ERR_NOTSUPP, and a regular
 * file, directory or symlink is NFS3ERR_BADTYPE (§3.3.11: those have their own procedures). An
 * ftype3 outside 1..7 is GARBAGE_ARGS. The arguments are decoded in full and the directory
 * handle checked first, so a bad handle is still NFS3ERR_BADHANDLE or NFS3ERR_STALE.
 */
public final class Nfs3Mknod extends Nfs3Procedure {
    public Nfs3Mknod() {
        super(Nfs3.MKNOD, "MKNOD", true);
    }

    @Override
    public XdrMessage run(Nfs3Request r) throws XdrException {
        XdrDecoder in = r.in();
        byte[] fh = Nfs3Xdr.readFh(in);
        Nfs3Xdr.readName(in);
        int type = in.readEnum();
        switch (type) {
            case Nfs3.NF3CHR, Nfs3.NF3BLK -> {
                Nfs3Xdr.readSattr(in);
                in.readInt(); // specdata1
                in.readInt(); // specdata2
            }
            case Nfs3.NF3SOCK, Nfs3.NF3FIFO -> Nfs3Xdr.readSattr(in);
            case Nfs3.NF3REG, Nfs3.NF3DIR, Nfs3.NF3LNK -> {
            }
            default -> throw new XdrException("ftype3 " + type);
        }
        Target dir = null;
        WccAttr before = null;
        try {
            dir = r.resolve(fh);
            r.writer(dir);
            before = WccAttr.of(dir.fs().getattr(dir.handle()));
            boolean special = type != Nfs3.NF3REG && type != Nfs3.NF3DIR && type != Nfs3.NF3LNK;
            throw new Nfs3Exception(special ? Nfs3Status.NFS3ERR_NOTSUPP : Nfs3Status.NFS3ERR_BADTYPE,
                    "mknod of type " + type);
        } catch (VfsException | Nfs3Exception e) {
            XdrEncoder out = r.fail(e);
            Nfs3Xdr.wcc(out, before, Nfs3Request.attributesOrNull(dir));
            return out.finish();
        }
    }
}
