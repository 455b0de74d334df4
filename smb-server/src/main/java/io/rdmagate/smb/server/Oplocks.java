package io.rdmagate.smb.server;

import io.rdmagate.smb.mserref.NtStatus;
import io.rdmagate.smb.mssmb2.Smb2Create;
import io.rdmagate.smb.mssmb2.Smb2Lease;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * SMB2 oplocks and leases (MS-SMB2 3.3.5.9 grant, 3.3.5.9.8 lease request, 3.3.4.6 and 3.3.4.7
 * break notifications, 3.3.5.22.1 and 3.3.5.22.2 acknowledgments, 3.3.2.1 acknowledgment timer)
 * with the object store rules of MS-FSA 2.1.5.17 (grant) and 2.1.4.12 (when an operation breaks
 * another open's oplock or lease).
 *
 * <p>Oplock state lives on each {@link Open} ({@code oplockLevel}, {@code oplockState},
 * {@code breakingTo}), lease state on its {@link Lease}; both are guarded by the {@link OpenTable}'s
 * monitor, like the file's list of opens they are decided over. Notifications are collected under
 * the monitor and sent after it is released. A CREATE that must wait for an acknowledgment gets a
 * {@link Wait}; the waiter enforces the timer: once the deadline passes, the server lowers the
 * oplock or lease itself. Leases map onto oplocks as MS-FSA does: R is Level II, RW Exclusive,
 * RWH Batch; H breaks before the share check (so its holder may close), W after it.
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
    static final int LEASE = Smb2Create.OPLOCK_LEVEL_LEASE;
    static final int R = Smb2Lease.READ;
    static final int H = Smb2Lease.HANDLE;
    static final int W = Smb2Lease.WRITE;

    /** Access of a "stat open" (as Samba and smbtorture's smb2.lease.statopen4 define it): breaks and blocks nothing. */
    private static final int STAT_ACCESS = Access.FILE_READ_ATTRIBUTES | Access.FILE_WRITE_ATTRIBUTES | Access.SYNCHRONIZE
            | Access.READ_CONTROL;

    /** Whether an open stands in the way of an exclusive grant: a stat open without an oplock or lease does not. */
    private static boolean counts(Open e) {
        return (e.access() & ~STAT_ACCESS) != 0 || e.oplockLevel != NONE;
    }

    private final OpenTable table;
    private volatile java.util.function.Consumer<Open> disconnected = o -> { };
    private final long timeoutNanos;
    /** MS-SMB2 3.3.1.4 LeaseTable, all clients, by client GUID and lease key. */
    private final Map<String, Lease> leases = new HashMap<>();

    Oplocks(OpenTable table, java.time.Duration timeout) {
        this.table = table;
        this.timeoutNanos = timeout.toNanos();
    }

    /**
     * What a CREATE asks for: the oplock level (LEASE with a lease request), access, sharing and
     * disposition, and the client GUID that scopes lease keys.
     */
    public record Request(int level, int access, int share, int disposition, boolean deleteOnClose, byte[] clientGuid,
            io.rdmagate.smb.mssmb2.Smb2Lease.Request lease) {
        /** Whether the open asks for write caching: an Exclusive or Batch oplock, or a lease with W. */
        boolean asksWrite() {
            return level == EXCLUSIVE || level == BATCH || level == LEASE && lease != null && (lease.state() & W) != 0;
        }

        /** MS-FSA 2.1.5.1.2: an open for attributes only that does not overwrite breaks nothing. */
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

        String leaseId() {
            return lease == null ? null : HexFormat.of().formatHex(clientGuid) + "/" + HexFormat.of().formatHex(lease.key());
        }
    }

    /** A break the CREATE must see resolved before it goes on: the holder (an Open or a Lease), and when the server gives up. */
    public record Wait(Object holder, CompletableFuture<Void> done, long deadlineNanos) {
    }

    /** A notification to send once the table's monitor is released: an oplock break or a lease break. */
    record Notice(Open open, int level, Lease lease, int epoch, int flags, int from, int to) {
        static Notice oplock(Open o, int level) {
            return new Notice(o, level, null, 0, 0, 0, 0);
        }
    }

    /** What the grant gave a CREATE: the oplock level, and for a lease its state, flags and epoch. */
    public record Grant(int level, Lease lease, int leaseState, int leaseFlags, int epoch) {
    }

    // ---- under the table's monitor ----

    /** MS-SMB2 3.3.5.9.8: a lease key names one file; reusing it for another is STATUS_INVALID_PARAMETER. */
    Lease ownLease(Request r, int volume, long fileId) throws SmbException {
        if (r.lease() == null) {
            return null;
        }
        Lease l = leases.get(r.leaseId());
        if (l != null && (l.file.volumeId != volume || l.file.fileId != fileId)) {
            throw new SmbException(NtStatus.INVALID_PARAMETER, "lease key is in use on another file");
        }
        return l;
    }

    /**
     * MS-FSA 2.1.5.1.2: Batch oplocks of other opens break before the share access check, so that
     * their holder may close and let this open in; so do the H of other leases when sharing or an
     * overwrite conflicts with their opens. A break already in progress is waited for too.
     */
    Wait beforeShareCheck(FileState f, Request r, Lease own, List<Notice> out) {
        if (r.breaksNothing()) {
            return null;
        }
        for (Open e : f.opens) {
            if (e.lease != null) {
                Lease l = e.lease;
                if (l == own) {
                    continue;
                }
                if (l.breaking && l.breakDone != null) {
                    return wait(l);
                }
                // MS-FSA 2.1.5.1.2: H goes when sharing conflicts, the file is overwritten or opened to be deleted
                if ((l.state & H) != 0 && (r.overwrites() || r.deleteOnClose()
                        || !OpenTable.compatible(e, r.access(), r.share()))) {
                    Wait w = startLeaseBreak(l, r.overwrites() ? NONE : l.state & ~H & ~W, out);
                    if (w != null) {
                        return w;
                    }
                }
                continue;
            }
            if (e.oplockState == STATE_BREAKING && e.oplockLevel != LEVEL_II) {
                return wait(e);
            }
            if (e.oplockLevel == BATCH && e.oplockState == STATE_HELD) {
                return startBreak(e, r.breakTo(), out);
            }
        }
        return null;
    }

    /**
     * MS-FSA 2.1.5.1.2: once sharing allows the open, an Exclusive oplock of another open breaks,
     * and the W of another lease; an overwrite breaks Level II oplocks and R leases to none.
     */
    Wait afterShareCheck(FileState f, Request r, Lease own, List<Notice> out) {
        if (r.breaksNothing()) {
            return null;
        }
        for (Open e : f.opens) {
            if (e.lease != null) {
                Lease l = e.lease;
                if (l == own || l.breaking) {
                    continue;
                }
                if ((l.state & W) != 0 || r.overwrites() && l.state != 0) {
                    Wait w = startLeaseBreak(l, r.overwrites() ? NONE : l.state & ~W, out);
                    if (w != null) {
                        return w;
                    }
                }
                continue;
            }
            if (e.oplockLevel == EXCLUSIVE && e.oplockState == STATE_HELD) {
                return startBreak(e, r.breakTo(), out);
            }
        }
        if (r.overwrites()) {
            breakLevelIILocked(f, null, out); // MS-FSA 2.1.4.12: an overwrite breaks Level II to none
        }
        return null;
    }

    /**
     * MS-FSA 2.1.5.17 as Windows and Samba apply it: directories get none; Batch or Exclusive only
     * to the sole open of the file; Level II beside other opens unless one still holds an exclusive
     * kind of oplock (an attributes-only open that broke nothing). A lease gets R, RH, RW or RWH
     * (other combinations get nothing), W only without opens of other keys; an open with a known
     * key shares its lease, which may be upgraded but never lowered by an open.
     *
     * <p>{@code allowed} is what the rest of the volume's state lets SMB cache at all (R, H, W):
     * nothing while another protocol changes the file, no W while another protocol holds
     * byte-range locks on it (its locks must be seen by this client's lock requests).
     */
    Grant grant(FileState f, Request r, Lease own, boolean directory, int allowed) {
        int want = r.level();
        if (want == LEASE) {
            if (r.lease() == null || directory) {
                return new Grant(NONE, null, 0, 0, 0);
            }
            return grantLease(f, r, own, allowed);
        }
        if (directory || allowed == 0 || want != LEVEL_II && want != EXCLUSIVE && want != BATCH) {
            return new Grant(NONE, null, 0, 0, 0);
        }
        if ((allowed & W) == 0) {
            want = LEVEL_II;
        }
        boolean others = false;
        for (Open e : f.opens) {
            others |= counts(e);
            if (e.oplockLevel == EXCLUSIVE || e.oplockLevel == BATCH || e.lease != null && (e.lease.state & W) != 0) {
                return new Grant(NONE, null, 0, 0, 0); // only an attributes-only open gets here without breaking it
            }
        }
        return new Grant(others ? LEVEL_II : want, null, 0, 0, 0);
    }

    private Grant grantLease(FileState f, Request r, Lease own, int allowed) {
        int want = r.lease().state() & (R | H | W) & allowed;
        if (want != R && want != (R | H) && want != (R | W) && want != (R | H | W)) {
            want = 0; // MS-FSA 2.1.5.17.2: H or W without R is not a valid request
        }
        boolean others = false;
        boolean exclusiveElsewhere = false;
        for (Open e : f.opens) {
            if (own != null && e.lease == own) {
                continue;
            }
            others |= counts(e);
            if (e.oplockLevel == EXCLUSIVE || e.oplockLevel == BATCH
                    || e.lease != null && (e.lease.state & W) != 0) {
                exclusiveElsewhere = true; // only an attributes-only open gets here without breaking it
            }
        }
        int grant = exclusiveElsewhere ? 0 : others ? want & ~W : want;
        Lease l = own;
        if (l == null) {
            l = new Lease(r.leaseId(), r.lease().key(), f, r.lease().version(), r.lease().parentKey(), r.lease().epoch());
            l.state = grant;
            if (l.version == 2 && grant != 0) {
                l.epoch++;
            }
            leases.put(l.id, l);
        } else if (!l.breaking && want == grant && (want & l.state) == l.state && want != l.state) {
            // MS-SMB2 3.3.5.9.8: an upgrade happens only to a valid strict superset that can be held as asked
            l.state = want;
            if (l.version == 2) {
                l.epoch++;
            }
        }
        if ((l.state & R) != 0) {
            f.levelII = true;
        }
        return new Grant(LEASE, l, l.state, l.breaking ? Smb2Lease.FLAG_BREAK_IN_PROGRESS : 0, l.epoch);
    }

    /** Attaches a new open to the lease the grant gave it. */
    static void attach(Open o, Grant g) {
        if (g.lease() != null) {
            o.lease = g.lease();
            g.lease().opens.add(o);
            o.oplockLevel = LEASE;
            o.oplockState = STATE_HELD;
        } else {
            setLevel(o, g.level());
        }
    }

    private Wait startBreak(Open e, int to, List<Notice> out) {
        e.oplockState = STATE_BREAKING;
        e.breakingTo = to;
        e.breakDone = new CompletableFuture<>();
        e.breakDeadline = System.nanoTime() + timeoutNanos; // MS-SMB2 3.3.2.1: Oplock Break Acknowledgment Timer
        out.add(Notice.oplock(e, to));
        return wait(e);
    }

    /**
     * MS-SMB2 3.3.4.7: breaks a lease to {@code to} (H without R is none). A lease that caches only
     * reads breaks at once, needing no ack; otherwise it is breaking until acknowledged or timed out.
     */
    private Wait startLeaseBreak(Lease l, int to, List<Notice> out) {
        if ((to & R) == 0) {
            to = NONE;
        }
        if (to == l.state || l.breaking) {
            return null;
        }
        int from = l.state;
        if (l.version == 2) {
            l.epoch++;
        }
        boolean ack = (from & (W | H)) != 0;
        out.add(new Notice(l.opens.isEmpty() ? null : l.opens.getFirst(), 0, l, l.version == 2 ? l.epoch : 0,
                ack ? Smb2Lease.NOTIFY_ACK_REQUIRED : 0, from, to));
        if (!ack) {
            l.state = to;
            return null;
        }
        l.breaking = true;
        l.breakTo = to;
        l.breakDone = new CompletableFuture<>();
        l.breakDeadline = System.nanoTime() + timeoutNanos; // MS-SMB2 3.3.2: Lease Break Acknowledgment Timer
        return wait(l);
    }

    private static Wait wait(Open e) {
        return new Wait(e, e.breakDone, e.breakDeadline);
    }

    private static Wait wait(Lease l) {
        return new Wait(l, l.breakDone, l.breakDeadline);
    }

    /**
     * MS-FSA 2.1.4.12 for an operation of another protocol (NFSv3, NLM) on the file: starts every
     * break that {@code c} calls for at once, so their acknowledgment timers run together, and
     * returns one of them to wait for (a break already under way counts), or null when nothing
     * left needs an acknowledgment. A read leaves R and Level II and takes W (Exclusive and Batch
     * drop to Level II); a rename or remove takes H (Batch drops to Level II); a write takes
     * everything; a lock takes everything, as a byte-range lock breaks Level II (MS-FSA 2.1.5.7).
     */
    Wait breakFor(FileState f, io.rdmagate.vfs.state.Conflict c, List<Notice> out) {
        Wait first = null;
        for (Open e : f.opens) {
            Wait w;
            if (e.lease != null) {
                Lease l = e.lease;
                if (l.breaking && l.breakDone != null) {
                    w = wait(l);
                } else {
                    int to = switch (c) {
                        case READ -> l.state & ~W;
                        case NAMESPACE -> l.state & ~H;
                        case WRITE, LOCK -> NONE;
                    };
                    w = to == l.state ? null : startLeaseBreak(l, to, out);
                }
            } else if (e.oplockState == STATE_BREAKING && e.oplockLevel != LEVEL_II) {
                w = wait(e);
            } else if (e.oplockState != STATE_HELD) {
                w = null;
            } else if (e.oplockLevel == LEVEL_II) {
                w = null;
                if (c == io.rdmagate.vfs.state.Conflict.WRITE || c == io.rdmagate.vfs.state.Conflict.LOCK) {
                    setLevel(e, NONE); // MS-SMB2 3.3.4.6: a break from Level II needs no acknowledgment
                    out.add(Notice.oplock(e, NONE));
                }
            } else {
                boolean keepsLevelII = c == io.rdmagate.vfs.state.Conflict.READ
                        || c == io.rdmagate.vfs.state.Conflict.NAMESPACE && e.oplockLevel == BATCH;
                w = c == io.rdmagate.vfs.state.Conflict.NAMESPACE && e.oplockLevel != BATCH ? null
                        : startBreak(e, keepsLevelII ? LEVEL_II : NONE, out);
            }
            if (first == null) {
                first = w;
            }
        }
        if (c == io.rdmagate.vfs.state.Conflict.WRITE || c == io.rdmagate.vfs.state.Conflict.LOCK) {
            f.levelII = false;
        }
        return first;
    }

    /** Level II oplocks of the file, and R leases other than {@code except}, break to none without waiting. */
    private void breakLevelIILocked(FileState f, Lease except, List<Notice> out) {
        f.levelII = false;
        for (Open e : f.opens) {
            if (e.oplockLevel == LEVEL_II) {
                // MS-SMB2 3.3.4.6: a break from Level II needs no acknowledgment
                setLevel(e, NONE);
                out.add(Notice.oplock(e, NONE));
            } else if (e.lease != null && e.lease != except && !e.lease.breaking && (e.lease.state & R) != 0) {
                startLeaseBreak(e.lease, NONE, out);
            } else if (e.lease != null && e.lease == except && (e.lease.state & R) != 0) {
                f.levelII = true; // the writer's own lease stays
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

    private static void setLease(Lease l, int state) {
        l.state = state;
        l.breaking = false;
        l.breakTo = NONE;
        CompletableFuture<Void> d = l.breakDone;
        l.breakDone = null;
        if (d != null) {
            d.complete(null);
        }
    }

    /** The RqLs response context for an open's lease as it is now (MS-SMB2 2.2.14.2.10/11), or null. */
    public java.nio.ByteBuffer leaseResponse(Open o) {
        synchronized (table) {
            Lease l = o.lease;
            if (l == null) {
                return null;
            }
            return Smb2Lease.response(l.version, l.key, l.state, l.breaking ? Smb2Lease.FLAG_BREAK_IN_PROGRESS : 0,
                    l.parentKey, l.epoch);
        }
    }

    /** Whether a break of the open's oplock or lease waits for an acknowledgment. */
    public boolean breaking(Open o) {
        synchronized (table) {
            Lease l = o.lease;
            return o.oplockState == STATE_BREAKING || l != null && l.breaking;
        }
    }

    /** Where breaks that cannot be delivered go: the server closes a disconnected durable open. */
    void onDisconnected(java.util.function.Consumer<Open> closer) {
        this.disconnected = closer;
    }

    /**
     * Sends collected notifications; call without holding the table's monitor. A break meant for a
     * durable open that lost its connection cannot be delivered: that open is closed instead, and
     * with it the break it held up. A lease's break goes to any of its opens still connected.
     */
    void send(List<Notice> notices) {
        for (Notice n : notices) {
            Open to = n.open();
            if (to == null) {
                continue;
            }
            if (n.lease() == null) {
                SmbConnection c = to.conn;
                if (c == null || to.isDurable() && !c.isOpen()) {
                    disconnected.accept(to); // lost, or its connection is closing and the loss not yet handled
                } else {
                    c.sendOplockBreak(to, n.level());
                }
                continue;
            }
            Open connected = connectedOpen(n.lease());
            if (connected == null) {
                for (Open o : leaseOpens(n.lease())) {
                    disconnected.accept(o);
                }
            } else {
                connected.conn.sendLeaseBreak(connected, Smb2Lease.breakNotification(n.epoch(), n.flags(),
                        n.lease().key, n.from(), n.to()));
            }
        }
    }

    private Open connectedOpen(Lease l) {
        synchronized (table) {
            for (Open o : l.opens) {
                if (o.conn != null && (o.conn.isOpen() || !o.isDurable())) {
                    return o;
                }
            }
            return null;
        }
    }

    private List<Open> leaseOpens(Lease l) {
        synchronized (table) {
            return new ArrayList<>(l.opens);
        }
    }

    // ---- entry points ----

    /**
     * MS-FSA 2.1.4.12: WRITE, SET_INFO of end of file or allocation, and LOCK break every Level II
     * oplock of the file (the caller's own too) and every R lease of another key to none, without waiting.
     */
    public void breakLevelII(Open o) {
        FileState f = o.file;
        if (f == null || !f.levelII) {
            return; // the hot path (WRITE) pays one volatile read when nothing caches reads
        }
        List<Notice> out = new ArrayList<>(2);
        synchronized (table) {
            breakLevelIILocked(f, o.lease, out);
        }
        send(out);
    }

    /** MS-SMB2 3.3.5.22.1: the client acknowledges an oplock break; returns the level the open now has. */
    public int acknowledge(Open o, int level) throws SmbException {
        synchronized (table) {
            if (o.oplockLevel == NONE || o.lease != null) {
                // nothing is held (never granted, broken from Level II, or lowered by the timer): Windows and
                // Samba answer STATUS_INVALID_OPLOCK_PROTOCOL, as smbtorture's smb2.oplock.levelii500 checks
                throw new SmbException(NtStatus.INVALID_OPLOCK_PROTOCOL, "no oplock is held on " + o.fileId());
            }
            if (o.oplockState != STATE_BREAKING) {
                throw new SmbException(NtStatus.INVALID_DEVICE_STATE, "no oplock break is outstanding on " + o.fileId());
            }
            if (level == LEASE) {
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

    /**
     * MS-SMB2 3.3.5.22.2: the client acknowledges a lease break. An unknown key is
     * STATUS_OBJECT_NAME_NOT_FOUND, a lease not breaking STATUS_UNSUCCESSFUL, a state beyond what
     * the break allows STATUS_REQUEST_NOT_ACCEPTED. Returns the lease's new state.
     */
    public int acknowledgeLease(byte[] clientGuid, byte[] key, int state) throws SmbException {
        String id = HexFormat.of().formatHex(clientGuid) + "/" + HexFormat.of().formatHex(key);
        synchronized (table) {
            Lease l = leases.get(id);
            if (l == null) {
                throw new SmbException(NtStatus.OBJECT_NAME_NOT_FOUND, "no lease " + id);
            }
            if (!l.breaking) {
                throw new SmbException(NtStatus.UNSUCCESSFUL, "lease " + id + " is not breaking");
            }
            if ((state & ~l.breakTo) != 0) {
                throw new SmbException(NtStatus.REQUEST_NOT_ACCEPTED, "lease acknowledged to 0x" + Integer.toHexString(state)
                        + " above 0x" + Integer.toHexString(l.breakTo));
            }
            setLease(l, state);
            return state;
        }
    }

    /** CLOSE of an open ends any break waiting on it; the last open of a lease ends the lease. */
    void closed(Open o) {
        synchronized (table) {
            Lease l = o.lease;
            if (l != null) {
                l.opens.remove(o);
                if (l.opens.isEmpty()) {
                    leases.remove(l.id, l);
                    setLease(l, NONE);
                }
                o.lease = null;
            }
            setLevel(o, NONE);
        }
    }

    /**
     * Waits up to {@code maxNanos} for the break to resolve. Returns true once it has: acknowledged,
     * the holder closed, or the deadline passed, in which case the server lowers the oplock or the
     * lease itself to none (MS-SMB2 3.3.2: the Oplock and Lease Break Acknowledgment Timers).
     */
    public boolean await(Wait w, long maxNanos) throws InterruptedException {
        return settle(w, maxNanos) != io.rdmagate.vfs.state.Recall.Outcome.PENDING;
    }

    /** {@link #await}, telling an acknowledgment (or close) from the timer's expiry. */
    io.rdmagate.vfs.state.Recall.Outcome settle(Wait w, long maxNanos) throws InterruptedException {
        long left = w.deadlineNanos() - System.nanoTime();
        try {
            w.done().get(Math.max(0, Math.min(left, maxNanos)), TimeUnit.NANOSECONDS);
            return io.rdmagate.vfs.state.Recall.Outcome.ACKNOWLEDGED;
        } catch (TimeoutException e) {
            if (w.deadlineNanos() - System.nanoTime() > 0) {
                return io.rdmagate.vfs.state.Recall.Outcome.PENDING;
            }
            synchronized (table) {
                if (w.holder() instanceof Open o && o.breakDone == w.done()) {
                    setLevel(o, NONE);
                } else if (w.holder() instanceof Lease l && l.breakDone == w.done()) {
                    setLease(l, NONE); // the Lease Break Acknowledgment Timer expired: the lease is lost
                } else {
                    return io.rdmagate.vfs.state.Recall.Outcome.ACKNOWLEDGED; // resolved as the timer ran out
                }
            }
            return io.rdmagate.vfs.state.Recall.Outcome.TIMED_OUT;
        } catch (ExecutionException e) {
            return io.rdmagate.vfs.state.Recall.Outcome.ACKNOWLEDGED;
        }
    }

    public long timeoutNanos() {
        return timeoutNanos;
    }
}
