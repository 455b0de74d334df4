package io.rdmagate.nfs.v4.op;

import static io.rdmagate.nfs.v4.Nfs4.*;

import io.rdmagate.nfs.NfsExports.Target;
import io.rdmagate.nfs.v4.Compound;
import io.rdmagate.nfs.v4.Nfs4Exception;
import io.rdmagate.nfs.v4.Nfs4Op;
import io.rdmagate.nfs.v4.state.OpenState;
import io.rdmagate.nfs.v4.state.Stateid;
import io.rdmagate.oncrpc.xdr.XdrException;

/**
 * RFC 7530 §16.18 OPEN_CONFIRM (NFSv4.0): args open stateid, seqid; resok the open's next stateid.
 * A new open-owner's first OPEN said OPEN4_RESULT_CONFIRM; until this confirms it, its stateid is
 * good for nothing else. Ordered by the open-owner's seqid, as OPEN is.
 */
public final class OpOpenConfirm extends Nfs4Op {
    public OpOpenConfirm() {
        super(OP_OPEN_CONFIRM, "OPEN_CONFIRM");
    }

    @Override
    public void run(Compound c) throws Nfs4Exception, XdrException {
        Stateid s = Stateid.read(c.in());
        int seqid = c.in().readInt();
        Target t = c.currentFile(NFS4ERR_ISDIR);
        if (s.isSpecial()) {
            throw new Nfs4Exception(NFS4ERR_BAD_STATEID, "OPEN_CONFIRM of a special stateid");
        }
        OpenState o = c.server().state().open(new Stateid(0, s.other())); // its own seqid once the owner's is taken
        OpRead.sameFile(s, o, t);
        c.named(o.client());
        if (o.owner40() == null) {
            throw new Nfs4Exception(NFS4ERR_BAD_STATEID, "open " + s + " is not an NFSv4.0 open");
        }
        if (c.sequence40(o.owner40(), seqid)) {
            c.server().state().open(s);
            c.server().state().confirmOpen(o).write(c.out());
        }
    }
}
