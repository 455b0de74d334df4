package io.rdmagate.nfs.v4.op;

import static io.rdmagate.nfs.v4.Nfs4.*;

import io.rdmagate.nfs.NfsExports.Target;
import io.rdmagate.nfs.v4.Compound;
import io.rdmagate.nfs.v4.Nfs4Exception;
import io.rdmagate.nfs.v4.Nfs4Op;
import io.rdmagate.nfs.v4.callback.Callbacks;
import io.rdmagate.nfs.v4.state.LockState;
import io.rdmagate.nfs.v4.state.OpenState;
import io.rdmagate.nfs.v4.state.StateOwner;
import io.rdmagate.nfs.v4.state.Stateid;
import io.rdmagate.oncrpc.xdr.XdrDecoder;
import io.rdmagate.oncrpc.xdr.XdrException;
import io.rdmagate.vfs.VfsException;
import io.rdmagate.vfs.lock.ByteRangeLock;
import io.rdmagate.vfs.lock.LockConflictException;
import io.rdmagate.vfs.lock.LockSemantics;
import io.rdmagate.vfs.state.Conflict;

/**
 * RFC 8881 §18.10 LOCK: args lock type, reclaim, offset, length, locker (a new lock-owner with the open
 * it comes from, or an existing lock stateid); resok the lock stateid; NFS4ERR_DENIED carries the
 * holder (LOCK4denied).
 *
 * <p>The lock goes into the volume's lock table with POSIX rules, beside NLM's and SMB's, and onto
 * the backing file (so a host process's lock refuses it, and it refuses theirs). What an SMB client
 * may hold under a write lease is recalled first. A blocking type (READW_LT, WRITEW_LT) that would
 * wait is answered NFS4ERR_DENIED at once; a client with a back channel is told by CB_NOTIFY_LOCK
 * when the range is free (OPEN said it may be: OPEN4_RESULT_MAY_NOTIFY_LOCK), one without polls. After a restart, clients of the previous run reclaim their locks during the grace period;
 * other LOCKs are NFS4ERR_GRACE until it ends. NFSv4.0: a new lock-owner's LOCK is ordered by the
 * open-owner's seqid and starts the lock-owner's at lock_seqid; later ones by the lock-owner's.
 */
public final class OpLock extends Nfs4Op {
    public OpLock() {
        super(OP_LOCK, "LOCK");
    }

    @Override
    public void run(Compound c) throws Nfs4Exception, XdrException, VfsException {
        XdrDecoder in = c.in();
        int type = in.readInt();
        boolean reclaim = in.readBool();
        long offset = in.readHyper();
        long length = in.readHyper();
        boolean newOwner = in.readBool();
        Stateid given;
        byte[] ownerBytes = null;
        int openSeqid = 0;
        int lockSeqid;
        if (newOwner) {
            openSeqid = in.readInt(); // NFSv4.0 orders by the open-owner's, then the lock-owner's seqids
            given = c.resolveStateid(Stateid.read(in));
            lockSeqid = in.readInt();
            in.readHyper(); // the lock-owner's clientid: the open's client
            ownerBytes = in.readOpaque(NFS4_OPAQUE_LIMIT);
        } else {
            given = c.resolveStateid(Stateid.read(in));
            lockSeqid = in.readInt();
        }
        Target t = c.currentFile(NFS4ERR_ISDIR);
        LockState l;
        StateOwner newLockOwner = null;
        if (c.minor() == MINOR_VERSION_0) {
            if (newOwner) {
                OpenState open = Seqids40.open(c, given, t, openSeqid);
                if (open == null) {
                    return; // a retransmission, answered from the open-owner's last reply
                }
                newLockOwner = c.server().state().lockOwner(open.client(), ownerBytes, c.server().now());
                l = c.server().state().lockState(open, ownerBytes, newLockOwner);
            } else if ((l = Seqids40.lock(c, given, t, lockSeqid)) == null) {
                return; // a retransmission, answered from the lock-owner's last reply
            }
        } else if (newOwner) {
            l = c.server().state().lockState(OpRead.checkOwner(c, given, t), ownerBytes);
        } else {
            l = c.server().state().lock(given);
            OpRead.checkOwner(c, l.open().stateid(), t);
        }
        boolean exclusive = Locks4.exclusive(type);
        long vfsLength = Locks4.length(offset, length);
        if (reclaim) {
            c.server().state().mayReclaim(c.client(), c.server().now());
        } else {
            c.server().state().notInGrace(c.server().now());
        }
        c.reader(t);
        if (exclusive && (l.open().access() & OPEN4_SHARE_ACCESS_WRITE) == 0) {
            throw new Nfs4Exception(NFS4ERR_OPENMODE, "a write lock needs an open for writing");
        }
        int use = t.begin(Conflict.LOCK, c.breaker()); // locks an SMB client keeps under a write lease come in first
        ByteRangeLock request = new ByteRangeLock(l.owner(), offset, vfsLength, exclusive, LockSemantics.POSIX);
        try {
            t.fs().locks().lock(t.handle().fileId(), request);
        } catch (LockConflictException e) {
            if (Locks4.blocking(type) && c.back() != null && c.back().granted()) {
                notifyWhenFree(c, t, l, request);
            }
            throw e;
        } finally {
            t.end(use);
        }
        if (newLockOwner != null) {
            c.server().state().lockOwnerStarts(newLockOwner, lockSeqid);
        }
        Stateid now = c.server().state().locked(l);
        now.write(c.out());
        c.currentStateid(now);
    }

    /**
     * RFC 8881 §20.11: the client of a blocking LOCK that was denied is told, by CB_NOTIFY_LOCK on
     * its session's back channel, once nothing holds the range any more; it then asks again. The
     * lock is not kept for it: whoever asks first gets it, as with polling.
     */
    private static void notifyWhenFree(Compound c, Target t, LockState l, ByteRangeLock request)
            throws Nfs4Exception, VfsException {
        var back = c.session().back();
        byte[] session = c.session().id();
        byte[] fh = c.current().wire();
        java.util.concurrent.CompletableFuture<Void> free = t.fs().locks().whenFree(t.handle().fileId(), request);
        l.waitingFor(free);
        // completed inside the lock manager's monitor: the callback leaves it at once
        free.thenRun(() -> Callbacks.notifyLock(back, session, fh, l.clientId(), l.ownerBytes()));
    }

    @Override
    public void failed(Compound c, Exception cause, int status) {
        if (status == NFS4ERR_DENIED) {
            Locks4.denied(c.out(), cause);
        }
    }
}
