package io.rdmagate.nfs.v4.op;

import static io.rdmagate.nfs.v4.Nfs4.*;

import io.rdmagate.nfs.v4.Compound;
import io.rdmagate.nfs.v4.Nfs4Op;

/** RFC 8881 §18.21 PUTROOTFH: the root of the pseudo-filesystem becomes the current filehandle. */
public final class OpPutrootfh extends Nfs4Op {
    public OpPutrootfh() {
        super(OP_PUTROOTFH, "PUTROOTFH");
    }

    @Override
    public void run(Compound c) {
        c.current(c.root());
    }
}
