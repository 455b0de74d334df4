package io.rdmagate.nfs.v4.op;

import static io.rdmagate.nfs.v4.Nfs4.*;

import io.rdmagate.nfs.v4.Compound;
import io.rdmagate.nfs.v4.Nfs4Op;
import io.rdmagate.nfs.v4.state.Stateid;
import io.rdmagate.oncrpc.xdr.XdrEncoder;
import io.rdmagate.oncrpc.xdr.XdrException;

/** RFC 8881 §18.48 TEST_STATEID: args stateid4 list (at most 1,024); resok a status per stateid. */
public final class OpTestStateid extends Nfs4Op {
    static final int MAX_STATEIDS = 1024;

    public OpTestStateid() {
        super(OP_TEST_STATEID, "TEST_STATEID");
    }

    @Override
    public void run(Compound c) throws XdrException, io.rdmagate.nfs.v4.Nfs4Exception {
        int n = c.in().readLength(MAX_STATEIDS);
        int[] status = new int[n];
        for (int i = 0; i < n; i++) {
            Stateid s = Stateid.read(c.in());
            status[i] = s.isSpecial() ? NFS4ERR_BAD_STATEID : c.server().state().test(s, c.client());
        }
        XdrEncoder out = c.out();
        out.writeInt(n);
        for (int st : status) {
            out.writeInt(st);
        }
    }
}
