package io.rdmagate.nfs.v4.op;

import static io.rdmagate.nfs.v4.Nfs4.*;

import io.rdmagate.nfs.v4.Compound;
import io.rdmagate.nfs.v4.Nfs4Op;

/** RFC 8881 §18.20 PUTPUBFH: the public filehandle, which on this server is the root (§18.20.3 allows it). */
public final class OpPutpubfh extends Nfs4Op {
    public OpPutpubfh() {
        super(OP_PUTPUBFH, "PUTPUBFH");
    }

    @Override
    public void run(Compound c) {
        c.current(c.root());
    }
}
