package io.rdmagate.nfs.v4.op;

import static io.rdmagate.nfs.v4.Nfs4.*;

import io.rdmagate.nfs.v4.Compound;
import io.rdmagate.nfs.v4.Nfs4Exception;
import io.rdmagate.nfs.v4.Nfs4Op;
import io.rdmagate.nfs.v4.state.Nfs4State;
import io.rdmagate.nfs.v4.state.Session;
import io.rdmagate.oncrpc.xdr.XdrDecoder;
import io.rdmagate.oncrpc.xdr.XdrEncoder;
import io.rdmagate.oncrpc.xdr.XdrException;

/**
 * RFC 8881 §18.46 SEQUENCE: args sessionid, sequenceid, slotid, highest slotid, cachethis; resok
 * sessionid, sequenceid, slotid, highest slotid, target highest slotid, status flags.
 *
 * <p>Before the slot is touched, a COMPOUND with more operations than the session allows is
 * NFS4ERR_TOO_MANY_OPS and one larger than its request size NFS4ERR_REQ_TOO_BIG. The slot then
 * decides (§2.10.6.1, {@link Nfs4State#sequence}): a new request renews the lease and runs, a
 * retry is answered from the slot. Every reply that fits the session's cached size is kept,
 * whatever cachethis says (RFC 8881 lets a server keep more than asked). The status flags report
 * the session's back channel down (SEQ4_STATUS_CB_PATH_DOWN) when it was granted and has no live
 * connection or failed its probe.
 */
public final class OpSequence extends Nfs4Op {
    public OpSequence() {
        super(OP_SEQUENCE, "SEQUENCE");
    }

    @Override
    public void run(Compound c) throws Nfs4Exception, XdrException {
        XdrDecoder in = c.in();
        byte[] sessionId = in.readFixedOpaque(NFS4_SESSIONID_SIZE);
        int seqid = in.readInt();
        int slotId = in.readInt();
        in.readInt(); // sa_highest_slotid
        in.readBool(); // sa_cachethis
        Session s = c.server().state().session(sessionId);
        if (c.opCount() > s.maxOperations()) {
            throw new Nfs4Exception(NFS4ERR_TOO_MANY_OPS, c.opCount() + " operations, the session allows "
                    + s.maxOperations());
        }
        if (c.call().args().writerIndex() > s.maxRequest()) {
            throw new Nfs4Exception(NFS4ERR_REQ_TOO_BIG, "request over " + s.maxRequest() + " bytes");
        }
        Nfs4State.SequenceOutcome outcome = c.server().state().sequence(sessionId, seqid, slotId, c.server().now());
        c.sequenced(outcome);
        if (outcome instanceof Nfs4State.Replay) {
            return; // the COMPOUND answers from the slot
        }
        XdrEncoder out = c.out();
        out.writeFixedOpaque(sessionId);
        out.writeInt(seqid);
        out.writeInt(slotId);
        out.writeInt(s.slots().length - 1);
        out.writeInt(s.slots().length - 1);
        // §18.46.3: a granted back channel with no live connection, or one that failed its probe
        // and a revoked delegation not freed yet (§8.2.4): the client tests its stateids and frees it
        out.writeInt((s.back().pathDown() ? SEQ4_STATUS_CB_PATH_DOWN : 0)
                | (s.client().revokedDelegations() ? SEQ4_STATUS_RECALLABLE_STATE_REVOKED : 0));
    }
}
