package io.rdmagate.nfs.v4.op;

import static io.rdmagate.nfs.v4.Nfs4.*;

import io.rdmagate.nfs.NfsExports.Target;
import io.rdmagate.nfs.v4.Compound;
import io.rdmagate.nfs.v4.Nfs4Exception;
import io.rdmagate.nfs.v4.state.LockState;
import io.rdmagate.nfs.v4.state.OpenState;
import io.rdmagate.nfs.v4.state.StateOwner;
import io.rdmagate.nfs.v4.state.Stateid;

/**
 * How an NFSv4.0 operation on a stateid takes its owner's seqid (RFC 7530 §9.1.7), in knfsd's
 * order: the state is found first (a bad or stale stateid leaves the seqid as it is), then the
 * owner's seqid is taken, then the stateid's own seqid is checked (an old one moves the owner's
 * seqid on like any other error). Each returns null for a retransmission, which
 * {@link Compound#sequence40} has answered from the owner's last reply.
 */
final class Seqids40 {
    private Seqids40() {
    }

    /** The open {@code s} names, of file {@code t}, ordered by its open-owner's {@code seqid}. */
    static OpenState open(Compound c, Stateid s, Target t, int seqid) throws Nfs4Exception {
        var state = c.server().state();
        OpenState o = state.openFor(new Stateid(0, s.other()));
        OpRead.sameFile(s, o, t);
        c.named(o.client());
        StateOwner so = o.owner40();
        if (so == null) {
            throw new Nfs4Exception(NFS4ERR_BAD_STATEID, "stateid " + s + " is not of an NFSv4.0 open-owner");
        }
        if (!c.sequence40(so, seqid)) {
            return null;
        }
        if (!so.confirmed()) {
            throw new Nfs4Exception(NFS4ERR_BAD_STATEID, "open " + s + " is not confirmed yet");
        }
        state.openFor(s);
        return o;
    }

    /** The lock state {@code s} names, of file {@code t}, ordered by its lock-owner's {@code seqid}. */
    static LockState lock(Compound c, Stateid s, Target t, int seqid) throws Nfs4Exception {
        var state = c.server().state();
        LockState l = state.lock(new Stateid(0, s.other()));
        OpRead.sameFile(s, l.open(), t);
        c.named(l.open().client());
        if (l.owner40() == null) {
            throw new Nfs4Exception(NFS4ERR_BAD_STATEID, "stateid " + s + " is not of an NFSv4.0 lock-owner");
        }
        if (!c.sequence40(l.owner40(), seqid)) {
            return null;
        }
        state.lock(s);
        return l;
    }
}
