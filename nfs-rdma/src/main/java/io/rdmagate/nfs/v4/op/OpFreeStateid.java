package io.rdmagate.nfs.v4.op;

import static io.rdmagate.nfs.v4.Nfs4.*;

import io.rdmagate.nfs.v4.Compound;
import io.rdmagate.nfs.v4.Nfs4Exception;
import io.rdmagate.nfs.v4.Nfs4Op;
import io.rdmagate.nfs.v4.state.Delegations;
import io.rdmagate.nfs.v4.state.LockState;
import io.rdmagate.nfs.v4.state.Stateid;
import io.rdmagate.oncrpc.xdr.XdrException;

/**
 * RFC 8881 §18.38 FREE_STATEID: args stateid; no resok. A lock stateid whose owner holds no lock any
 * more is freed; one that still holds locks, and an open stateid (CLOSE ends those), are
 * NFS4ERR_LOCKS_HELD, as knfsd answers. A revoked delegation's stateid is freed, and SEQUENCE stops
 * reporting SEQ4_STATUS_RECALLABLE_STATE_REVOKED once none is left; a held one is NFS4ERR_LOCKS_HELD.
 */
public final class OpFreeStateid extends Nfs4Op {
    public OpFreeStateid() {
        super(OP_FREE_STATEID, "FREE_STATEID");
    }

    @Override
    public void run(Compound c) throws Nfs4Exception, XdrException {
        Stateid s = c.resolveStateid(Stateid.read(c.in()));
        if (Delegations.isDelegation(s)) {
            c.server().state().delegations().free(s, c.client());
            return;
        }
        LockState l;
        try {
            l = c.server().state().lock(s);
        } catch (Nfs4Exception notLock) {
            c.server().state().open(s);
            throw new Nfs4Exception(NFS4ERR_LOCKS_HELD, "an open stateid is ended by CLOSE");
        }
        if (l.file().fs().locks().locks(l.file().handle().fileId()).stream().anyMatch(h -> h.owner().equals(l.owner()))) {
            throw new Nfs4Exception(NFS4ERR_LOCKS_HELD, "the lock-owner still holds locks");
        }
        c.server().state().free(l);
    }
}
