package io.rdmagate.nfs.v4.op;

import static io.rdmagate.nfs.v4.Nfs4.*;

import io.rdmagate.nfs.v4.Compound;
import io.rdmagate.nfs.v4.Nfs4Exception;
import io.rdmagate.nfs.v4.Nfs4Op;

/** RFC 8881 §18.27 RESTOREFH: the saved filehandle becomes the current one; NFS4ERR_RESTOREFH when none was saved. */
public final class OpRestorefh extends Nfs4Op {
    public OpRestorefh() {
        super(OP_RESTOREFH, "RESTOREFH");
    }

    @Override
    public void run(Compound c) throws Nfs4Exception {
        c.current(c.saved());
    }
}
