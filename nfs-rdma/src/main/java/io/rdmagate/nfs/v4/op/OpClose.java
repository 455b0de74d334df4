package io.rdmagate.nfs.v4.op;

import static io.rdmagate.nfs.v4.Nfs4.*;

import io.rdmagate.nfs.v4.Compound;
import io.rdmagate.nfs.v4.Nfs4Exception;
import io.rdmagate.nfs.v4.Nfs4Op;
import io.rdmagate.nfs.v4.state.OpenState;
import io.rdmagate.nfs.v4.state.Stateid;
import io.rdmagate.oncrpc.xdr.XdrException;

/**
 * RFC 8881 §18.2 CLOSE: args seqid, open stateid of the current filehandle; resok a stateid, which
 * is the invalid special stateid (§8.2.3: seqid all ones, other zeros), as §18.2.4 recommends. Locks
 * still held by lock-owners of this open are released with it.
 */
public final class OpClose extends Nfs4Op {
    private static final Stateid INVALID = new Stateid(-1, new byte[12]);

    public OpClose() {
        super(OP_CLOSE, "CLOSE");
    }

    @Override
    public void run(Compound c) throws Nfs4Exception, XdrException {
        c.in().readInt(); // seqid: ordered by the slot in NFSv4.1
        Stateid s = c.resolveStateid(Stateid.read(c.in()));
        if (s.isSpecial()) {
            throw new Nfs4Exception(NFS4ERR_BAD_STATEID, "CLOSE of a special stateid");
        }
        io.rdmagate.nfs.NfsExports.Target t = c.currentFile(NFS4ERR_ISDIR);
        OpenState o = OpRead.checkOwner(c, s, t);
        for (io.rdmagate.nfs.v4.state.LockState l : c.server().state().locksOf(o)) {
            t.fs().locks().releaseAll(owner -> owner.equals(l.owner())); // locks die with the open they came from
        }
        c.server().state().close(o);
        INVALID.write(c.out());
        c.currentStateid(null);
    }
}
