package io.rdmagate.smb.server;

import io.rdmagate.smb.mserref.NtStatus;
import io.rdmagate.smb.mssmb2.Smb2Create;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * SMB2 oplocks (MS-SMB2 3.3.5.9 grant, 3.3.4.6 break notification, 3.3.5.22.1 acknowledgment,
 * 3.3.2.1 acknowledgment timer) with the object store rules of MS-FSA 2.1.5.17 (grant) and
 * 2.1.4.12 (when an operation breaks another open's oplock).
 *
 * <p>The state lives on each {@link Open} ({@code oplockLevel}, {@code oplockState},
 * {@code breakingTo}) and is guarded by the {@link OpenTable}'s monitor, like the file's list of
 * opens it is decided over. Break notifications are collected under the monitor and sent after it
 * is released. A CREATE that must wait for an acknowledgment gets a {@link Wait}; the waiter
 * enforces the timer: once the deadline passes, the server lowers the oplock itself.
 */
public final class Oplocks {
    /** Open.OplockState (MS-SMB2 3.3.1.10). */
    static final int STATE_NONE = 0;
    static final int STATE_HELD = 1;
    static final int STATE_BREAKING = 2;

    static final int NONE = Smb2Create.OPLOCK_LEVEL_NONE;
    static final int LEVEL_II = Smb2Create.OPLOCK_LEVEL_II;
    static final int EXCLUSIVE = Smb2Create.OPLOCK_LEVEL_EXCLUSIVE;
    static final int BATCH = Smb2Create.OPLOCK_LEVEL_BATCH;

    private static final int STAT_ACCESS = Access.FILE_READ_ATTRIBUTES | Access.FILE_WRITE_ATTRIBUTES | Access.SYNCHRONIZE;

    private final OpenTable table;
    private final long timeoutNanos;

    Oplocks(OpenTable table, java.time.Duration timeout) {
        this.table = table;
        this.timeoutNanos = timeout.toNanos();
    }

    /** What a CREATE asks for, as far as oplocks go. */
    public record Request(int level, int access, int disposition) {
        /** MS-FSA 2.1.5.1.2: an open for attributes only that does not overwrite breaks no oplock. */
        boolean breaksNothing() {
            return (access & ~STAT_ACCESS) == 0 && !overwrites();
        }

        boolean overwrites() {
            return disposition == Smb2Create.FILE_SUPERSEDE || disposition == Smb2Create.FILE_OVERWRITE
                    || disposition == Smb2Create.FILE_OVERWRITE_IF;
        }

        /** MS-FSA 2.1.4.12: an overwrite leaves the holder nothing to cache; other opens leave it Level II. */
        int breakTo() {
            return overwrites() ? NONE : LEVEL_II;
        }
    }

    /** A break the CREATE must see resolved before it goes on: the holder, and when the server gives up. */
    public record Wait(Open holder, CompletableFuture<Void> done, long deadlineNanos) {
    }

    /** A notification to send once the table's monitor is released. */
    record Notice(Open open, int level) {
    }

    // ---- under the table's monitor ----

    /**
     * MS-FSA 2.1.5.1.2: Batch oplocks of other opens break before the share access check, so that
     * their holder may close and let this open in. A break already in progress is waited for too.
     */
    Wait beforeShareCheck(FileState f, Request r, List<Notice> out) {
        if (r.breaksNothing()) {
            return null;
        }
        for (Open e : f.opens) {
            if (e.oplockState == STATE_BREAKING && e.oplockLevel != LEVEL_II) {
                return wait(e);
            }
            if (e.oplockLevel == BATCH && e.oplockState == STATE_HELD) {
                return startBreak(e, r.breakTo(), out);
            }
        }
        return null;
    }

    /** MS-FSA 2.1.5.1.2: once sharing allows the open, an Exclusive oplock of another open breaks. */
    Wait afterShareCheck(FileState f, Request r, List<Notice> out) {
        if (r.breaksNothing()) {
            return null;
        }
        for (Open e : f.opens) {
            if (e.oplockLevel == EXCLUSIVE && e.oplockState == STATE_HELD) {
                return startBreak(e, r.breakTo(), out);
            }
        }
        if (r.overwrites()) {
            breakLevelIILocked(f, out); // MS-FSA 2.1.4.12: an overwrite breaks Level II to none
        }
        return null;
    }

    /**
     * MS-FSA 2.1.5.17 as Windows and Samba apply it: directories get none; Batch or Exclusive only
     * to the sole open of the file; Level II beside other opens unless one still holds an
     * exclusive kind of oplock (an attributes-only open that broke nothing).
     */
    int grant(FileState f, Request r, boolean directory) {
        int want = r.level();
        if (directory || f == null || want != LEVEL_II && want != EXCLUSIVE && want != BATCH) {
            return NONE;
        }
        boolean others = false;
        for (Open e : f.opens) {
            others = true;
            if (e.oplockLevel == EXCLUSIVE || e.oplockLevel == BATCH) {
                return NONE;
            }
        }
        return others ? LEVEL_II : want;
    }

    private Wait startBreak(Open e, int to, List<Notice> out) {
        e.oplockState = STATE_BREAKING;
        e.breakingTo = to;
        e.breakDone = new CompletableFuture<>();
        e.breakDeadline = System.nanoTime() + timeoutNanos; // MS-SMB2 3.3.2.1: Oplock Break Acknowledgment Timer
        out.add(new Notice(e, to));
        return wait(e);
    }

    private static Wait wait(Open e) {
        return new Wait(e, e.breakDone, e.breakDeadline);
    }

    private static void breakLevelIILocked(FileState f, List<Notice> out) {
        f.levelII = false;
        for (Open e : f.opens) {
            if (e.oplockLevel == LEVEL_II) {
                // MS-SMB2 3.3.4.6: a break from Level II needs no acknowledgment
                setLevel(e, NONE);
                out.add(new Notice(e, NONE));
            }
        }
    }

    static void setLevel(Open e, int level) {
        e.oplockLevel = level;
        if (level == LEVEL_II && e.file != null) {
            e.file.levelII = true;
        }
        e.oplockState = level == NONE ? STATE_NONE : STATE_HELD;
        e.breakingTo = NONE;
        CompletableFuture<Void> d = e.breakDone;
        e.breakDone = null;
        if (d != null) {
            d.complete(null);
        }
    }

    /** Sends collected notifications; call without holding the table's monitor. */
    static void send(List<Notice> notices) {
        for (Notice n : notices) {
            n.open().conn.sendOplockBreak(n.open(), n.level());
        }
    }

    // ---- entry points ----

    /**
     * MS-FSA 2.1.4.12: WRITE, SET_INFO of end of file or allocation, and LOCK break every Level II
     * oplock of the file (the caller's own too) to none, without waiting.
     */
    public void breakLevelII(Open o) {
        FileState f = o.file;
        if (f == null || !f.levelII) {
            return; // the hot path (WRITE) pays one volatile read when no Level II was granted
        }
        List<Notice> out = new ArrayList<>(2);
        synchronized (table) {
            breakLevelIILocked(f, out);
        }
        send(out);
    }

    /** MS-SMB2 3.3.5.22.1: the client acknowledges a break; returns the level the open now has. */
    public int acknowledge(Open o, int level) throws SmbException {
        synchronized (table) {
            if (o.oplockLevel == NONE) {
                // nothing is held (never granted, broken from Level II, or lowered by the timer): Windows and
                // Samba answer STATUS_INVALID_OPLOCK_PROTOCOL, as smbtorture's smb2.oplock.levelii500 checks
                throw new SmbException(NtStatus.INVALID_OPLOCK_PROTOCOL, "no oplock is held on " + o.fileId());
            }
            if (o.oplockState != STATE_BREAKING) {
                throw new SmbException(NtStatus.INVALID_DEVICE_STATE, "no oplock break is outstanding on " + o.fileId());
            }
            if (level == Smb2Create.OPLOCK_LEVEL_LEASE) {
                setLevel(o, NONE);
                throw new SmbException(NtStatus.INVALID_PARAMETER, "oplock acknowledged with the lease level");
            }
            if (level != NONE && level != LEVEL_II) {
                setLevel(o, NONE);
                throw new SmbException(NtStatus.INVALID_OPLOCK_PROTOCOL, "oplock acknowledged to level " + level);
            }
            // a break to none acknowledged to Level II still ends at none (as Samba does)
            int now = level == LEVEL_II && o.breakingTo == LEVEL_II ? LEVEL_II : NONE;
            setLevel(o, now);
            return now;
        }
    }

    /** CLOSE of an open ends any break waiting on it. */
    void closed(Open o) {
        synchronized (table) {
            setLevel(o, NONE);
        }
    }

    /**
     * Waits up to {@code maxNanos} for the break to resolve. Returns true once it has: acknowledged,
     * the holder closed, or the deadline passed, in which case the server lowers the oplock itself
     * (MS-SMB2 3.3.2.1: Open.OplockLevel becomes none).
     */
    public boolean await(Wait w, long maxNanos) throws InterruptedException {
        long left = w.deadlineNanos() - System.nanoTime();
        try {
            w.done().get(Math.max(0, Math.min(left, maxNanos)), TimeUnit.NANOSECONDS);
            return true;
        } catch (TimeoutException e) {
            if (w.deadlineNanos() - System.nanoTime() > 0) {
                return false;
            }
            synchronized (table) {
                if (w.holder().breakDone == w.done()) {
                    setLevel(w.holder(), NONE);
                }
            }
            return true;
        } catch (ExecutionException e) {
            return true;
        }
    }

    public long timeoutNanos() {
        return timeoutNanos;
    }
}
