package io.rdmagate.nfs.v4.op;

import static io.rdmagate.nfs.v4.Nfs4.*;

import io.rdmagate.nfs.v4.Compound;
import io.rdmagate.nfs.v4.Nfs4Exception;
import io.rdmagate.nfs.v4.Nfs4Op;
import io.rdmagate.oncrpc.xdr.XdrException;

/**
 * RFC 7530 §16.37 RELEASE_LOCKOWNER (NFSv4.0): args lock_owner4 (clientid, owner); no resok. The
 * client is done with the lock-owner (a process that exited): its lock stateids go, and the server
 * forgets its seqid. NFS4ERR_LOCKS_HELD while it holds a lock.
 */
public final class OpReleaseLockowner extends Nfs4Op {
    public OpReleaseLockowner() {
        super(OP_RELEASE_LOCKOWNER, "RELEASE_LOCKOWNER");
    }

    @Override
    public void run(Compound c) throws Nfs4Exception, XdrException {
        long clientId = c.in().readHyper();
        byte[] owner = c.in().readOpaque(NFS4_OPAQUE_LIMIT);
        c.server().state().releaseLockOwner(c.client(clientId), owner);
    }
}
