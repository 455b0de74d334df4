package io.rdmagate.nfs.v4.op;

import static io.rdmagate.nfs.v4.Nfs4.*;

import io.rdmagate.nfs.v4.Compound;
import io.rdmagate.nfs.v4.Nfs4Exception;
import io.rdmagate.nfs.v4.Nfs4Op;

/** RFC 8881 §18.28 SAVEFH: the current filehandle becomes the saved one. */
public final class OpSavefh extends Nfs4Op {
    public OpSavefh() {
        super(OP_SAVEFH, "SAVEFH");
    }

    @Override
    public void run(Compound c) throws Nfs4Exception {
        c.save();
    }
}
