package io.rdmagate.nfs.v4.op;

import static io.rdmagate.nfs.v4.Nfs4.*;

import io.rdmagate.nfs.v4.Compound;
import io.rdmagate.nfs.v4.Nfs4Exception;
import io.rdmagate.nfs.v4.Nfs4Op;
import io.rdmagate.oncrpc.xdr.XdrException;

/**
 * RFC 8881 §18.45 SECINFO_NO_NAME: args secinfo_style4 (current filehandle or its parent); resok the
 * flavors. The current filehandle is consumed (§18.45.3).
 */
public final class OpSecinfoNoName extends Nfs4Op {
    public OpSecinfoNoName() {
        super(OP_SECINFO_NO_NAME, "SECINFO_NO_NAME");
    }

    @Override
    public void run(Compound c) throws Nfs4Exception, XdrException {
        int style = c.in().readInt();
        if (style != 0 && style != 1) {
            throw new Nfs4Exception(NFS4ERR_INVAL, "secinfo style " + style);
        }
        Secinfos.write(c, c.current() instanceof io.rdmagate.nfs.v4.Fh4.File f ? f.target().export() : null);
        c.current(null);
    }
}
