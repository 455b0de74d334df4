package io.rdmagate.nfs.v4.op;

import static io.rdmagate.nfs.v4.Nfs4.*;

import io.rdmagate.nfs.v4.Compound;
import io.rdmagate.nfs.v4.Nfs4Exception;
import io.rdmagate.nfs.v4.Nfs4Op;

/** RFC 8881 §18.8 GETFH: resok nfs_fh4 of the current filehandle. */
public final class OpGetfh extends Nfs4Op {
    public OpGetfh() {
        super(OP_GETFH, "GETFH");
    }

    @Override
    public void run(Compound c) throws Nfs4Exception {
        c.out().writeOpaque(c.current().wire());
    }
}
