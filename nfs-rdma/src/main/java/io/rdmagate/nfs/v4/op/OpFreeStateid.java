package io.rdmagate.nfs.v4.op;

import static io.rdmagate.nfs.v4.Nfs4.*;

import io.rdmagate.nfs.v4.Compound;
import io.rdmagate.nfs.v4.Nfs4Exception;
import io.rdmagate.nfs.v4.Nfs4Op;
import io.rdmagate.nfs.v4.state.Stateid;
import io.rdmagate.oncrpc.xdr.XdrException;

/**
 * RFC 8881 §18.38 FREE_STATEID: args stateid; no resok. The only stateids this server hands out are
 * open stateids, which CLOSE ends, not FREE_STATEID (NFS4ERR_LOCKS_HELD, as knfsd answers).
 */
public final class OpFreeStateid extends Nfs4Op {
    public OpFreeStateid() {
        super(OP_FREE_STATEID, "FREE_STATEID");
    }

    @Override
    public void run(Compound c) throws Nfs4Exception, XdrException {
        Stateid s = c.resolveStateid(Stateid.read(c.in()));
        c.server().state().open(s);
        throw new Nfs4Exception(NFS4ERR_LOCKS_HELD, "an open stateid is ended by CLOSE");
    }
}
