package io.rdmagate.nfs.v4.op;

import static io.rdmagate.nfs.v4.Nfs4.*;

import io.rdmagate.nfs.v4.Compound;
import io.rdmagate.nfs.v4.Nfs4Exception;
import io.rdmagate.nfs.v4.Nfs4Op;
import io.rdmagate.oncrpc.xdr.XdrException;

/** RFC 8881 §18.50 DESTROY_CLIENTID: args clientid; no resok. NFS4ERR_CLIENTID_BUSY while it has sessions. */
public final class OpDestroyClientid extends Nfs4Op {
    public OpDestroyClientid() {
        super(OP_DESTROY_CLIENTID, "DESTROY_CLIENTID");
    }

    @Override
    public boolean sessionless() {
        return true;
    }

    @Override
    public void run(Compound c) throws Nfs4Exception, XdrException {
        c.server().state().destroyClientId(c.in().readHyper());
    }
}
