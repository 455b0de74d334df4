package io.rdmagate.nfs.v4.op;

import static io.rdmagate.nfs.v4.Nfs4.*;

import io.rdmagate.nfs.NfsExports.Target;
import io.rdmagate.nfs.v4.Compound;
import io.rdmagate.nfs.v4.Nfs4Exception;
import io.rdmagate.nfs.v4.Nfs4Op;
import io.rdmagate.nfs.v4.state.LockState;
import io.rdmagate.oncrpc.xdr.XdrDecoder;
import io.rdmagate.oncrpc.xdr.XdrException;
import io.rdmagate.vfs.VfsException;
import io.rdmagate.vfs.lock.ByteRangeLock;
import io.rdmagate.vfs.lock.LockConflictException;
import io.rdmagate.vfs.lock.LockSemantics;
import io.rdmagate.vfs.state.Conflict;
import java.util.Optional;

/**
 * RFC 8881 §18.11 LOCKT: args lock type, offset, length, lock-owner; NFS4_OK when nothing would
 * refuse that lock, else NFS4ERR_DENIED with the holder: an NFSv4, NLM or SMB lock in the table, or
 * a host process's lock on the backing file.
 */
public final class OpLockt extends Nfs4Op {
    public OpLockt() {
        super(OP_LOCKT, "LOCKT");
    }

    @Override
    public void run(Compound c) throws Nfs4Exception, XdrException, VfsException {
        XdrDecoder in = c.in();
        boolean exclusive = Locks4.exclusive(in.readInt());
        long offset = in.readHyper();
        long length = Locks4.length(offset, in.readHyper());
        long clientId = in.readHyper(); // the owner's clientid: NFSv4.1 uses the session's
        byte[] ownerBytes = in.readOpaque(NFS4_OPAQUE_LIMIT);
        var client = c.client(clientId);
        Target t = c.currentFile(NFS4ERR_ISDIR);
        c.reader(t);
        c.server().state().notInGrace(c.server().now());
        t.end(t.begin(Conflict.LOCK, c.breaker()));
        Optional<ByteRangeLock> holder = t.fs().locks().test(t.handle().fileId(), new ByteRangeLock(
                LockState.owner(client.clientId(), ownerBytes), offset, length, exclusive,
                LockSemantics.POSIX));
        if (holder.isPresent()) {
            throw new LockConflictException(holder.get());
        }
    }

    @Override
    public void failed(Compound c, Exception cause, int status) {
        if (status == NFS4ERR_DENIED) {
            Locks4.denied(c.out(), cause);
        }
    }
}
