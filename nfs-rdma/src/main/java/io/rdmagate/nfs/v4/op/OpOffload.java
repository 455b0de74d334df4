package io.rdmagate.nfs.v4.op;

import static io.rdmagate.nfs.v4.Nfs4.*;

import io.rdmagate.nfs.v4.Compound;
import io.rdmagate.nfs.v4.Nfs4Exception;
import io.rdmagate.nfs.v4.Nfs4Op;
import io.rdmagate.nfs.v4.state.Stateid;
import io.rdmagate.oncrpc.xdr.XdrException;

/**
 * RFC 7862 §15.8 OFFLOAD_STATUS and §15.7 OFFLOAD_CANCEL: args the stateid of an asynchronous copy.
 * This server answers every COPY synchronously and hands out no such stateid, so any stateid names no
 * copy: NFS4ERR_BAD_STATEID, as for a copy that finished and was forgotten.
 */
public final class OpOffload extends Nfs4Op {
    private OpOffload(int number, String name) {
        super(number, name);
    }

    public static OpOffload status() {
        return new OpOffload(OP_OFFLOAD_STATUS, "OFFLOAD_STATUS");
    }

    public static OpOffload cancel() {
        return new OpOffload(OP_OFFLOAD_CANCEL, "OFFLOAD_CANCEL");
    }

    @Override
    public void run(Compound c) throws Nfs4Exception, XdrException {
        Stateid s = Stateid.read(c.in());
        c.current();
        throw new Nfs4Exception(NFS4ERR_BAD_STATEID, "no asynchronous copy has stateid " + s);
    }
}
