package io.rdmagate.nfs.v4.op;

import static io.rdmagate.nfs.v4.Nfs4.*;

import io.rdmagate.nfs.v4.Compound;
import io.rdmagate.nfs.v4.Nfs4Exception;
import io.rdmagate.nfs.v4.Nfs4Op;
import io.rdmagate.oncrpc.xdr.XdrException;

/**
 * RFC 7530 §16.34 SETCLIENTID_CONFIRM (NFSv4.0): args clientid, setclientid_confirm verifier; no
 * resok. Confirms the record SETCLIENTID made (dropping the state of the record it replaces) or its
 * new callback; see {@link io.rdmagate.nfs.v4.state.Nfs4State#confirmClientId}.
 */
public final class OpSetClientIdConfirm extends Nfs4Op {
    public OpSetClientIdConfirm() {
        super(OP_SETCLIENTID_CONFIRM, "SETCLIENTID_CONFIRM");
    }

    @Override
    public void run(Compound c) throws Nfs4Exception, XdrException {
        long clientId = c.in().readHyper();
        byte[] confirm = c.in().readFixedOpaque(NFS4_VERIFIER_SIZE);
        c.server().state().confirmClientId(clientId, confirm, OpExchangeId.principal(c), c.server().now());
    }
}
