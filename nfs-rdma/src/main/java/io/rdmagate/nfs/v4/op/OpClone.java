package io.rdmagate.nfs.v4.op;

import static io.rdmagate.nfs.v4.Nfs4.*;

import io.rdmagate.nfs.v4.Compound;
import io.rdmagate.nfs.v4.Nfs4Exception;
import io.rdmagate.nfs.v4.Nfs4Op;
import io.rdmagate.nfs.v4.state.Stateid;
import io.rdmagate.oncrpc.xdr.XdrDecoder;
import io.rdmagate.oncrpc.xdr.XdrException;
import io.rdmagate.vfs.VfsException;

/**
 * RFC 7862 §15.13 CLONE: args source and destination stateids, source and destination offsets,
 * count (0: to the end of the source); no resok. The saved filehandle is the source, the current one
 * the destination; the backend makes the destination's range share the source's storage
 * ({@code FICLONERANGE}), atomically and without copying. Where the backing filesystem cannot
 * (ext4), NFS4ERR_NOTSUPP, and a client falls back to COPY. Misaligned ranges (not on
 * {@code clone_blksize} and not ending at the end of the source) are NFS4ERR_INVAL.
 */
public final class OpClone extends Nfs4Op {
    public OpClone() {
        super(OP_CLONE, "CLONE");
    }

    @Override
    public void run(Compound c) throws Nfs4Exception, XdrException, VfsException {
        XdrDecoder in = c.in();
        Stateid srcStateid = c.resolveStateid(Stateid.read(in));
        Stateid dstStateid = c.resolveStateid(Stateid.read(in));
        long srcOffset = in.readHyper();
        long dstOffset = in.readHyper();
        long count = in.readHyper();
        DataAccess.Pair p = DataAccess.sourceAndDestination(c, srcStateid, dstStateid);
        long size = p.src().fs().getattr(p.src().handle()).size();
        if (srcOffset < 0 || srcOffset > size || count < 0 || (count != 0 && srcOffset + count > size)) {
            throw new Nfs4Exception(NFS4ERR_INVAL, "clone of " + Long.toUnsignedString(count) + " bytes from "
                    + Long.toUnsignedString(srcOffset) + " of a source of " + size);
        }
        long length = count == 0 ? size - srcOffset : count;
        if (dstOffset < 0 || dstOffset + length < 0) {
            throw new Nfs4Exception(NFS4ERR_FBIG, "clone beyond 2^63-1");
        }
        DataAccess.checkOverlap(p, srcOffset, dstOffset, length);
        DataAccess.recalled(c, p, () -> {
            p.dst().fs().clone(p.caller(), p.src().handle(), srcOffset, p.dst().handle(), dstOffset, count);
            return length;
        });
        c.server().clonedBytes().add(length);
    }
}
