package io.rdmagate.nfs.v4.op;

import static io.rdmagate.nfs.v4.Nfs4.*;

import io.rdmagate.nfs.v4.Compound;
import io.rdmagate.nfs.v4.Nfs4Exception;
import io.rdmagate.nfs.v4.Nfs4Op;

/** RFC 8881 §18.52 ILLEGAL: the answer to an operation number outside the protocol. */
public final class OpIllegal extends Nfs4Op {
    public OpIllegal() {
        super(OP_ILLEGAL, "ILLEGAL");
    }

    @Override
    public void run(Compound c) throws Nfs4Exception {
        throw new Nfs4Exception(NFS4ERR_OP_ILLEGAL, "operation number outside NFSv4.1");
    }
}
