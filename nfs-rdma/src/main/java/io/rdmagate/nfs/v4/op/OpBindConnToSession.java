package io.rdmagate.nfs.v4.op;

import static io.rdmagate.nfs.v4.Nfs4.*;

import io.rdmagate.nfs.v4.Compound;
import io.rdmagate.nfs.v4.Nfs4Exception;
import io.rdmagate.nfs.v4.Nfs4Op;
import io.rdmagate.oncrpc.xdr.XdrDecoder;
import io.rdmagate.oncrpc.xdr.XdrEncoder;
import io.rdmagate.oncrpc.xdr.XdrException;

/**
 * RFC 8881 §18.34 BIND_CONN_TO_SESSION: args sessionid, channel direction, RDMA mode; resok sessionid,
 * the direction bound, RDMA mode. With SP4_NONE any connection may carry the session's fore channel
 * (§2.10.3.1), so binding is accepted for it; this server offers no back channel yet, so the answer
 * is always the fore channel (CDFS4_FORE), which a request for the back channel alone cannot take
 * (NFS4ERR_INVAL, as RFC 8881 has no better status for it). RDMA mode is not offered.
 */
public final class OpBindConnToSession extends Nfs4Op {
    private static final int CDFC4_FORE = 1;
    private static final int CDFC4_BACK = 2;
    private static final int CDFC4_FORE_OR_BOTH = 3;
    private static final int CDFC4_BACK_OR_BOTH = 7;
    private static final int CDFS4_FORE = 1;

    public OpBindConnToSession() {
        super(OP_BIND_CONN_TO_SESSION, "BIND_CONN_TO_SESSION");
    }

    @Override
    public boolean sessionless() {
        return true;
    }

    @Override
    public void run(Compound c) throws Nfs4Exception, XdrException {
        XdrDecoder in = c.in();
        byte[] session = in.readFixedOpaque(NFS4_SESSIONID_SIZE);
        int dir = in.readInt();
        in.readBool(); // use_conn_in_rdma_mode: not offered
        if (dir != CDFC4_FORE && dir != CDFC4_BACK && dir != CDFC4_FORE_OR_BOTH && dir != CDFC4_BACK_OR_BOTH) {
            throw new XdrException("channel_dir_from_client4 " + dir);
        }
        c.server().state().session(session);
        if (dir == CDFC4_BACK) {
            throw new Nfs4Exception(NFS4ERR_INVAL, "no back channel is offered");
        }
        XdrEncoder out = c.out();
        out.writeFixedOpaque(session);
        out.writeInt(CDFS4_FORE);
        out.writeBool(false);
    }
}
