package io.rdmagate.vfs.state;

import io.rdmagate.vfs.FileHandle;
import io.rdmagate.vfs.VfsError;
import io.rdmagate.vfs.VfsException;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.LongAdder;

/**
 * The one state of a volume that every protocol answers to (DESIGN.md, "One state under every
 * protocol"): byte-range locks live in the volume's {@link io.rdmagate.vfs.lock.LockManager}; the
 * opens of every protocol with their share modes in its {@link ShareReservations}; protocols whose
 * clients cache (SMB leases and oplocks, NFSv4 delegations) register here as {@link CacheHolder}s,
 * so that an operation of another protocol (NFSv3, NLM, or the other of SMB and NFSv4) first is
 * refused what an open denies and recalls what they cache.
 *
 * <p>Operation: an NFSv3 WRITE calls {@link #begin} with {@link Conflict#WRITE}. An open that
 * denies writing refuses it ({@link VfsError#SHARING_VIOLATION}); then each holder is asked to
 * break what conflicts, and the caller waits for each break to be acknowledged, at most for the holder's
 * own acknowledgment timer (a dead client cannot stall the write beyond it). Until the caller's
 * {@link #end}, the file counts as {@link #changing}, and holders grant no new caching of it, as
 * the kernel grants no lease on a file open for writing. Not garbage-producing while no holder
 * holds anything: one volatile read per holder, two atomic adds for a change.
 *
 * <p>Changes nobody announces (a program on the host writes the file, a second gateway over the
 * same directory) reach the holders too: a holder says which files its clients cache
 * ({@link #cached}, {@link #uncached}), the volume's {@link ForeignChanges} watches them, and each
 * foreign change recalls what it makes untrue, without waiting (it has happened already).
 *
 * <p>{@link #begin} may wait for a client's acknowledgment: call it from a virtual thread (as the
 * NFS and NLM procedures run), never from an event loop or a completion handler.
 */
public final class FileStates {
    /**
     * Stripes of {@link #changing}: a file whose stripe another file's change shares is granted no
     * caching meanwhile, which is harmless but needless; 2^16 stripes (256 KiB a volume) make that
     * about one CREATE in 65,000 per change in flight.
     */
    private static final int STRIPE_BITS = 16;
    /** A holder asked to break again and again (clients re-caching in between) is waited for this many times at most. */
    private static final int MAX_ROUNDS = 4;

    private final int volumeId;
    private volatile CacheHolder[] holders = new CacheHolder[0];
    /** Operations that change a file in progress, by stripe of the file id (a shared stripe only withholds caching longer). */
    private final AtomicIntegerArray changing = new AtomicIntegerArray(1 << STRIPE_BITS);
    private final LongAdder[] recalls = new LongAdder[Conflict.values().length];
    private final LongAdder timeouts = new LongAdder();
    private final LongAdder waitNanos = new LongAdder();
    private final LongAdder denied = new LongAdder();
    private final ShareReservations shares = new ShareReservations();
    private final ForeignChanges foreign;
    private final LongAdder[] foreignRecalls = new LongAdder[Conflict.values().length];
    /** Files some holder caches, watched for foreign changes; guarded by itself. */
    private final Map<Long, Cached> cached = new HashMap<>();

    private static final class Cached {
        int holders;
        ForeignChanges.Watch watch;
    }

    /** A volume whose files change only through the gateway. */
    public FileStates(int volumeId) {
        this(volumeId, ForeignChanges.NONE);
    }

    public FileStates(int volumeId, ForeignChanges foreign) {
        this.volumeId = volumeId;
        this.foreign = foreign;
        for (int i = 0; i < recalls.length; i++) {
            recalls[i] = new LongAdder();
            foreignRecalls[i] = new LongAdder();
        }
    }

    /**
     * A holder's client caches {@code file} now: from here until the holder's matching
     * {@link #uncached}, changes that other processes make to it are recalled from the holders.
     */
    public void cached(FileHandle file) {
        synchronized (cached) {
            Cached c = cached.computeIfAbsent(file.fileId(), k -> new Cached());
            if (c.holders++ > 0) {
                return;
            }
        }
        ForeignChanges.Watch w;
        try {
            w = foreign.watch(file, conflict -> foreignChange(file.fileId(), conflict));
        } catch (VfsException gone) {
            w = () -> { };
        }
        synchronized (cached) {
            Cached c = cached.get(file.fileId());
            if (c != null && c.watch == null) {
                c.watch = w;
                return;
            }
        }
        w.close(); // uncached meanwhile
    }

    /** Ends one {@link #cached} of the file. */
    public void uncached(long fileId) {
        ForeignChanges.Watch w;
        synchronized (cached) {
            Cached c = cached.get(fileId);
            if (c == null || --c.holders > 0) {
                return;
            }
            cached.remove(fileId);
            w = c.watch;
        }
        if (w != null) {
            w.close();
        }
    }

    /** How the volume sees changes of other processes, and what it saw: a line for an operator. */
    public String foreignChangesStatus() {
        return foreign.status();
    }

    /** Files watched for foreign changes now. */
    public int cachedFiles() {
        synchronized (cached) {
            return cached.size();
        }
    }

    /** A foreign change names the watched inode: whatever is held under its number is recalled. */
    private void foreignChange(long fileId, Conflict conflict) {
        foreignRecalls[conflict.ordinal()].increment();
        for (CacheHolder h : holders) {
            if (h.holdsAnything()) {
                h.recall(volumeId, fileId, 0, conflict, null); // the change is done: breaks go out, nobody waits
            }
        }
    }

    /** Adds a holder; one already registered stays once. */
    public synchronized void register(CacheHolder h) {
        if (Arrays.asList(holders).contains(h)) {
            return;
        }
        CacheHolder[] a = Arrays.copyOf(holders, holders.length + 1);
        a[a.length - 1] = h;
        holders = a;
    }

    public synchronized void unregister(CacheHolder h) {
        holders = Arrays.stream(holders).filter(x -> x != h).toArray(CacheHolder[]::new);
    }

    /**
     * Before an operation on file {@code fileId} by a protocol that holds no state of its own:
     * refuses it when another protocol's open denies it, recalls what others cache and waits for
     * the recalls. Returns a token for {@link #end}, which the caller must call once the operation
     * is done (also when it failed).
     */
    public int begin(long fileId, Conflict conflict) throws VfsException {
        return begin(fileId, conflict, null);
    }

    /**
     * {@link #begin(long, Conflict)} for an operation of a protocol that holds state of its own:
     * {@code breaker} is a registered holder (whose own state is not consulted) or a client of one
     * (whose holder leaves that client's own opens and caching alone).
     */
    public int begin(long fileId, Conflict conflict, Object breaker) throws VfsException {
        return begin(fileId, 0, conflict, breaker);
    }

    /**
     * {@link #begin(long, Conflict, Object)} of a file by its handle: opens and caching of an earlier
     * file that had its inode number (removed while open) neither refuse it nor are recalled.
     */
    public int begin(FileHandle file, Conflict conflict, Object breaker) throws VfsException {
        return begin(file.fileId(), file.generation(), conflict, breaker);
    }

    private int begin(long fileId, long generation, Conflict conflict, Object breaker) throws VfsException {
        int stripe = -1;
        if (conflict.changes()) {
            stripe = stripe(fileId);
            changing.incrementAndGet(stripe);
        }
        boolean ok = false;
        try {
            int denial = conflict == Conflict.WRITE ? ShareReservations.WRITE
                    : conflict == Conflict.NAMESPACE ? ShareReservations.DELETE : 0;
            if (denial != 0 && shares.denies(fileId, generation, denial, breaker)) {
                denied.increment();
                throw new VfsException(VfsError.SHARING_VIOLATION, "an open of the file denies "
                        + (denial == ShareReservations.WRITE ? "writing" : "removal and rename") + " to others");
            }
            for (CacheHolder h : holders) {
                if (h != breaker && h.holdsAnything()) {
                    settle(h, fileId, generation, conflict, breaker);
                }
            }
            ok = true;
            return stripe;
        } finally {
            if (!ok) {
                end(stripe);
            }
        }
    }

    /** Whether any holder has any file open or cached, or an open denies anything: a volatile read per holder. */
    public boolean held() {
        if (shares.denying() != 0) {
            return true;
        }
        for (CacheHolder h : holders) {
            if (h.holdsAnything()) {
                return true;
            }
        }
        return false;
    }

    /** Whether a holder other than {@code self} has any file open or cached. */
    public boolean heldExcept(CacheHolder self) {
        for (CacheHolder h : holders) {
            if (h != self && h.holdsAnything()) {
                return true;
            }
        }
        return false;
    }

    /**
     * Whether a holder other than {@code self} has the file open (for writing, when
     * {@code forWriting}), or an operation that changes it is in progress: {@code self} grants no
     * read caching of a file open for writing then, and no write caching of a file open at all.
     */
    public boolean opened(FileHandle file, CacheHolder self, boolean forWriting) {
        int used = accessOfOthers(file, self);
        return forWriting ? (used & ShareReservations.WRITE) != 0 : used != 0;
    }

    /**
     * {@link #opened} for both questions at once: the {@link ShareReservations} access bits that
     * holders other than {@code self} use on the file, READ|WRITE while an operation that changes it
     * may be in progress, 0 when the file is free of both.
     */
    public int accessOfOthers(FileHandle file, CacheHolder self) {
        if (changing(file.fileId())) {
            return ShareReservations.READ | ShareReservations.WRITE;
        }
        return shares.accessOfOthers(file.fileId(), file.generation(), self);
    }

    /** The opens of every protocol with their share modes: where an open is granted or refused across protocols. */
    public ShareReservations shares() {
        return shares;
    }

    /** Ends what {@link #begin} started. */
    public void end(int token) {
        if (token >= 0) {
            changing.decrementAndGet(token);
        }
    }

    /** Whether an operation that changes the file may be in progress: holders grant no new caching of it then. */
    public boolean changing(long fileId) {
        return changing.get(stripe(fileId)) != 0;
    }

    private static int stripe(long fileId) {
        return (int) ((fileId * 0x9E3779B97F4A7C15L) >>> (64 - STRIPE_BITS));
    }

    private void settle(CacheHolder h, long fileId, long generation, Conflict conflict, Object breaker)
            throws VfsException {
        for (int round = 0; round < MAX_ROUNDS; round++) {
            Recall r = h.recall(volumeId, fileId, generation, conflict, breaker);
            if (r == null) {
                return;
            }
            recalls[conflict.ordinal()].increment();
            long t0 = System.nanoTime();
            try {
                Recall.Outcome o;
                do {
                    o = r.await(Long.MAX_VALUE);
                } while (o == Recall.Outcome.PENDING);
                if (o == Recall.Outcome.TIMED_OUT) {
                    timeouts.increment();
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new VfsException(VfsError.IO, "interrupted while a " + h.protocol() + " client was recalled");
            } finally {
                waitNanos.add(System.nanoTime() - t0);
            }
        }
    }

    /** Operations that waited for a break of another protocol's caching, by the kind of conflict. */
    public long recalls(Conflict c) {
        return recalls[c.ordinal()].sum();
    }

    /** Breaks that ended by the holder's acknowledgment timer, not by the client. */
    public long recallTimeouts() {
        return timeouts.sum();
    }

    /** Time operations spent waiting for breaks, in total. */
    public long recallWaitNanos() {
        return waitNanos.sum();
    }

    /** Changes by other processes to files that clients cached, by kind. */
    public long foreignChanges(Conflict c) {
        return foreignRecalls[c.ordinal()].sum();
    }

    /** Operations refused because another protocol's open denied them. */
    public long denied() {
        return denied.sum();
    }
}
