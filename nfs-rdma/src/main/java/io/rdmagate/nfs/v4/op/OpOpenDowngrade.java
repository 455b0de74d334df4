package io.rdmagate.nfs.v4.op;

import static io.rdmagate.nfs.v4.Nfs4.*;

import io.rdmagate.nfs.v4.Compound;
import io.rdmagate.nfs.v4.Nfs4Exception;
import io.rdmagate.nfs.v4.Nfs4Op;
import io.rdmagate.nfs.v4.state.OpenState;
import io.rdmagate.nfs.v4.state.Stateid;
import io.rdmagate.oncrpc.xdr.XdrDecoder;
import io.rdmagate.oncrpc.xdr.XdrException;

/**
 * RFC 8881 §18.18 OPEN_DOWNGRADE: args open stateid, seqid, share access, share deny; resok the open's
 * new stateid. The access and deny asked must be within what the open holds (NFS4ERR_INVAL).
 */
public final class OpOpenDowngrade extends Nfs4Op {
    public OpOpenDowngrade() {
        super(OP_OPEN_DOWNGRADE, "OPEN_DOWNGRADE");
    }

    @Override
    public void run(Compound c) throws Nfs4Exception, XdrException {
        XdrDecoder in = c.in();
        Stateid s = c.resolveStateid(Stateid.read(in));
        int seqid = in.readInt(); // NFSv4.0's open-owner orders its requests by it; NFSv4.1 by the slot
        int access = in.readInt() & ~OPEN4_SHARE_ACCESS_WANT_DELEG_MASK;
        int deny = in.readInt();
        if (s.isSpecial()) {
            throw new Nfs4Exception(NFS4ERR_BAD_STATEID, "OPEN_DOWNGRADE of a special stateid");
        }
        var t = c.currentFile(NFS4ERR_ISDIR);
        OpenState o = c.minor() == MINOR_VERSION_0 ? Seqids40.open(c, s, t, seqid) : OpRead.checkOwner(c, s, t);
        if (o == null) {
            return; // a retransmission, answered from the owner's last reply
        }
        Stateid now = c.server().state().downgrade(o, access, deny);
        now.write(c.out());
        c.currentStateid(now);
    }
}
