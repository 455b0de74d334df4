package io.rdmagate.nfs.v4.op;

import static io.rdmagate.nfs.v4.Nfs4.*;

import io.rdmagate.nfs.v4.Compound;
import io.rdmagate.nfs.v4.Nfs4Exception;
import io.rdmagate.nfs.v4.Nfs4Op;
import io.rdmagate.nfs.v4.state.OpenState;
import io.rdmagate.nfs.v4.state.StateOwner;
import io.rdmagate.nfs.v4.state.Stateid;
import io.rdmagate.oncrpc.xdr.XdrException;

/**
 * RFC 8881 §18.2 CLOSE: args seqid, open stateid of the current filehandle; resok a stateid, which
 * is the invalid special stateid (§8.2.3: seqid all ones, other zeros), as §18.2.4 recommends. Locks
 * still held by lock-owners of this open are released with it. NFSv4.0: ordered by the open-owner's
 * seqid; a retransmission after the open is gone still gets the reply the CLOSE had.
 */
public final class OpClose extends Nfs4Op {
    private static final Stateid INVALID = new Stateid(-1, new byte[12]);

    public OpClose() {
        super(OP_CLOSE, "CLOSE");
    }

    @Override
    public void run(Compound c) throws Nfs4Exception, XdrException {
        int seqid = c.in().readInt(); // NFSv4.0's open-owner orders its requests by it; NFSv4.1 by the slot
        Stateid s = c.resolveStateid(Stateid.read(c.in()));
        if (s.isSpecial()) {
            throw new Nfs4Exception(NFS4ERR_BAD_STATEID, "CLOSE of a special stateid");
        }
        io.rdmagate.nfs.NfsExports.Target t = c.currentFile(NFS4ERR_ISDIR);
        OpenState o = c.minor() == MINOR_VERSION_0 ? open40(c, s, t, seqid) : OpRead.checkOwner(c, s, t);
        if (o == null) {
            return; // a retransmission, answered from the owner's last reply
        }
        for (io.rdmagate.nfs.v4.state.LockState l : c.server().state().locksOf(o)) {
            t.fs().locks().releaseAll(owner -> owner.equals(l.owner())); // locks die with the open they came from
        }
        c.server().state().close(o);
        INVALID.write(c.out());
        c.currentStateid(null);
    }

    /**
     * NFSv4.0: the open, ordered by its owner's seqid; or, for a stateid the owner closed last, a
     * retransmission of that CLOSE (answered from the owner's reply, null) or NFS4ERR_BAD_STATEID.
     */
    private static OpenState open40(Compound c, Stateid s, io.rdmagate.nfs.NfsExports.Target t, int seqid)
            throws Nfs4Exception {
        try {
            return Seqids40.open(c, s, t, seqid);
        } catch (Nfs4Exception e) {
            StateOwner closer = e.status() == NFS4ERR_BAD_STATEID ? c.server().state().closedBy(s) : null;
            if (closer != null && !c.sequence40(closer, seqid)) {
                return null;
            }
            throw e;
        }
    }
}
