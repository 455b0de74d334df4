package io.rdmagate.smb.server.command;

import io.rdmagate.smb.mserref.NtStatus;
import io.rdmagate.smb.mssmb2.Smb2DecodeException;
import io.rdmagate.smb.mssmb2.Smb2Lock;
import io.rdmagate.smb.server.Command;
import io.rdmagate.smb.server.Ctx;
import io.rdmagate.smb.server.Open;
import io.rdmagate.smb.server.SmbConnection;
import io.rdmagate.smb.server.SmbException;
import io.rdmagate.smb.server.StatusMap;
import io.rdmagate.vfs.VfsException;
import io.rdmagate.vfs.lock.ByteRangeLock;
import io.rdmagate.vfs.lock.LockConflictException;
import io.rdmagate.vfs.lock.LockManager;
import io.rdmagate.vfs.lock.LockSemantics;
import io.rdmagate.vfs.lock.PendingLock;
import java.util.ArrayList;
import java.util.List;

/**
 * LOCK (MS-SMB2 3.3.5.14) through the volume's {@link LockManager} with Windows semantics, so SMB
 * locks and NFS (NLM) locks see each other. A single lock without FAIL_IMMEDIATELY that conflicts
 * waits: the client gets STATUS_PENDING and the final answer when the lock is granted or the
 * request is cancelled.
 */
public final class Lock implements Command {
    @Override
    public Needs needs() {
        return Needs.TREE;
    }

    @Override
    public void handle(Ctx c) throws SmbException, Smb2DecodeException, VfsException {
        Smb2Lock.Request req = Smb2Lock.decode(c.msg);
        Open o = c.open(req.fileId());
        if (o.pipe() != null || o.directory()) {
            throw new SmbException(NtStatus.INVALID_PARAMETER, "LOCK on a directory or pipe");
        }
        List<Smb2Lock.Element> els = req.locks();
        boolean unlock = (els.getFirst().flags() & Smb2Lock.UNLOCK) != 0;
        if (!unlock && c.session.authenticationExpired()) {
            // MS-SMB2 3.3.5.2.9 lets an expired session release its locks, not take new ones (as Windows and Samba)
            throw new SmbException(NtStatus.NETWORK_SESSION_EXPIRED, "the session's Kerberos ticket expired");
        }
        for (Smb2Lock.Element e : els) {
            int f = e.flags();
            boolean valid = unlock ? f == Smb2Lock.UNLOCK
                    : (f & ~(Smb2Lock.SHARED_LOCK | Smb2Lock.EXCLUSIVE_LOCK | Smb2Lock.FAIL_IMMEDIATELY)) == 0
                      && Integer.bitCount(f & (Smb2Lock.SHARED_LOCK | Smb2Lock.EXCLUSIVE_LOCK)) == 1
                      && (els.size() == 1 || (f & Smb2Lock.FAIL_IMMEDIATELY) != 0);
            if (!valid) {
                throw new SmbException(NtStatus.INVALID_PARAMETER, "lock flags 0x" + Integer.toHexString(f));
            }
            if (e.length() != 0 && Long.compareUnsigned(e.offset() + e.length() - 1, e.offset()) < 0) {
                throw new SmbException(NtStatus.INVALID_LOCK_RANGE, "range wraps");
            }
        }
        LockManager lm = o.vfs().locks();
        long fileId = o.handle().fileId();
        if (unlock) {
            for (Smb2Lock.Element e : els) {
                lm.unlock(fileId, o.lockOwner(), e.offset(), e.length(), LockSemantics.WINDOWS);
            }
            c.reply.length(Smb2Lock.write(c.reply.body(4)));
            return;
        }
        c.server.oplocks().breakLevelII(o); // MS-FSA 2.1.5.7: a byte-range lock breaks Level II oplocks to none
        c.server.othersFirst(o.vfs(), o.handle(), io.rdmagate.vfs.state.Conflict.LOCK); // locks NFSv4 delegations keep local
        if (els.size() == 1 && (els.getFirst().flags() & Smb2Lock.FAIL_IMMEDIATELY) == 0) {
            blocking(c, o, lm, fileId, els.getFirst());
            return;
        }
        List<Smb2Lock.Element> granted = new ArrayList<>();
        try {
            for (Smb2Lock.Element e : els) {
                lm.lock(fileId, request(o, e));
                granted.add(e);
            }
        } catch (VfsException ex) {
            for (Smb2Lock.Element e : granted) {
                lm.unlock(fileId, o.lockOwner(), e.offset(), e.length(), LockSemantics.WINDOWS);
            }
            throw new SmbException(ex instanceof LockConflictException ? NtStatus.LOCK_NOT_GRANTED : StatusMap.of(ex.error()),
                    ex.getMessage());
        }
        c.reply.length(Smb2Lock.write(c.reply.body(4)));
    }

    private static ByteRangeLock request(Open o, Smb2Lock.Element e) {
        return new ByteRangeLock(o.lockOwner(), e.offset(), e.length(), (e.flags() & Smb2Lock.EXCLUSIVE_LOCK) != 0,
                LockSemantics.WINDOWS);
    }

    private static void blocking(Ctx c, Open o, LockManager lm, long fileId, Smb2Lock.Element e)
            throws VfsException, SmbException {
        PendingLock p = lm.lockOrWait(fileId, request(o, e));
        if (p.granted().isDone() && !p.granted().isCompletedExceptionally()) {
            c.reply.length(Smb2Lock.write(c.reply.body(4)));
            return;
        }
        SmbConnection.AsyncOp op;
        try {
            op = c.conn.goAsync(c);
        } catch (SmbException full) {
            if (p.cancel() || p.granted().isCompletedExceptionally()) {
                throw full; // the lock is not waited for: STATUS_INSUFFICIENT_RESOURCES
            }
            c.reply.length(Smb2Lock.write(c.reply.body(4))); // granted meanwhile
            return;
        }
        op.onCancel(() -> {
            op.complete(r -> r.status(NtStatus.CANCELLED));
            p.cancel();
        });
        p.granted().whenComplete((l, ex) -> op.complete(r -> {
            if (ex != null) {
                r.status(NtStatus.CANCELLED);
            } else {
                r.length(Smb2Lock.write(r.body(4)));
            }
        }));
    }
}
