package io.rdmagate.nfs.v4.op;

import static io.rdmagate.nfs.v4.Nfs4.*;

import io.rdmagate.nfs.v4.Compound;
import io.rdmagate.nfs.v4.Nfs4Exception;
import io.rdmagate.nfs.v4.Nfs4Op;
import io.rdmagate.oncrpc.xdr.XdrDecoder;
import io.rdmagate.oncrpc.xdr.XdrException;

/**
 * RFC 8881 §18.33 BACKCHANNEL_CTL: args the callback program and security parameters; no resok.
 * Later callbacks of the session use them; a list with neither AUTH_NONE nor AUTH_SYS is
 * NFS4ERR_INVAL (this server makes no RPCSEC_GSS callbacks).
 */
public final class OpBackchannelCtl extends Nfs4Op {
    public OpBackchannelCtl() {
        super(OP_BACKCHANNEL_CTL, "BACKCHANNEL_CTL");
    }

    @Override
    public void run(Compound c) throws Nfs4Exception, XdrException {
        XdrDecoder in = c.in();
        int program = in.readInt();
        io.rdmagate.oncrpc.rpc.Credentials credentials = OpCreateSession.readCallbackSecs(in);
        var session = c.session();
        if (credentials == null) {
            throw new Nfs4Exception(NFS4ERR_INVAL, "no callback security this server can use");
        }
        session.back().control(program, credentials);
    }
}
