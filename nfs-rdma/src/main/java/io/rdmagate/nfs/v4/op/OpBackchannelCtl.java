package io.rdmagate.nfs.v4.op;

import static io.rdmagate.nfs.v4.Nfs4.*;

import io.rdmagate.nfs.v4.Compound;
import io.rdmagate.nfs.v4.Nfs4Exception;
import io.rdmagate.nfs.v4.Nfs4Op;
import io.rdmagate.oncrpc.xdr.XdrDecoder;
import io.rdmagate.oncrpc.xdr.XdrException;

/**
 * RFC 8881 §18.33 BACKCHANNEL_CTL: args the callback program and security parameters; no resok. The
 * server makes no callbacks yet, so the new parameters are checked and accepted with nothing to change.
 */
public final class OpBackchannelCtl extends Nfs4Op {
    public OpBackchannelCtl() {
        super(OP_BACKCHANNEL_CTL, "BACKCHANNEL_CTL");
    }

    @Override
    public void run(Compound c) throws Nfs4Exception, XdrException {
        XdrDecoder in = c.in();
        in.readInt(); // bca_cb_program
        int n = in.readLength(16);
        for (int i = 0; i < n; i++) {
            OpCreateSession.skipCallbackSec(in);
        }
        c.session();
    }
}
