package io.rdmagate.nfs.v4.op;

import static io.rdmagate.nfs.v4.Nfs4.*;

import io.rdmagate.nfs.v4.Compound;
import io.rdmagate.nfs.v4.Nfs4Exception;
import io.rdmagate.nfs.v4.Nfs4Op;
import io.rdmagate.nfs.v4.callback.Callbacks;
import io.rdmagate.nfs.v4.state.Session;
import io.rdmagate.oncrpc.server.Backchannel;
import io.rdmagate.oncrpc.xdr.XdrDecoder;
import io.rdmagate.oncrpc.xdr.XdrEncoder;
import io.rdmagate.oncrpc.xdr.XdrException;

/**
 * RFC 8881 §18.34 BIND_CONN_TO_SESSION: args sessionid, channel direction, RDMA mode; resok sessionid,
 * the direction bound, RDMA mode. With SP4_NONE any connection may carry the session's fore channel
 * (§2.10.3.1), so binding is accepted for it. A session whose back channel was granted moves it to
 * this connection when the client asks for the back channel (BACK, FORE_OR_BOTH, BACK_OR_BOTH) and
 * the connection can carry calls to the client; the new path is probed with CB_NULL. A request
 * that needs the back channel and cannot have it is NFS4ERR_INVAL (RFC 8881 has no better status);
 * FORE_OR_BOTH then gets the fore channel. RDMA mode is not offered.
 */
public final class OpBindConnToSession extends Nfs4Op {
    private static final int CDFC4_FORE = 1;
    private static final int CDFC4_BACK = 2;
    private static final int CDFC4_FORE_OR_BOTH = 3;
    private static final int CDFC4_BACK_OR_BOTH = 7;
    private static final int CDFS4_FORE = 1;
    private static final int CDFS4_BACK = 2;
    private static final int CDFS4_BOTH = 3;

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
        Session s = c.server().state().session(session);
        Backchannel connection = c.call().connection().backchannel();
        boolean back = dir != CDFC4_FORE && s.back().granted() && connection.isOpen();
        if (!back && (dir == CDFC4_BACK || dir == CDFC4_BACK_OR_BOTH)) {
            throw new Nfs4Exception(NFS4ERR_INVAL, "no back channel on this connection for the session");
        }
        if (back) {
            s.back().bind(connection);
        }
        XdrEncoder out = c.out();
        out.writeFixedOpaque(session);
        out.writeInt(!back ? CDFS4_FORE : dir == CDFC4_BACK ? CDFS4_BACK : CDFS4_BOTH);
        out.writeBool(false);
        if (back) {
            Callbacks.probe(s.back());
        }
    }
}
