package io.rdmagate.nfs.v4.op;

import static io.rdmagate.nfs.v4.Nfs4.*;

import io.rdmagate.nfs.NfsExports.Target;
import io.rdmagate.nfs.v4.Compound;
import io.rdmagate.nfs.v4.Nfs4Exception;
import io.rdmagate.nfs.v4.Nfs4Op;
import io.rdmagate.nfs.v4.state.LockState;
import io.rdmagate.nfs.v4.state.Stateid;
import io.rdmagate.oncrpc.xdr.XdrDecoder;
import io.rdmagate.oncrpc.xdr.XdrException;
import io.rdmagate.vfs.VfsException;
import io.rdmagate.vfs.lock.LockSemantics;

/**
 * RFC 8881 §18.12 LOCKU: args lock type, seqid, lock stateid, offset, length; resok the lock stateid.
 * POSIX rules: every part of the owner's locks inside the range is released; releasing what is not
 * locked succeeds.
 */
public final class OpLocku extends Nfs4Op {
    public OpLocku() {
        super(OP_LOCKU, "LOCKU");
    }

    @Override
    public void run(Compound c) throws Nfs4Exception, XdrException, VfsException {
        XdrDecoder in = c.in();
        Locks4.exclusive(in.readInt());
        int seqid = in.readInt(); // NFSv4.0's lock-owner orders its requests by it; NFSv4.1 by the slot
        Stateid s = c.resolveStateid(Stateid.read(in));
        long offset = in.readHyper();
        long length = Locks4.length(offset, in.readHyper());
        Target t = c.currentFile(NFS4ERR_ISDIR);
        LockState l;
        if (c.minor() == MINOR_VERSION_0) {
            l = Seqids40.lock(c, s, t, seqid);
            if (l == null) {
                return; // a retransmission, answered from the owner's last reply
            }
        } else {
            l = c.server().state().lock(s);
            OpRead.checkOwner(c, l.open().stateid(), t);
        }
        t.fs().locks().unlock(t.handle().fileId(), l.owner(), offset, length, LockSemantics.POSIX);
        Stateid now = c.server().state().locked(l);
        now.write(c.out());
        c.currentStateid(now);
    }
}
