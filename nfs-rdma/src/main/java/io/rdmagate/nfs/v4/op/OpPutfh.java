package io.rdmagate.nfs.v4.op;

import static io.rdmagate.nfs.v4.Nfs4.*;

import io.rdmagate.nfs.v4.Compound;
import io.rdmagate.nfs.v4.Nfs4Op;
import io.rdmagate.oncrpc.xdr.XdrException;
import io.rdmagate.vfs.VfsException;

/** RFC 8881 §18.19 PUTFH: args nfs_fh4; NFS4ERR_BADHANDLE for a handle this server never made, NFS4ERR_STALE for a gone file. */
public final class OpPutfh extends Nfs4Op {
    public OpPutfh() {
        super(OP_PUTFH, "PUTFH");
    }

    @Override
    public void run(Compound c) throws XdrException, VfsException {
        c.current(c.resolve(c.in().readOpaque(NFS4_FHSIZE)));
    }
}
