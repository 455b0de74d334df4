package io.rdmagate.nfs.v3;

import io.rdmagate.nfs.NfsExports.Target;
import io.rdmagate.oncrpc.xdr.XdrDecoder;
import io.rdmagate.oncrpc.xdr.XdrEncoder;
import io.rdmagate.oncrpc.xdr.XdrException;
import io.rdmagate.oncrpc.xdr.XdrMessage;
import io.rdmagate.vfs.Caller;
import io.rdmagate.vfs.VfsException;

/**
 * RFC 1813 §3.3.16 READDIR: args nfs_fh3, cookie3, cookieverf3, count3; resok post_op_attr,
 * cookieverf3, dirlist3 (entry3 list: fileid, filename3, cookie3; then eof); resfail post_op_attr.
 *
 * <p>count bounds the whole READDIR3resok (capped at rtmax): entries are added while they fit and
 * eof is true only when the last entry of the directory was sent. When not even one entry fits the
 * answer is NFS3ERR_TOOSMALL.
 */
public final class Nfs3Readdir extends Nfs3Procedure {
    /** status, post_op_attr with fattr3, cookieverf3, the list's end marker and eof. */
    static final int FIXED = 4 + 4 + 84 + 8 + 4 + 4;

    public Nfs3Readdir() {
        super(Nfs3.READDIR, "READDIR", false);
    }

    @Override
    public XdrMessage run(Nfs3Request r) throws XdrException {
        XdrDecoder in = r.in();
        byte[] fh = Nfs3Xdr.readFh(in);
        long cookie = in.readHyper();
        long verifier = in.readHyper();
        long count = Math.min(in.readUnsignedInt(), r.maxIoSize());
        Target dir = null;
        try {
            dir = r.resolve(fh);
            Caller c = r.reader(dir);
            Nfs3Listing.Page page = Nfs3Listing.list(dir, c, cookie, verifier, (int) (count / 24), false);
            long used = FIXED;
            int fit = 0;
            for (Nfs3Listing.Item i : page.items()) {
                long size = 4 + 8 + 4 + i.paddedNameLength() + 8;
                if (used + size > count) {
                    break;
                }
                used += size;
                fit++;
            }
            if (fit == 0 && !page.items().isEmpty()) {
                throw new Nfs3Exception(Nfs3Status.NFS3ERR_TOOSMALL, "count " + count + " holds no entry");
            }
            XdrEncoder out = r.ok();
            Nfs3Xdr.postOpAttr(out, Nfs3Request.attributesOrNull(dir));
            Nfs3Xdr.verifier(out, page.verifier());
            for (int k = 0; k < fit; k++) {
                Nfs3Listing.Item i = page.items().get(k);
                out.writeBool(true);
                out.writeHyper(i.fileId());
                out.writeOpaque(i.utf8());
                out.writeHyper(i.cookie());
            }
            out.writeBool(false);
            out.writeBool(fit == page.items().size() && page.eof());
            return out.finish();
        } catch (VfsException | Nfs3Exception e) {
            XdrEncoder out = r.fail(e);
            Nfs3Xdr.postOpAttr(out, Nfs3Request.attributesOrNull(dir));
            return out.finish();
        }
    }
}
