package io.rdmagate.nfs.v3;

import io.rdmagate.nfs.NfsExports;
import io.rdmagate.nfs.NfsExports.Target;
import io.rdmagate.oncrpc.xdr.XdrDecoder;
import io.rdmagate.oncrpc.xdr.XdrEncoder;
import io.rdmagate.oncrpc.xdr.XdrException;
import io.rdmagate.oncrpc.xdr.XdrMessage;
import io.rdmagate.vfs.Caller;
import io.rdmagate.vfs.VfsException;

/**
 * RFC 1813 §3.3.17 READDIRPLUS: args nfs_fh3, cookie3, cookieverf3, count3 dircount, count3
 * maxcount; resok post_op_attr, cookieverf3, dirlistplus3 (entryplus3: fileid, filename3, cookie3,
 * post_op_attr, post_op_fh3; then eof); resfail post_op_attr.
 *
 * <p>dircount bounds the directory information (fileid, name, cookie: 8 + 4 + name + 8 bytes per
 * entry) and maxcount, capped at rtmax, the whole resok; entries are added while both hold. When
 * not even one entry fits the answer is NFS3ERR_TOOSMALL.
 */
public final class Nfs3Readdirplus extends Nfs3Procedure {
    /** An entry's size beyond its padded name: value-follows, fileid, name length, cookie, attrs, handle. */
    private static final int ENTRY = 4 + 8 + 4 + 8 + (4 + 84) + (4 + 4 + NfsExports.HANDLE_LENGTH);

    public Nfs3Readdirplus() {
        super(Nfs3.READDIRPLUS, "READDIRPLUS", false);
    }

    @Override
    public XdrMessage run(Nfs3Request r) throws XdrException {
        XdrDecoder in = r.in();
        byte[] fh = Nfs3Xdr.readFh(in);
        long cookie = in.readHyper();
        long verifier = in.readHyper();
        long dircount = in.readUnsignedInt();
        long maxcount = Math.min(in.readUnsignedInt(), r.maxIoSize());
        Target dir = null;
        try {
            dir = r.resolve(fh);
            Caller c = r.reader(dir);
            int estimate = (int) Math.min(maxcount / (ENTRY + 8), Math.max(1, dircount / 24));
            Nfs3Listing.Page page = Nfs3Listing.list(dir, c, cookie, verifier, estimate, true);
            long used = Nfs3Readdir.FIXED;
            long dirUsed = 0;
            int fit = 0;
            for (Nfs3Listing.Item i : page.items()) {
                long size = ENTRY + i.paddedNameLength();
                long dirSize = 8 + 4 + i.paddedNameLength() + 8;
                if (used + size > maxcount || dirUsed + dirSize > dircount) {
                    break;
                }
                used += size;
                dirUsed += dirSize;
                fit++;
            }
            if (fit == 0 && !page.items().isEmpty()) {
                throw new Nfs3Exception(Nfs3Status.NFS3ERR_TOOSMALL,
                        "dircount " + dircount + ", maxcount " + maxcount + " hold no entry");
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
                Nfs3Xdr.postOpAttr(out, i.node() == null ? null : i.node().attributes());
                Nfs3Xdr.postOpFh(out, i.node() == null ? null : NfsExports.wire(dir.export(), i.node().handle()));
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
