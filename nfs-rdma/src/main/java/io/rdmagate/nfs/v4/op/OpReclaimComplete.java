package io.rdmagate.nfs.v4.op;

import static io.rdmagate.nfs.v4.Nfs4.*;

import io.rdmagate.nfs.v4.Compound;
import io.rdmagate.nfs.v4.Nfs4Exception;
import io.rdmagate.nfs.v4.Nfs4Op;
import io.rdmagate.oncrpc.xdr.XdrException;

/**
 * RFC 8881 §18.51 RECLAIM_COMPLETE: args rca_one_fs; no resok. For the whole client it may come
 * once (NFS4ERR_COMPLETE_ALREADY after); for one filesystem it needs a current filehandle. No grace
 * period is kept yet, so there is nothing to end.
 */
public final class OpReclaimComplete extends Nfs4Op {
    public OpReclaimComplete() {
        super(OP_RECLAIM_COMPLETE, "RECLAIM_COMPLETE");
    }

    @Override
    public void run(Compound c) throws Nfs4Exception, XdrException {
        boolean oneFs = c.in().readBool();
        if (oneFs) {
            c.current();
            return;
        }
        c.server().state().reclaimComplete(c.client());
    }
}
