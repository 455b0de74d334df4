package io.rdmagate.nfs.v4.state;

import static io.rdmagate.nfs.v4.Nfs4.*;

import io.rdmagate.nfs.NfsExports.Target;
import io.rdmagate.nfs.v4.Nfs4Exception;
import io.rdmagate.vfs.state.Conflict;
import io.rdmagate.vfs.state.Recall;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;

/**
 * The delegations the NFSv4.1 server handed out (RFC 8881 §10.2, §10.4), and their recall.
 *
 * <p>Operation: an OPEN for reading of a client whose back channel is up gets a read delegation
 * ({@link #grant}) unless the file is open for writing anywhere; an OPEN for writing gets a write
 * delegation unless anyone else has the file open or delegated; neither while the file is being
 * changed or was recalled a moment ago (a file that ping-pongs between clients gets none, as with
 * knfsd's recall filter). An operation that conflicts with one (any but a read for a read
 * delegation; any at all for a write delegation), of another NFSv4.1 client, an NFSv3 or NLM
 * client, an SMB client or a program on the host, recalls it through the volume's one state
 * ({@link #recall}): CB_RECALL goes to the holder, which writes back what it kept, and the
 * operation waits until the client's DELEGRETURN ({@link #giveBack}). A client that does not return it within a lease, or whose
 * callback path fails, or that denies knowing the delegation after two retries (a recall may
 * overtake the OPEN reply that granted it, §2.10.6.3), has it revoked: SEQUENCE then reports
 * SEQ4_STATUS_RECALLABLE_STATE_REVOKED until the client finds the stateid with TEST_STATEID and
 * frees it (FREE_STATEID). A revoked write delegation's client loses the writes it had not written
 * back: the lease is the time it has (§10.4.6), as with any server.
 *
 * <p>Stateids are this start's boot id and a counter with the top bit set, so they never name an
 * open or lock state. Thread-safe; no method holds the monitor while it calls elsewhere, so the
 * open and lock tables may call in while holding theirs.
 */
public final class Delegations {
    /** How delegations are recalled from clients. */
    public interface Recaller {
        /** Sends CB_RECALL for a delegation; completes with CB_COMPOUND's status, -1 when no reply came. */
        CompletableFuture<Integer> recall(Delegation d);

        /** Sends CB_RECALL_ANY: the client keeps at most {@code keep} delegations and returns the rest. */
        void recallAny(ClientRecord c, int keep);
    }

    /** How often a recall the client did not accept is sent again before the delegation is revoked. */
    static final int RECALL_RETRIES = 2;
    static final long RECALL_RETRY_MILLIS = 1000;
    /** A file recalled less than this ago gets no new delegation. */
    static final long QUIET_NANOS = TimeUnit.SECONDS.toNanos(30);
    /** CB_RECALL_ANY goes out at most this often while the table is three quarters full. */
    static final long RECALL_ANY_NANOS = TimeUnit.SECONDS.toNanos(10);
    /** Recently recalled files remembered at most. */
    private static final int RECENT_MAX = 4096;

    private final int bootId;
    private final int max;
    private final long leaseNanos;
    private final LongSupplier clock;
    private volatile Recaller recaller = new Recaller() {
        @Override
        public CompletableFuture<Integer> recall(Delegation d) {
            return CompletableFuture.completedFuture(-1);
        }

        @Override
        public void recallAny(ClientRecord c, int keep) {
        }
    };
    /** When CB_RECALL_ANY last went out; the table asks again no more often than {@link #RECALL_ANY_NANOS}. */
    private long recalledAny = Long.MIN_VALUE / 2;
    private long next = 1;
    private final Map<ByteBuffer, Delegation> byId = new HashMap<>();
    private final Map<Key, List<Delegation>> byFile = new HashMap<>();
    /** Revoked delegations, until their client frees them. */
    private final Map<ByteBuffer, Delegation> revoked = new HashMap<>();
    private final LinkedHashMap<Key, Long> recentlyRecalled = new LinkedHashMap<>() {
        @Override
        protected boolean removeEldestEntry(Map.Entry<Key, Long> e) {
            return size() > RECENT_MAX;
        }
    };
    private volatile int held;
    /** Write delegations held: reads recall only these, so while there are none a read costs one volatile read. */
    private volatile int writesHeld;
    private final LongAdder granted = new LongAdder();
    private final LongAdder recalls = new LongAdder();
    private final LongAdder returns = new LongAdder();
    private final LongAdder revocations = new LongAdder();
    private final LongAdder recallAnys = new LongAdder();

    /** A file of a volume, as the volume's one state names it. */
    private record Key(int volumeId, long fileId) {
        static Key of(Target t) {
            return new Key(t.handle().volumeId(), t.handle().fileId());
        }
    }

    /**
     * @param max        delegations held at most at once (0: none are handed out)
     * @param leaseNanos how long a recalled client has to return a delegation
     * @param clock      the server's time, in nanoseconds
     */
    public Delegations(int bootId, int max, long leaseNanos, LongSupplier clock) {
        this.bootId = bootId;
        this.max = max;
        this.leaseNanos = leaseNanos;
        this.clock = clock;
    }

    /** How recalls reach clients (the server wires its callback service in). */
    public void recaller(Recaller r) {
        this.recaller = r;
    }

    /** Whether any delegation is held: one volatile read. */
    public boolean any() {
        return held > 0;
    }

    public int held() {
        return held;
    }

    /** Write delegations held now. */
    public int writesHeld() {
        return writesHeld;
    }

    public long granted() {
        return granted.sum();
    }

    public long recalls() {
        return recalls.sum();
    }

    public long returns() {
        return returns.sum();
    }

    public long revocations() {
        return revocations.sum();
    }

    /** Times the filling table asked its clients to return delegations (CB_RECALL_ANY to each). */
    public long recallAnys() {
        return recallAnys.sum();
    }

    /**
     * A read delegation of {@code file} for {@code c}, or null when the table is full, the client
     * holds one of the file already or has revoked ones it did not free, one of the file is being
     * recalled, or the file was recalled a moment ago. The caller checks the rest of the file's state after this and {@link #withdraw}s
     * the delegation when that conflicts: a conflicting operation that started meanwhile finds it
     * here and recalls it.
     */
    public synchronized Delegation grant(ClientRecord c, Target file, int type) {
        if (held >= max || c.revokedDelegations > 0) {
            return null; // a client that has not freed what was revoked gets nothing new, so the revoked stay bounded
        }
        Key k = Key.of(file);
        Long recalled = recentlyRecalled.get(k);
        long now = clock.getAsLong();
        if (recalled != null) {
            if (now - recalled < QUIET_NANOS) {
                return null;
            }
            recentlyRecalled.remove(k);
        }
        List<Delegation> same = byFile.get(k);
        if (same != null) {
            for (Delegation d : same) {
                if (d.client == c || d.recalledAt != 0 || d.writes() || type == OPEN_DELEGATE_WRITE) {
                    return null; // a write delegation is the file's only one
                }
            }
        }
        byte[] other = new byte[STATEID_OTHER_SIZE];
        ByteBuffer.wrap(other).putInt(bootId).putLong(Long.MIN_VALUE | next++);
        Delegation d = new Delegation(other, c, file, type);
        byId.put(ByteBuffer.wrap(other), d);
        byFile.computeIfAbsent(k, x -> new ArrayList<>(1)).add(d);
        held++;
        if (d.writes()) {
            writesHeld++;
        }
        granted.increment();
        if (held >= max - max / 4 && now - recalledAny >= RECALL_ANY_NANOS) {
            recalledAny = now;
            askToReturnHalf();
        }
        return d;
    }

    /**
     * RFC 8881 §20.6 CB_RECALL_ANY, as the table fills: each client holding delegations is asked to
     * keep half of them and return the rest it uses least, before the table refuses new ones. Sent
     * on virtual threads; the client's DELEGRETURNs make the room.
     */
    private void askToReturnHalf() {
        Map<ClientRecord, Integer> perClient = new HashMap<>();
        for (Delegation d : byId.values()) {
            perClient.merge(d.client, 1, Integer::sum);
        }
        Recaller r = recaller;
        perClient.forEach((c, n) -> Thread.startVirtualThread(() -> r.recallAny(c, n / 2)));
        recallAnys.increment();
    }

    /** Takes back a delegation {@link #grant} handed out before its OPEN answered. */
    public void withdraw(Delegation d) {
        synchronized (this) {
            if (!remove(d)) {
                return;
            }
            granted.decrement();
        }
        d.ended.complete(null);
    }

    /** Whether {@code s} has the shape of a delegation stateid (not an open's or a lock's). */
    public static boolean isDelegation(Stateid s) {
        return ByteBuffer.wrap(s.other()).getLong(4) < 0 && !s.isSpecial(); // the all-ones stateid is READ bypass
    }

    /**
     * The delegation {@code s} names, held by {@code c} on {@code file}: NFS4ERR_DELEG_REVOKED when it
     * was revoked, NFS4ERR_BAD_STATEID when it is unknown, of another client or of another file,
     * NFS4ERR_STALE_STATEID when it is of an earlier start.
     */
    public synchronized Delegation find(Stateid s, ClientRecord c, Target file) throws Nfs4Exception {
        ByteBuffer id = ByteBuffer.wrap(s.other());
        Delegation d = byId.get(id);
        if (d == null) {
            if (revoked.containsKey(id)) {
                throw new Nfs4Exception(NFS4ERR_DELEG_REVOKED, "delegation " + s + " was revoked");
            }
            if (id.getInt(0) != bootId) {
                throw new Nfs4Exception(NFS4ERR_STALE_STATEID, "stateid " + s + " of an earlier start");
            }
            throw new Nfs4Exception(NFS4ERR_BAD_STATEID, "no delegation " + s);
        }
        if (d.client != c) {
            throw new Nfs4Exception(NFS4ERR_BAD_STATEID, "delegation " + s + " is of another client");
        }
        if (file != null && !Key.of(d.file).equals(Key.of(file))) {
            throw new Nfs4Exception(NFS4ERR_BAD_STATEID, "delegation " + s + " is of another file");
        }
        return d;
    }

    /** DELEGRETURN (RFC 8881 §18.6): the client gives the delegation back; whoever waited goes on. */
    public void giveBack(Stateid s, ClientRecord c, Target file) throws Nfs4Exception {
        Delegation d;
        synchronized (this) {
            d = find(s, c, file);
            remove(d);
            returns.increment();
        }
        d.ended.complete(null);
    }

    /** TEST_STATEID of a delegation stateid: NFS4_OK, or its error. */
    public int test(Stateid s, ClientRecord c) {
        try {
            find(s, c, null);
            return NFS4_OK;
        } catch (Nfs4Exception e) {
            return e.status();
        }
    }

    /**
     * FREE_STATEID of a delegation stateid: a revoked one is forgotten, and SEQUENCE stops reporting
     * it; one still held is NFS4ERR_LOCKS_HELD (DELEGRETURN ends those).
     */
    public synchronized void free(Stateid s, ClientRecord c) throws Nfs4Exception {
        Delegation d = revoked.get(ByteBuffer.wrap(s.other()));
        if (d != null && d.client == c) {
            revoked.remove(ByteBuffer.wrap(s.other()));
            c.revokedDelegations--;
            return;
        }
        find(s, c, null);
        throw new Nfs4Exception(NFS4ERR_LOCKS_HELD, "a held delegation is ended by DELEGRETURN");
    }

    /** A client that goes takes its delegations, held or revoked, with it. */
    public void dropClient(ClientRecord c) {
        List<Delegation> gone = new ArrayList<>();
        synchronized (this) {
            for (Delegation d : byId.values()) {
                if (d.client == c) {
                    gone.add(d);
                }
            }
            gone.forEach(this::remove);
            revoked.values().removeIf(d -> d.client == c);
            c.revokedDelegations = 0;
        }
        gone.forEach(d -> d.ended.complete(null));
    }

    /**
     * Recalls the delegations of the file that {@code conflict} makes untrue (a read, only write
     * delegations; anything else, every one) and that {@code breaker} does not hold itself; null
     * when there are none. A {@code generation} other than 0 leaves alone delegations of an earlier
     * file that had the same inode number. The returned recall resolves when each is returned, or revokes what is left once a
     * lease has passed since its recall.
     */
    public Recall recall(int volumeId, long fileId, long generation, Conflict conflict, ClientRecord breaker) {
        if (held == 0 || (conflict == Conflict.READ && writesHeld == 0)) {
            return null;
        }
        List<Delegation> waitFor = new ArrayList<>(1);
        List<Delegation> send = new ArrayList<>(1);
        Key k = new Key(volumeId, fileId);
        long now = clock.getAsLong();
        synchronized (this) {
            List<Delegation> same = byFile.get(k);
            if (same == null) {
                return null;
            }
            for (Delegation d : same) {
                if (d.client == breaker || (conflict == Conflict.READ && !d.writes())
                        || (generation != 0 && d.file.handle().generation() != generation)) {
                    continue;
                }
                waitFor.add(d);
                if (d.recalledAt == 0) {
                    d.recalledAt = now;
                    send.add(d);
                }
            }
            if (waitFor.isEmpty()) {
                return null;
            }
            recentlyRecalled.put(k, now);
        }
        for (Delegation d : send) {
            recalls.increment();
            sendRecall(d, RECALL_RETRIES);
        }
        return maxNanos -> settle(waitFor, maxNanos);
    }

    private void sendRecall(Delegation d, int retries) {
        recaller.recall(d).whenComplete((status, failure) -> {
            if (d.ended.isDone() || (failure == null && status == 0)) {
                return; // the client will return it (DELEGRETURN)
            }
            if (failure == null && status > 0 && retries > 0) {
                // the client may not have seen the OPEN reply that granted it yet (RFC 8881 §2.10.6.3)
                CompletableFuture.delayedExecutor(RECALL_RETRY_MILLIS, TimeUnit.MILLISECONDS)
                        .execute(() -> sendRecall(d, retries - 1));
                return;
            }
            revoke(d);
        });
    }

    private Recall.Outcome settle(List<Delegation> waitFor, long maxNanos) throws InterruptedException {
        CompletableFuture<Void> all = CompletableFuture.allOf(waitFor.stream().map(d -> d.ended)
                .toArray(CompletableFuture[]::new));
        long deadline = Long.MAX_VALUE;
        synchronized (this) {
            for (Delegation d : waitFor) {
                deadline = Math.min(deadline, d.recalledAt + leaseNanos);
            }
        }
        long left = deadline - clock.getAsLong();
        try {
            if (left > 0) {
                all.get(Math.min(left, maxNanos), TimeUnit.NANOSECONDS);
                return Recall.Outcome.ACKNOWLEDGED;
            }
        } catch (TimeoutException e) {
            if (left > maxNanos) {
                return Recall.Outcome.PENDING;
            }
        } catch (java.util.concurrent.ExecutionException e) {
            return Recall.Outcome.ACKNOWLEDGED; // never completed exceptionally
        }
        waitFor.forEach(this::revoke);
        return Recall.Outcome.TIMED_OUT;
    }

    /** Takes a delegation away from a client that did not return it (RFC 8881 §10.4.6 is gentler: this one is read-only). */
    void revoke(Delegation d) {
        synchronized (this) {
            if (!remove(d)) {
                return;
            }
            revoked.put(ByteBuffer.wrap(d.other), d);
            d.client.revokedDelegations++;
            revocations.increment();
        }
        d.ended.complete(null);
    }

    private boolean remove(Delegation d) {
        if (byId.remove(ByteBuffer.wrap(d.other)) == null) {
            return false;
        }
        Key k = Key.of(d.file);
        List<Delegation> same = byFile.get(k);
        if (same != null && same.remove(d) && same.isEmpty()) {
            byFile.remove(k);
        }
        held--;
        if (d.writes()) {
            writesHeld--;
        }
        return true;
    }

    /** Delegations of a client, held now (for tests and diagnostics). */
    public synchronized int heldBy(ClientRecord c) {
        int n = 0;
        for (Delegation d : byId.values()) {
            if (d.client == c) {
                n++;
            }
        }
        return n;
    }
}
