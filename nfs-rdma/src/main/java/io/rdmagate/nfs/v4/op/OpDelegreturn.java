package io.rdmagate.nfs.v4.op;

import static io.rdmagate.nfs.v4.Nfs4.*;

import io.rdmagate.nfs.v4.Compound;
import io.rdmagate.nfs.v4.Nfs4Exception;
import io.rdmagate.nfs.v4.Nfs4Op;
import io.rdmagate.nfs.v4.state.Stateid;
import io.rdmagate.oncrpc.xdr.XdrException;

/**
 * RFC 8881 §18.6 DELEGRETURN: args the delegation's stateid, the current filehandle its file; no
 * resok. The delegation ends, and an operation waiting for its recall goes on. A revoked one is
 * NFS4ERR_DELEG_REVOKED (the client frees it with FREE_STATEID); one of another client or file,
 * NFS4ERR_BAD_STATEID.
 */
public final class OpDelegreturn extends Nfs4Op {
    public OpDelegreturn() {
        super(OP_DELEGRETURN, "DELEGRETURN");
    }

    @Override
    public void run(Compound c) throws Nfs4Exception, XdrException {
        Stateid s = c.resolveStateid(Stateid.read(c.in()));
        if (s.isSpecial()) {
            throw new Nfs4Exception(NFS4ERR_BAD_STATEID, "DELEGRETURN of a special stateid");
        }
        c.server().state().delegations().giveBack(s, c.client(), c.currentFile(NFS4ERR_BAD_STATEID));
    }
}
