package io.rdmagate.nfs.v4.op;

import static io.rdmagate.nfs.v4.Nfs4.*;

import io.rdmagate.nfs.NfsExports.Target;
import io.rdmagate.nfs.v4.Compound;
import io.rdmagate.nfs.v4.Fattr4;
import io.rdmagate.nfs.v4.Nfs4Exception;
import io.rdmagate.nfs.v4.Nfs4Op;
import io.rdmagate.nfs.v4.state.OpenState;
import io.rdmagate.nfs.v4.state.Delegations;
import io.rdmagate.nfs.v4.state.Stateid;
import io.rdmagate.oncrpc.xdr.XdrException;
import io.rdmagate.vfs.Caller;
import io.rdmagate.vfs.VfsException;
import io.rdmagate.vfs.state.Conflict;

/**
 * RFC 8881 §18.30 SETATTR: args stateid, fattr4; result status and attrsset (the bitmap of what was
 * set, empty after a failure, which still carries it). A size change needs an open with write access
 * or a special stateid; as NFSv3 SETATTR, what SMB clients cache of the file is recalled first.
 */
public final class OpSetattr extends Nfs4Op {
    public OpSetattr() {
        super(OP_SETATTR, "SETATTR");
    }

    @Override
    public void run(Compound c) throws Nfs4Exception, XdrException, VfsException {
        Stateid stateid = c.resolveStateid(Stateid.read(c.in()));
        Fattr4.Settable s = Fattr4.readSettable(c.in(), c.server().idmap());
        Target t = c.currentFile(NFS4ERR_ROFS); // the pseudo-filesystem is read-only
        Caller caller = c.writer(t);
        if (s.attributes().size() != null && stateid.isSpecial()) {
            c.server().state().notInGrace(c.server().now());
        }
        if (s.attributes().size() != null && Delegations.isDelegation(stateid)) {
            OpRead.checkWriteDelegation(c, stateid, t);
        } else if (s.attributes().size() != null && !stateid.isSpecial()) {
            OpenState o = OpRead.checkOwner(c, stateid, t);
            if ((o.access() & OPEN4_SHARE_ACCESS_WRITE) == 0) {
                throw new Nfs4Exception(NFS4ERR_OPENMODE, "open " + stateid + " does not allow writing");
            }
        }
        int use = t.begin(Conflict.WRITE, c.breaker()); // as NFSv3 SETATTR: SMB opens may deny it, SMB caching is recalled
        try {
            if (s.modeFromAcl()) { // an ACL says rwx only: the setuid, setgid and sticky bits stay
                s.attributes().mode((t.fs().getattr(t.handle()).mode() & 07000) | s.attributes().mode());
            }
            t.fs().setattr(caller, t.handle(), s.attributes());
        } finally {
            t.end(use);
        }
        t.stable();
        Fattr4.writeBitmap(c.out(), s.bitmap());
    }

    @Override
    public void failed(Compound c, Exception cause, int status) {
        c.out().writeInt(0); // attrsset: nothing
    }
}
