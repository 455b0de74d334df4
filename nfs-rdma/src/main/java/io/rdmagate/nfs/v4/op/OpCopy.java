package io.rdmagate.nfs.v4.op;

import static io.rdmagate.nfs.v4.Nfs4.*;

import io.rdmagate.nfs.v4.Compound;
import io.rdmagate.nfs.v4.Nfs4Exception;
import io.rdmagate.nfs.v4.Nfs4Op;
import io.rdmagate.nfs.v4.state.Stateid;
import io.rdmagate.oncrpc.xdr.XdrDecoder;
import io.rdmagate.oncrpc.xdr.XdrEncoder;
import io.rdmagate.oncrpc.xdr.XdrException;
import io.rdmagate.vfs.VfsException;

/**
 * RFC 7862 §15.2 COPY, intra-server: args source and destination stateids, source and destination
 * offsets, count (0: to the end of the source), consecutive, synchronous, source servers; resok the
 * write_response4 (no callback id, bytes copied, UNSTABLE4, the write verifier) and the requirements
 * met (consecutive, synchronous).
 *
 * <p>Where the bytes travel: nowhere near the wire or the gateway's memory. The saved filehandle is
 * the source, the current one the destination, and the backend copies between them
 * ({@code copy_file_range}); the bytes are counted in rdmagate_nfs4_server_side_copy_bytes_total.
 * Every copy is done when it is answered, also when the client offered to wait for CB_OFFLOAD (a
 * server may answer synchronously); one COPY copies at most {@code maxCopy} bytes and says so in
 * its count, and the client asks for the rest. A copy from another server (source servers given)
 * is NFS4ERR_NOTSUPP. Others' caching is recalled first: write caching of the source, any of the
 * destination.
 */
public final class OpCopy extends Nfs4Op {
    public OpCopy() {
        super(OP_COPY, "COPY");
    }

    @Override
    public void run(Compound c) throws Nfs4Exception, XdrException, VfsException {
        XdrDecoder in = c.in();
        Stateid srcStateid = c.resolveStateid(Stateid.read(in));
        Stateid dstStateid = c.resolveStateid(Stateid.read(in));
        long srcOffset = in.readHyper();
        long dstOffset = in.readHyper();
        long count = in.readHyper();
        in.readBool(); // ca_consecutive: a copy here always is
        in.readBool(); // ca_synchronous: a copy here always is
        if (in.readInt() != 0) {
            throw new Nfs4Exception(NFS4ERR_NOTSUPP, "COPY from another server");
        }
        DataAccess.Pair p = DataAccess.sourceAndDestination(c, srcStateid, dstStateid);
        long size = p.src().fs().getattr(p.src().handle()).size();
        long length = count == 0 ? size - srcOffset : count;
        if (srcOffset < 0 || srcOffset > size || length < 0 || srcOffset + length > size) {
            throw new Nfs4Exception(NFS4ERR_INVAL, "copy of " + Long.toUnsignedString(count) + " bytes from "
                    + Long.toUnsignedString(srcOffset) + " of a source of " + size);
        }
        if (dstOffset < 0 || dstOffset + length < 0) {
            throw new Nfs4Exception(NFS4ERR_FBIG, "copy beyond 2^63-1");
        }
        DataAccess.checkOverlap(p, srcOffset, dstOffset, length);
        long chunk = Math.min(length, c.server().options().maxCopy());
        long copied = chunk == 0 ? 0 : DataAccess.recalled(c, p,
                () -> p.dst().fs().copy(p.caller(), p.src().handle(), srcOffset, p.dst().handle(), dstOffset, chunk));
        c.server().copiedBytes().add(copied);
        XdrEncoder out = c.out();
        out.writeInt(0); // wr_callback_id<1>: none, the copy is done
        out.writeHyper(copied);
        out.writeInt(0); // UNSTABLE4: the client COMMITs as after WRITE
        out.writeHyper(p.dst().fs().writeVerifier());
        out.writeBool(true); // cr_consecutive
        out.writeBool(true); // cr_synchronous
    }
}
