package io.rdmagate.nfs.v4.op;

import static io.rdmagate.nfs.v4.Nfs4.*;

import io.rdmagate.nfs.v4.Compound;
import io.rdmagate.nfs.v4.Nfs4Exception;
import io.rdmagate.nfs.v4.Nfs4Op;
import io.rdmagate.oncrpc.xdr.XdrException;

/** RFC 8881 §18.37 DESTROY_SESSION: args sessionid; no resok. Alone, or after SEQUENCE of any session. */
public final class OpDestroySession extends Nfs4Op {
    public OpDestroySession() {
        super(OP_DESTROY_SESSION, "DESTROY_SESSION");
    }

    @Override
    public boolean sessionless() {
        return true;
    }

    @Override
    public void run(Compound c) throws Nfs4Exception, XdrException {
        c.server().state().destroySession(c.in().readFixedOpaque(NFS4_SESSIONID_SIZE));
    }
}
