package io.rdmagate.vfs.lock;

import io.rdmagate.vfs.VfsError;
import io.rdmagate.vfs.VfsException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.function.Predicate;

/**
 * Byte-range locks of one volume, keyed by file id, shared by every protocol.
 *
 * <p>Locks are gateway state (not fcntl locks of the process, which would all belong to one
 * owner). POSIX requests merge and split the owner's own locks (fcntl semantics); Windows requests
 * are kept as given (MS-FSA 2.1.5.8). A waiting request is granted in FIFO order as soon as no
 * lock blocks it; a wait that would close a cycle of owners waiting on each other fails with
 * {@link VfsError#DEADLOCK}. Not a hot path: one monitor guards the table.
 *
 * <p>Every grant and release is also carried to {@link BackingLocks} (on a local export: open
 * file description locks on the backing file), so a lock a host process holds refuses the
 * gateway's clients, and theirs refuse it. A request that only a process outside the gateway
 * blocks is refused at once, even one that would wait: the gateway hears nothing when such a
 * lock goes away.
 */
public final class LockManager {
    /** Who a lock held outside the gateway is reported as (NLM4 TEST's holder). */
    public static final LockOwner OUTSIDE = new LockOwner("host:process", "host", 0, new byte[0]);

    private final Map<Long, FileLocks> files = new HashMap<>();
    private final Map<LockOwner, PendingLock> waiting = new HashMap<>();
    private final BackingLocks backing;

    public LockManager() {
        this(BackingLocks.NONE);
    }

    public LockManager(BackingLocks backing) {
        this.backing = backing;
    }

    private static final class FileLocks {
        final List<ByteRangeLock> granted = new ArrayList<>();
        final List<PendingLock> queue = new ArrayList<>();
        /** {@link #whenFree} requests: told, never granted. */
        final List<Watch> watches = new ArrayList<>();

        boolean isEmpty() {
            return granted.isEmpty() && queue.isEmpty() && watches.isEmpty();
        }
    }

    private record Watch(ByteRangeLock request, java.util.concurrent.CompletableFuture<Void> free) {
    }

    /** Grants the lock now or throws {@link LockConflictException} naming a holder. */
    public synchronized ByteRangeLock lock(long fileId, ByteRangeLock request) throws VfsException {
        validate(request);
        FileLocks f = files.computeIfAbsent(fileId, k -> new FileLocks());
        ByteRangeLock holder = firstBlocker(f, request);
        if (holder != null) {
            dropIfEmpty(fileId, f);
            throw new LockConflictException(holder);
        }
        grantOrRefuse(fileId, f, request);
        return request;
    }

    /** Grants and takes the lock on the backing file; when a process outside holds it, undoes the grant and throws. */
    private void grantOrRefuse(long fileId, FileLocks f, ByteRangeLock request) throws LockConflictException {
        List<ByteRangeLock> before = new ArrayList<>(f.granted);
        grant(f, request);
        if (!backing.sync(fileId, request.owner(), held(f, request.owner()))) {
            f.granted.clear();
            f.granted.addAll(before);
            dropIfEmpty(fileId, f);
            throw new LockConflictException(new ByteRangeLock(OUTSIDE, request.offset(), request.length(),
                    true, request.semantics()));
        }
    }

    private static List<ByteRangeLock> held(FileLocks f, LockOwner owner) {
        List<ByteRangeLock> out = new ArrayList<>(2);
        for (ByteRangeLock l : f.granted) {
            if (l.owner().equals(owner)) {
                out.add(l);
            }
        }
        return out;
    }

    /**
     * Grants the lock now, or queues it. The returned request's future is already complete when
     * the lock was free.
     */
    public synchronized PendingLock lockOrWait(long fileId, ByteRangeLock request) throws VfsException {
        validate(request);
        FileLocks f = files.computeIfAbsent(fileId, k -> new FileLocks());
        PendingLock p = new PendingLock(this, fileId, request);
        ByteRangeLock holder = firstBlocker(f, request);
        if (holder == null) {
            grantOrRefuse(fileId, f, request);
            p.future().complete(request);
            return p;
        }
        if (wouldDeadlock(request.owner(), holder.owner(), new HashSet<>())) {
            dropIfEmpty(fileId, f);
            throw new VfsException(VfsError.DEADLOCK, "waiting for " + holder.owner().key() + " would deadlock");
        }
        f.queue.add(p);
        waiting.put(request.owner(), p);
        return p;
    }

    /**
     * Completes once nothing in the table conflicts with {@code request} any more, without granting
     * it: for a protocol that tells a waiting client to ask again (NFSv4.1 CB_NOTIFY_LOCK, RFC 8881
     * §20.11). Complete already when nothing conflicts now; completes too when the file's locks are
     * forgotten. Cancel the future to stop watching. It is completed inside this manager's
     * monitor: attach only asynchronous stages.
     */
    public synchronized java.util.concurrent.CompletableFuture<Void> whenFree(long fileId, ByteRangeLock request)
            throws VfsException {
        validate(request);
        java.util.concurrent.CompletableFuture<Void> free = new java.util.concurrent.CompletableFuture<>();
        FileLocks f = files.get(fileId);
        if (f == null || firstBlocker(f, request) == null) {
            free.complete(null);
            return free;
        }
        f.watches.removeIf(w -> w.free().isDone()); // cancelled ones
        f.watches.add(new Watch(request, free));
        return free;
    }

    /** Returns a lock that would block {@code request}, if any (NLM TEST, F_GETLK). */
    public synchronized Optional<ByteRangeLock> test(long fileId, ByteRangeLock request) throws VfsException {
        validate(request);
        FileLocks f = files.get(fileId);
        ByteRangeLock blocker = f == null ? null : firstBlocker(f, request);
        if (blocker == null && backing.lockedOutside(fileId, request)) {
            blocker = new ByteRangeLock(OUTSIDE, request.offset(), request.length(), true, request.semantics());
        }
        return Optional.ofNullable(blocker);
    }

    /**
     * Releases a range. POSIX: every part of the owner's locks inside the range (splitting those that
     * straddle it); unlocking what is not locked succeeds. Windows: exactly one lock with this
     * offset and length, else {@link VfsError#RANGE_NOT_LOCKED} (MS-FSA 2.1.5.9).
     */
    public synchronized void unlock(long fileId, LockOwner owner, long offset, long length, LockSemantics semantics)
            throws VfsException {
        ByteRangeLock range = new ByteRangeLock(owner, offset, length, true, semantics);
        validate(range);
        FileLocks f = files.get(fileId);
        if (semantics == LockSemantics.WINDOWS) {
            ByteRangeLock match = null;
            if (f != null) {
                for (ByteRangeLock l : f.granted) {
                    if (l.semantics() == LockSemantics.WINDOWS && l.owner().equals(owner) && l.offset() == offset
                            && l.length() == length) {
                        match = l;
                        if (l.exclusive()) {
                            break;
                        }
                    }
                }
            }
            if (match == null) {
                throw new VfsException(VfsError.RANGE_NOT_LOCKED, "no lock at " + Long.toUnsignedString(offset) + "+"
                        + Long.toUnsignedString(length));
            }
            f.granted.remove(match);
        } else if (f != null) {
            carve(f, range);
        }
        if (f != null) {
            backing.sync(fileId, owner, held(f, owner)); // fewer ranges: never refused
            wake(fileId, f);
        }
    }

    /** Releases every lock and cancels every wait of the matching owners (NLM FREE_ALL, SMB close). */
    public synchronized int releaseAll(Predicate<LockOwner> owners) {
        int n = 0;
        List<Long> touched = new ArrayList<>();
        for (Map.Entry<Long, FileLocks> e : files.entrySet()) {
            FileLocks f = e.getValue();
            int before = f.granted.size();
            Set<LockOwner> released = new HashSet<>();
            for (ByteRangeLock l : f.granted) {
                if (owners.test(l.owner())) {
                    released.add(l.owner());
                }
            }
            f.granted.removeIf(l -> released.contains(l.owner()));
            for (LockOwner o : released) {
                backing.sync(e.getKey(), o, List.of());
            }
            n += before - f.granted.size();
            for (Iterator<PendingLock> it = f.queue.iterator(); it.hasNext();) {
                PendingLock p = it.next();
                if (owners.test(p.request().owner())) {
                    it.remove();
                    waiting.remove(p.request().owner());
                    p.future().completeExceptionally(new CancellationException("owner's locks released"));
                }
            }
            touched.add(e.getKey());
        }
        for (Long id : touched) {
            FileLocks f = files.get(id);
            if (f != null) {
                wake(id, f);
            }
        }
        return n;
    }

    /** Releases everything on a file that is gone. */
    public synchronized void forget(long fileId) {
        backing.forget(fileId);
        FileLocks f = files.remove(fileId);
        if (f != null) {
            for (PendingLock p : f.queue) {
                waiting.remove(p.request().owner());
                p.future().completeExceptionally(new CancellationException("file removed"));
            }
            for (Watch w : f.watches) {
                w.free().complete(null);
            }
        }
    }

    /**
     * Whether any byte-range lock is held on the file: in the table, or on the backing file by a
     * process outside the gateway (a system call on a local export, so not for hot paths).
     */
    public boolean anyLock(long fileId) {
        synchronized (this) {
            FileLocks f = files.get(fileId);
            if (f != null && !f.granted.isEmpty()) {
                return true;
            }
        }
        return backing.lockedOutside(fileId, new ByteRangeLock(OUTSIDE, 0, 0, true, LockSemantics.POSIX));
    }

    /** The locks held on a file now, in grant order. */
    public synchronized List<ByteRangeLock> locks(long fileId) {
        FileLocks f = files.get(fileId);
        return f == null ? List.of() : List.copyOf(f.granted);
    }

    /** MS-FSA 2.1.4.10 with LockIntent FALSE: whether a read or write by {@code owner} hits another's lock. */
    public synchronized boolean ioConflicts(long fileId, LockOwner owner, long offset, long length, boolean write) {
        FileLocks f = files.get(fileId);
        if (f == null || length == 0) {
            return false;
        }
        ByteRangeLock io = new ByteRangeLock(owner, offset, length, write, LockSemantics.WINDOWS);
        for (ByteRangeLock l : f.granted) {
            if (!l.overlaps(io)) {
                continue;
            }
            boolean mine = l.owner().equals(owner);
            if (l.exclusive() && !mine) {
                return true;
            }
            if (!l.exclusive() && write) {
                return true;
            }
        }
        return false;
    }

    synchronized boolean cancel(PendingLock p) {
        FileLocks f = files.get(p.fileId());
        if (f == null || !f.queue.remove(p)) {
            return false;
        }
        waiting.remove(p.request().owner());
        p.future().completeExceptionally(new CancellationException("cancelled"));
        wake(p.fileId(), f);
        return true;
    }

    private static void validate(ByteRangeLock l) throws VfsException {
        if (l.wraps()) {
            throw new VfsException(VfsError.INVALID, "lock range wraps past 2^64");
        }
    }

    private static ByteRangeLock firstBlocker(FileLocks f, ByteRangeLock request) {
        for (ByteRangeLock l : f.granted) {
            if (l.blocks(request)) {
                return l;
            }
        }
        return null;
    }

    private void grant(FileLocks f, ByteRangeLock request) {
        if (request.semantics() == LockSemantics.WINDOWS) {
            f.granted.add(request);
            return;
        }
        // fcntl: the owner's locks of the same type that touch the range merge into it; others are cut.
        long start = request.offset();
        long last = request.last();
        List<ByteRangeLock> keep = new ArrayList<>();
        for (ByteRangeLock l : f.granted) {
            if (l.semantics() != LockSemantics.POSIX || !l.owner().equals(request.owner())) {
                keep.add(l);
                continue;
            }
            boolean touches = Long.compareUnsigned(l.offset(), last == -1L ? last : last + 1) <= 0
                    && (l.last() == -1L || Long.compareUnsigned(l.last() + 1, start) >= 0);
            if (touches && l.exclusive() == request.exclusive()) {
                if (Long.compareUnsigned(l.offset(), start) < 0) {
                    start = l.offset();
                }
                if (Long.compareUnsigned(l.last(), last) > 0) {
                    last = l.last();
                }
            } else if (l.overlaps(request)) {
                keep.addAll(remnants(l, request.offset(), request.last()));
            } else {
                keep.add(l);
            }
        }
        keep.add(posix(request.owner(), start, last, request.exclusive()));
        f.granted.clear();
        f.granted.addAll(keep);
    }

    private static void carve(FileLocks f, ByteRangeLock range) {
        List<ByteRangeLock> keep = new ArrayList<>();
        for (ByteRangeLock l : f.granted) {
            if (l.semantics() == LockSemantics.POSIX && l.owner().equals(range.owner()) && l.overlaps(range)) {
                keep.addAll(remnants(l, range.offset(), range.last()));
            } else {
                keep.add(l);
            }
        }
        f.granted.clear();
        f.granted.addAll(keep);
    }

    /** The parts of {@code l} outside [start, last]. */
    private static List<ByteRangeLock> remnants(ByteRangeLock l, long start, long last) {
        List<ByteRangeLock> out = new ArrayList<>(2);
        if (Long.compareUnsigned(l.offset(), start) < 0) {
            out.add(posix(l.owner(), l.offset(), start - 1, l.exclusive()));
        }
        if (last != -1L && Long.compareUnsigned(l.last(), last) > 0) {
            out.add(posix(l.owner(), last + 1, l.last(), l.exclusive()));
        }
        return out;
    }

    private static ByteRangeLock posix(LockOwner owner, long start, long last, boolean exclusive) {
        long length = last == -1L ? 0 : last - start + 1;
        return new ByteRangeLock(owner, start, length, exclusive, LockSemantics.POSIX);
    }

    private void wake(long fileId, FileLocks f) {
        for (Iterator<PendingLock> it = f.queue.iterator(); it.hasNext();) {
            PendingLock p = it.next();
            if (firstBlocker(f, p.request()) == null) {
                it.remove();
                waiting.remove(p.request().owner());
                List<ByteRangeLock> before = new ArrayList<>(f.granted);
                grant(f, p.request());
                if (backing.sync(fileId, p.request().owner(), held(f, p.request().owner()))) {
                    p.future().complete(p.request());
                } else {
                    f.granted.clear();
                    f.granted.addAll(before);
                    p.future().completeExceptionally(new LockConflictException(new ByteRangeLock(OUTSIDE,
                            p.request().offset(), p.request().length(), true, p.request().semantics())));
                }
            }
        }
        for (Iterator<Watch> it = f.watches.iterator(); it.hasNext();) {
            Watch w = it.next();
            if (w.free().isDone() || firstBlocker(f, w.request()) == null) {
                it.remove();
                w.free().complete(null);
            }
        }
        dropIfEmpty(fileId, f);
    }

    private void dropIfEmpty(long fileId, FileLocks f) {
        if (f.isEmpty()) {
            files.remove(fileId);
        }
    }

    /** Whether {@code holder} (transitively) waits for a lock that {@code requester} holds. */
    private boolean wouldDeadlock(LockOwner requester, LockOwner holder, Set<LockOwner> seen) {
        if (holder.equals(requester)) {
            return true;
        }
        if (!seen.add(holder)) {
            return false;
        }
        PendingLock p = waiting.get(holder);
        if (p == null) {
            return false;
        }
        FileLocks f = files.get(p.fileId());
        if (f == null) {
            return false;
        }
        for (ByteRangeLock l : f.granted) {
            if (l.blocks(p.request()) && wouldDeadlock(requester, l.owner(), seen)) {
                return true;
            }
        }
        return false;
    }
}
