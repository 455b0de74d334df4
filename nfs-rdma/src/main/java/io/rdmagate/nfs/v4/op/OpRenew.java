package io.rdmagate.nfs.v4.op;

import static io.rdmagate.nfs.v4.Nfs4.*;

import io.rdmagate.nfs.v4.Compound;
import io.rdmagate.nfs.v4.Nfs4Exception;
import io.rdmagate.nfs.v4.Nfs4Op;
import io.rdmagate.oncrpc.xdr.XdrException;

/**
 * RFC 7530 §16.29 RENEW (NFSv4.0): args clientid; no resok. Renews the confirmed client's lease;
 * NFS4ERR_STALE_CLIENTID when the server does not know it (restarted, or the lease lapsed and its
 * state went).
 */
public final class OpRenew extends Nfs4Op {
    public OpRenew() {
        super(OP_RENEW, "RENEW");
    }

    @Override
    public void run(Compound c) throws Nfs4Exception, XdrException {
        c.client(c.in().readHyper());
    }
}
