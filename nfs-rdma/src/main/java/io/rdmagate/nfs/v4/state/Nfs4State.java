package io.rdmagate.nfs.v4.state;

import static io.rdmagate.nfs.v4.Nfs4.*;

import io.rdmagate.nfs.NfsExports.Target;
import io.rdmagate.nfs.v4.Nfs4Exception;
import java.nio.ByteBuffer;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * The NFSv4.1 server's state (RFC 8881 §2.4, §2.10, §9): clients, their sessions and slot tables,
 * and the opens their open-owners hold. One object serves every transport (a session used over TCP
 * and over RDMA is the same session).
 *
 * <p>Operation: EXCHANGE_ID records a client unconfirmed ({@link #exchangeId}, the cases of
 * §18.35.5); its first CREATE_SESSION confirms it and replaces any earlier record of the same owner
 * ({@link #createSession}, whose sequence is checked and whose reply is replayed as §18.36.4 says).
 * SEQUENCE ({@link #sequence}) checks the slot's sequence id (§2.10.6.1): a new request takes the slot
 * until {@link #finish} stores its reply, a retry gets the stored reply, anything else
 * NFS4ERR_SEQ_MISORDERED. Each SEQUENCE renews the client's lease; a client whose lease lapsed twice
 * over is dropped with its sessions and opens when the next client arrives.
 *
 * <p>Identifiers carry this start's boot id (the seconds at start): a clientid or stateid of an
 * earlier start is NFS4ERR_STALE_CLIENTID / NFS4ERR_STALE_STATEID. Thread-safe; every method
 * holds the object's monitor for a few map operations, never across I/O.
 */
public final class Nfs4State {
    /** What a SEQUENCE found on its slot. */
    public sealed interface SequenceOutcome {
    }

    /** A new request: it holds the slot until {@link #finish}. */
    public record NewRequest(Session session, Slot slot) implements SequenceOutcome {
    }

    /** A retry of the slot's last request: its reply, or only its SEQUENCE result when the reply was not kept. */
    public record Replay(byte[] reply, byte[] sequenceResult) implements SequenceOutcome {
    }

    /** The limits of the state table. */
    public record Limits(int maxClients, int maxSessions, int maxSlots, int maxCachedReply, long leaseNanos,
            int maxDelegations) {
        public Limits {
            if (maxClients < 1 || maxSessions < 1 || maxSlots < 1 || maxCachedReply < 512 || leaseNanos <= 0
                    || maxDelegations < 0) {
                throw new IllegalArgumentException("NFSv4 state limits must be positive");
            }
        }
    }

    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(Nfs4State.class);

    private final Limits limits;
    private final int bootId;
    private final ClientRecovery recovery;
    /** Owners the previous run recorded that have not finished reclaiming (RECLAIM_COMPLETE). */
    private final java.util.Set<ByteBuffer> reclaimable = new java.util.HashSet<>();
    private long graceEnd;
    private final SecureRandom random = new SecureRandom();
    private int nextClient = 1;
    private long nextState = 1;
    private final Map<Long, ClientRecord> clients = new HashMap<>();
    private final Map<ByteBuffer, ClientRecord> confirmedByOwner = new HashMap<>();
    private final Map<ByteBuffer, ClientRecord> unconfirmedByOwner = new HashMap<>();
    /** Read without this object's lock on every SEQUENCE; changed under it. */
    private final Map<ByteBuffer, Session> sessions = new java.util.concurrent.ConcurrentHashMap<>();
    private final Map<ByteBuffer, OpenState> opens = new HashMap<>();
    /** The same opens by file, so an OPEN looks at the opens of its file only. */
    private final Map<FileKey, List<OpenState>> opensByFile = new HashMap<>();
    private final Map<ByteBuffer, LockState> locks = new HashMap<>();
    /** NFSv4.0: the last open each open-owner closed, by its stateid, for a retransmitted CLOSE. */
    private final Map<ByteBuffer, StateOwner> closed = new HashMap<>();
    /** This state as the volumes' {@link io.rdmagate.vfs.state.FileStates} see it: the holder of its opens' reservations. */
    private final CrossProtocolState shared = new CrossProtocolState(this);
    private final Delegations delegations;
    /** Releases what the vfs holds for a client that goes (its byte-range locks). */
    private volatile java.util.function.Consumer<ClientRecord> onDrop = c -> {
    };

    public Nfs4State(Limits limits) {
        this(limits, ClientRecovery.NONE, 0, 0);
    }

    /**
     * A state whose confirmed clients are recorded in {@code recovery}; the clients the previous run
     * recorded may reclaim their opens and locks for {@code graceNanos} from {@code now}, or until
     * each has sent RECLAIM_COMPLETE (RFC 8881 §8.4.2).
     */
    public Nfs4State(Limits limits, ClientRecovery recovery, long graceNanos, long now) {
        this.limits = limits;
        this.bootId = (int) (System.currentTimeMillis() / 1000);
        this.recovery = recovery;
        this.delegations = new Delegations(bootId, limits.maxDelegations(), limits.leaseNanos(), System::nanoTime);
        try {
            this.reclaimable.addAll(recovery.load());
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException("cannot read the NFSv4 client record", e);
        }
        this.graceEnd = reclaimable.isEmpty() || graceNanos == 0 ? 0 : now + graceNanos;
        if (graceEnd != 0) {
            LOG.info("NFSv4.1 grace period: {} clients of the previous run may reclaim their opens and locks for {} s",
                    reclaimable.size(), graceNanos / 1_000_000_000L);
        }
    }

    public Limits limits() {
        return limits;
    }

    /** The read delegations handed out, and their recall. */
    public Delegations delegations() {
        return delegations;
    }

    /** What to release in the vfs when a client record goes (expired, replaced, destroyed). */
    public void onDrop(java.util.function.Consumer<ClientRecord> release) {
        this.onDrop = release;
    }

    // ------------------------------------------------------------------ grace (RFC 8881 §8.4.2)

    /** Whether the grace period after a restart still runs: clients of the previous run may reclaim. */
    public synchronized boolean inGrace(long now) {
        if (graceEnd != 0 && (now >= graceEnd || reclaimable.isEmpty())) {
            LOG.info("NFSv4.1 grace period ended: {}", reclaimable.isEmpty() ? "every client reclaimed"
                    : reclaimable.size() + " clients did not come back in time");
            graceEnd = 0;
            reclaimable.clear();
            record();
        }
        return graceEnd != 0;
    }

    /** NFS4ERR_GRACE while the grace period runs: an operation that a reclaim could conflict with waits. */
    public void notInGrace(long now) throws Nfs4Exception {
        if (inGrace(now)) {
            throw new Nfs4Exception(NFS4ERR_GRACE, "the grace period after a restart runs");
        }
    }

    /**
     * A reclaim (OPEN CLAIM_PREVIOUS, LOCK with reclaim) by {@code c}: NFS4ERR_NO_GRACE outside the
     * grace period or after the client's RECLAIM_COMPLETE, NFS4ERR_RECLAIM_BAD for a client the previous
     * run did not know.
     */
    public synchronized void mayReclaim(ClientRecord c, long now) throws Nfs4Exception {
        if (!inGrace(now) || c.reclaimComplete) {
            throw new Nfs4Exception(NFS4ERR_NO_GRACE, "no grace period");
        }
        if (!reclaimable.contains(ByteBuffer.wrap(c.ownerId))) {
            throw new Nfs4Exception(NFS4ERR_RECLAIM_BAD, "client unknown to the previous run");
        }
    }

    /** Writes the owners that may reclaim after a restart: the confirmed clients and those still reclaiming. */
    private void record() {
        java.util.Set<ByteBuffer> owners = new java.util.HashSet<>(reclaimable);
        owners.addAll(confirmedByOwner.keySet());
        try {
            recovery.store(owners);
        } catch (java.io.IOException e) {
            LOG.warn("cannot record the NFSv4 clients for recovery after a restart: {}", e.toString());
        }
    }

    // ------------------------------------------------------------------ clients

    /** The outcome of EXCHANGE_ID: the clientid, the sequence for CREATE_SESSION, whether confirmed. */
    public record Exchange(long clientId, int sequence, boolean confirmed) {
    }

    /** EXCHANGE_ID (RFC 8881 §18.35.5), SP4_NONE. */
    public synchronized Exchange exchangeId(byte[] ownerId, byte[] verifier, String principal, boolean update, long now)
            throws Nfs4Exception {
        ByteBuffer key = ByteBuffer.wrap(ownerId.clone());
        ClientRecord confirmed = confirmedByOwner.get(key);
        if (update) {
            if (confirmed == null) {
                throw new Nfs4Exception(NFS4ERR_NOENT, "no confirmed client to update");
            }
            if (!confirmed.principal.equals(principal)) {
                throw new Nfs4Exception(NFS4ERR_PERM, "update by another principal");
            }
            if (!Arrays.equals(confirmed.verifier, verifier)) {
                throw new Nfs4Exception(NFS4ERR_NOT_SAME, "update with another verifier");
            }
            return new Exchange(confirmed.clientId, confirmed.sequence, true);
        }
        if (confirmed != null && Arrays.equals(confirmed.verifier, verifier) && confirmed.principal.equals(principal)) {
            return new Exchange(confirmed.clientId, confirmed.sequence, true); // case 2: the same client again
        }
        if (confirmed != null && !confirmed.principal.equals(principal) && !expired(confirmed, now)) {
            throw new Nfs4Exception(NFS4ERR_CLID_INUSE, "owner in use by another principal");
        }
        ClientRecord old = unconfirmedByOwner.remove(key);
        if (old != null) {
            clients.remove(old.clientId); // case 4: an unconfirmed record is replaced
        }
        expireLapsed(now);
        if (clients.size() >= limits.maxClients()) {
            throw new Nfs4Exception(NFS4ERR_RESOURCE_LIMIT, "client table full (" + limits.maxClients() + ")");
        }
        long id = ((long) bootId << 32) | (nextClient++ & 0xffffffffL);
        ClientRecord c = new ClientRecord(id, ownerId.clone(), verifier.clone(), principal, now);
        clients.put(id, c);
        unconfirmedByOwner.put(key, c);
        return new Exchange(id, c.sequence, false);
    }

    /** NFS4ERR_DELAY stands in for the NFSv4.0 RESOURCE code NFSv4.1 forbids (RFC 8881 §15.1.1.6). */
    private static final int NFS4ERR_RESOURCE_LIMIT = NFS4ERR_DELAY;

    // ------------------------------------------------------------------ NFSv4.0 client ids (RFC 7530 §16.33-34)

    /** SETCLIENTID's answer: the clientid and the verifier SETCLIENTID_CONFIRM must bring back. */
    public record SetClientId(long clientId, byte[] confirm) {
    }

    /**
     * SETCLIENTID (RFC 7530 §16.33.5): the confirmed client of the same id, principal and verifier
     * gets its callback changed once confirmed; any other call makes an unconfirmed record with a new
     * clientid, replacing an unconfirmed one of the same id (a client that restarted keeps its old
     * record until it confirms the new). A confirmed client of the same id under another principal
     * is NFS4ERR_CLID_INUSE while its lease holds.
     */
    public synchronized SetClientId setClientId(byte[] id, byte[] verifier, String principal,
            ClientRecord.Callback40 callback, long now) throws Nfs4Exception {
        ByteBuffer key = ByteBuffer.wrap(id.clone());
        ClientRecord confirmed = confirmedByOwner.get(key);
        if (confirmed != null && !confirmed.principal.equals(principal) && !expired(confirmed, now)) {
            throw new ClientIdInUse(confirmed.callback);
        }
        ClientRecord old = unconfirmedByOwner.remove(key);
        if (old != null) {
            clients.remove(old.clientId);
        }
        byte[] confirm = new byte[NFS4_VERIFIER_SIZE];
        random.nextBytes(confirm);
        if (confirmed != null && Arrays.equals(confirmed.verifier, verifier) && confirmed.principal.equals(principal)) {
            confirmed.pendingConfirm = confirm;
            confirmed.pendingCallback = callback;
            return new SetClientId(confirmed.clientId, confirm.clone());
        }
        expireLapsed(now);
        if (clients.size() >= limits.maxClients()) {
            throw new Nfs4Exception(NFS4ERR_RESOURCE, "client table full (" + limits.maxClients() + ")");
        }
        long clientId = ((long) bootId << 32) | (nextClient++ & 0xffffffffL);
        ClientRecord c = new ClientRecord(clientId, id.clone(), verifier.clone(), principal, now);
        c.v40 = true;
        c.confirm = confirm;
        c.callback = callback;
        clients.put(clientId, c);
        unconfirmedByOwner.put(key, c);
        return new SetClientId(clientId, confirm.clone());
    }

    /** NFS4ERR_CLID_INUSE, and the callback address of the client that holds the id (RFC 7530 §16.33.4). */
    public static final class ClientIdInUse extends Nfs4Exception {
        private final transient ClientRecord.Callback40 holder;

        ClientIdInUse(ClientRecord.Callback40 holder) {
            super(NFS4ERR_CLID_INUSE, "client id in use by another principal");
            this.holder = holder;
        }

        /** The holder's callback; null when it is an NFSv4.1 client. */
        public ClientRecord.Callback40 holder() {
            return holder;
        }
    }

    /**
     * SETCLIENTID_CONFIRM (RFC 7530 §16.34.5): the verifier SETCLIENTID gave confirms the record, which
     * replaces the confirmed record of the same id and drops that one's state (the client restarted),
     * or sets the confirmed client's new callback. The verifier that confirmed the record already is a
     * retransmission and succeeds; any other is NFS4ERR_STALE_CLIENTID.
     */
    public synchronized void confirmClientId(long clientId, byte[] confirm, String principal, long now)
            throws Nfs4Exception {
        ClientRecord c = clients.get(clientId);
        if (c == null || !c.v40) {
            throw new Nfs4Exception(NFS4ERR_STALE_CLIENTID, "clientid " + Long.toHexString(clientId) + " unknown");
        }
        if (!c.principal.equals(principal)) {
            throw new Nfs4Exception(NFS4ERR_CLID_INUSE, "SETCLIENTID_CONFIRM by another principal");
        }
        c.renewedNanos = now;
        if (c.confirmed) {
            if (c.pendingConfirm != null && Arrays.equals(confirm, c.pendingConfirm)) {
                c.callback = c.pendingCallback;
                c.confirm = c.pendingConfirm;
                c.pendingConfirm = null;
                c.pendingCallback = null;
            } else if (!Arrays.equals(confirm, c.confirm)) {
                throw new Nfs4Exception(NFS4ERR_STALE_CLIENTID, "setclientid_confirm verifier unknown");
            }
            return;
        }
        if (!Arrays.equals(confirm, c.confirm)) {
            throw new Nfs4Exception(NFS4ERR_STALE_CLIENTID, "setclientid_confirm verifier unknown");
        }
        ByteBuffer key = ByteBuffer.wrap(c.ownerId);
        ClientRecord previous = confirmedByOwner.remove(key);
        if (previous != null) {
            drop(previous);
        }
        unconfirmedByOwner.remove(key, c);
        confirmedByOwner.put(key, c);
        c.confirmed = true;
        record();
    }

    /**
     * The confirmed client an NFSv4.0 operation names by clientid (OPEN, LOCK, LOCKT, RENEW), its
     * lease renewed (RFC 7530 §9.5); NFS4ERR_STALE_CLIENTID when unknown or not confirmed.
     */
    public synchronized ClientRecord confirmedClient(long clientId, long now) throws Nfs4Exception {
        ClientRecord c = clients.get(clientId);
        if (c == null || !c.confirmed) {
            throw new Nfs4Exception(NFS4ERR_STALE_CLIENTID, "clientid " + Long.toHexString(clientId)
                    + (c == null ? " unknown" : " not confirmed"));
        }
        c.renewedNanos = now;
        return c;
    }

    /** The lease of an NFSv4.0 client is renewed by any operation that names its state (RFC 7530 §9.5). */
    public void renewed(ClientRecord c, long now) {
        c.renewedNanos = now;
    }

    /**
     * The open-owner {@code bytes} of NFSv4.0 client {@code c} for an OPEN of {@code seqid}, new when
     * it has none. An owner whose first open was never confirmed is abandoned, with its opens, and
     * starts again (RFC 7530 §16.18.5), unless this OPEN is the retransmission of its last.
     */
    public synchronized StateOwner openOwner(ClientRecord c, byte[] bytes, int seqid, long now) {
        ByteBuffer key = ByteBuffer.wrap(bytes.clone());
        StateOwner so = c.openOwners.get(key);
        if (so != null && !so.confirmed && !so.retransmission(seqid)) {
            for (OpenState o : new ArrayList<>(opens.values())) {
                if (o.owner40 == so) {
                    close(o);
                }
            }
            forgetClosed(so);
            so = null;
        }
        if (so == null) {
            so = new StateOwner(c, key.array(), now);
            c.openOwners.put(key, so);
        }
        return so;
    }

    /** The lock-owner {@code bytes} of NFSv4.0 client {@code c}, new when it has none. */
    public synchronized StateOwner lockOwner(ClientRecord c, byte[] bytes, long now) {
        return c.lockOwners.computeIfAbsent(ByteBuffer.wrap(bytes.clone()), k -> new StateOwner(c, k.array(), now));
    }

    /** A new lock-owner's seqid starts at the lock_seqid of the LOCK that named it (RFC 7530 §16.10.4). */
    public void lockOwnerStarts(StateOwner so, int seqid) {
        so.startAt(seqid);
    }

    /** OPEN_CONFIRM (RFC 7530 §16.18): the open-owner's first open is confirmed; its stateid moves on. */
    public Stateid confirmOpen(OpenState o) throws Nfs4Exception {
        StateOwner so = o.owner40;
        synchronized (this) {
            if (so == null || so.confirmed) {
                throw new Nfs4Exception(NFS4ERR_BAD_STATEID, "open " + o.stateid() + " needs no confirmation");
            }
            so.confirmed = true;
        }
        synchronized (o) {
            o.seqid++;
            return new Stateid(o.seqid, o.other.clone());
        }
    }

    /** The open-owner that closed the open {@code id} named last: a retransmitted CLOSE finds its reply there. */
    public synchronized StateOwner closedBy(Stateid id) {
        return closed.get(ByteBuffer.wrap(id.other()));
    }

    private void forgetClosed(StateOwner so) {
        if (so.closed != null) {
            closed.remove(so.closed, so);
            so.closed = null;
        }
    }

    /**
     * RELEASE_LOCKOWNER (RFC 7530 §16.37): the lock-owner's lock states go, unless it still holds a
     * lock (NFS4ERR_LOCKS_HELD); an owner the server does not know is released already.
     */
    public synchronized void releaseLockOwner(ClientRecord c, byte[] bytes) throws Nfs4Exception {
        ByteBuffer key = ByteBuffer.wrap(bytes);
        StateOwner so = c.lockOwners.get(key);
        if (so == null) {
            return;
        }
        List<LockState> of = new ArrayList<>();
        for (LockState l : locks.values()) {
            if (l.owner40 == so) {
                for (var held : l.file().fs().locks().locks(l.file().handle().fileId())) {
                    if (held.owner().equals(l.owner())) {
                        throw new Nfs4Exception(NFS4ERR_LOCKS_HELD, "the lock-owner holds locks");
                    }
                }
                of.add(l);
            }
        }
        for (LockState l : of) {
            free(l);
        }
        c.lockOwners.remove(key);
    }

    /** Owners holding no state, unused for a lease, go (the laundromat). */
    private void purgeOwners(long now) {
        for (ClientRecord c : clients.values()) {
            if (!c.v40) {
                continue;
            }
            for (var owners : List.of(c.openOwners, c.lockOwners)) {
                owners.values().removeIf(so -> {
                    boolean idle = so.states == 0 && now - so.usedNanos > limits.leaseNanos();
                    if (idle) {
                        forgetClosed(so);
                    }
                    return idle;
                });
            }
        }
    }

    /** The client of {@code clientId}, confirmed or not; NFS4ERR_STALE_CLIENTID when unknown. */
    public synchronized ClientRecord client(long clientId) throws Nfs4Exception {
        ClientRecord c = clients.get(clientId);
        if (c == null) {
            throw new Nfs4Exception(NFS4ERR_STALE_CLIENTID, "clientid " + Long.toHexString(clientId) + " unknown");
        }
        return c;
    }

    /** The sizes a new session is granted. */
    public record ChannelGrant(int maxRequest, int maxResponse, int maxCached, int maxOperations, int slots) {
    }

    /** The result of a CREATE_SESSION, or the replay of the last one. */
    public record Created(Session session, byte[] replay) {
    }

    /**
     * CREATE_SESSION (§18.36.4): checks csa_sequence against the client's, confirms an unconfirmed client
     * (dropping the confirmed record of the same owner and its state), and creates the session.
     */
    public synchronized Created createSession(long clientId, int sequence, String principal, ChannelGrant grant)
            throws Nfs4Exception {
        ClientRecord c = client(clientId);
        if (sequence == c.sequence - 1 && c.lastCreateSession != null) {
            return new Created(null, c.lastCreateSession);
        }
        if (sequence != c.sequence) {
            throw new Nfs4Exception(NFS4ERR_SEQ_MISORDERED, "csa_sequence " + sequence + ", expected " + c.sequence);
        }
        if (!c.principal.equals(principal)) {
            throw new Nfs4Exception(NFS4ERR_CLID_INUSE, "CREATE_SESSION by another principal");
        }
        if (sessions.size() >= limits.maxSessions()) {
            throw new Nfs4Exception(NFS4ERR_NOSPC, "session table full (" + limits.maxSessions() + ")");
        }
        if (!c.confirmed) {
            ByteBuffer key = ByteBuffer.wrap(c.ownerId);
            ClientRecord previous = confirmedByOwner.remove(key);
            if (previous != null) {
                drop(previous);
            }
            unconfirmedByOwner.remove(key);
            confirmedByOwner.put(key, c);
            c.confirmed = true;
            record();
        }
        byte[] id = new byte[NFS4_SESSIONID_SIZE];
        random.nextBytes(id);
        ByteBuffer.wrap(id).putInt(bootId);
        Slot[] slots = new Slot[grant.slots()];
        for (int i = 0; i < slots.length; i++) {
            slots[i] = new Slot();
        }
        Session s = new Session(id, c, grant.maxRequest(), grant.maxResponse(), grant.maxCached(),
                grant.maxOperations(), slots, new BackChannel());
        sessions.put(ByteBuffer.wrap(id), s);
        c.sessions.add(s);
        c.sequence++;
        c.lastCreateSession = null;
        return new Created(s, null);
    }

    /** Keeps the encoded CREATE_SESSION result to replay it to a retry. */
    public synchronized void createSessionReplied(ClientRecord c, byte[] result) {
        c.lastCreateSession = result;
    }

    public synchronized void destroySession(byte[] id) throws Nfs4Exception {
        Session s = sessions.remove(ByteBuffer.wrap(id));
        if (s == null) {
            throw new Nfs4Exception(NFS4ERR_BADSESSION, "no session " + java.util.HexFormat.of().formatHex(id));
        }
        s.client().sessions.remove(s);
    }

    /** DESTROY_CLIENTID (§18.50): only a client without sessions. */
    public synchronized void destroyClientId(long clientId) throws Nfs4Exception {
        ClientRecord c = client(clientId);
        if (!c.sessions.isEmpty()) {
            throw new Nfs4Exception(NFS4ERR_CLIENTID_BUSY, "client has " + c.sessions.size() + " sessions");
        }
        drop(c);
    }

    /** RECLAIM_COMPLETE (§18.51) for the whole client. */
    public synchronized void reclaimComplete(ClientRecord c) throws Nfs4Exception {
        if (c.reclaimComplete) {
            throw new Nfs4Exception(NFS4ERR_COMPLETE_ALREADY, "reclaim already complete");
        }
        c.reclaimComplete = true;
        if (reclaimable.remove(ByteBuffer.wrap(c.ownerId)) && reclaimable.isEmpty() && graceEnd != 0) {
            LOG.info("NFSv4.1 grace period ended: every client reclaimed");
            graceEnd = 0; // every client of the previous run has reclaimed: grace ends early
            record();
        }
    }

    /**
     * The session of {@code c} to call the client on: one whose back channel answered its probe and
     * is up, else any with a back channel; null when none has one.
     */
    public synchronized Session callbackSession(ClientRecord c) {
        Session any = null;
        for (Session s : c.sessions) {
            if (s.back().pathUp()) {
                return s;
            }
            if (any == null && s.back().granted()) {
                any = s;
            }
        }
        return any;
    }

    /** The ids of every client known now, confirmed or not. */
    public synchronized List<Long> clientIds() {
        return new ArrayList<>(clients.keySet());
    }

    public synchronized int clientCount() {
        return clients.size();
    }

    public synchronized int sessionCount() {
        return sessions.size();
    }

    /**
     * Sessions whose back channel is down ({@code down}), or up: its probe answered on a connection
     * still open (one still being probed is neither); read without the monitor.
     */
    public int backChannels(boolean down) {
        int n = 0;
        for (Session s : sessions.values()) {
            if (down ? s.back().pathDown() : s.back().pathUp()) {
                n++;
            }
        }
        return n;
    }

    public synchronized int openCount() {
        return opens.size();
    }

    private boolean expired(ClientRecord c, long now) {
        return now - c.renewedNanos > 2 * limits.leaseNanos();
    }

    /** Drops every client whose lease lapsed twice over (the server's laundromat calls it). */
    public synchronized int expire(long now) {
        int before = clients.size();
        expireLapsed(now);
        purgeOwners(now);
        return before - clients.size();
    }

    private void expireLapsed(long now) {
        for (Iterator<ClientRecord> it = new ArrayList<>(clients.values()).iterator(); it.hasNext(); ) {
            ClientRecord c = it.next();
            if (expired(c, now)) {
                drop(c);
            }
        }
    }

    private void drop(ClientRecord c) {
        clients.remove(c.clientId);
        ByteBuffer key = ByteBuffer.wrap(c.ownerId);
        if (confirmedByOwner.remove(key, c)) {
            record();
        }
        unconfirmedByOwner.remove(key, c);
        for (Session s : c.sessions) {
            sessions.remove(ByteBuffer.wrap(s.id()));
        }
        c.sessions.clear();
        for (java.util.Iterator<OpenState> it = opens.values().iterator(); it.hasNext(); ) {
            OpenState o = it.next();
            if (o.client == c) {
                it.remove();
                unindex(o);
            }
        }
        locks.values().removeIf(l -> l.open.client == c);
        closed.values().removeIf(so -> so.client == c);
        delegations.dropClient(c);
        onDrop.accept(c);
    }

    // ------------------------------------------------------------------ sessions

    /** The session of {@code id}; NFS4ERR_BADSESSION when there is none. Takes no lock. */
    public Session session(byte[] id) throws Nfs4Exception {
        Session s = sessions.get(ByteBuffer.wrap(id));
        if (s == null) {
            throw new Nfs4Exception(NFS4ERR_BADSESSION, "no session " + java.util.HexFormat.of().formatHex(id));
        }
        return s;
    }

    /** The last sequence id slot {@code slot} of session {@code id} took (for tests and diagnostics). */
    public int sessionSlotSeqid(byte[] id, int slot) {
        Session s = sessions.get(ByteBuffer.wrap(id));
        if (s == null) {
            return 0;
        }
        synchronized (s.slots()[slot]) {
            return s.slots()[slot].seqid;
        }
    }

    /**
     * SEQUENCE (§18.46.4) on a slot. Only the slot is locked: the requests of a session's slots, and
     * of other sessions, go through side by side, as the slot table is meant for (§2.10.6).
     */
    public SequenceOutcome sequence(byte[] sessionId, int seqid, int slotId, long now) throws Nfs4Exception {
        Session s = session(sessionId);
        if (slotId < 0 || slotId >= s.slots().length) {
            throw new Nfs4Exception(NFS4ERR_BADSLOT, "slot " + slotId + " of " + s.slots().length);
        }
        Slot slot = s.slots()[slotId];
        synchronized (slot) {
            if (seqid == slot.seqid && (slot.inUse || slot.sequenceResult != null)) {
                if (slot.inUse) {
                    throw new Nfs4Exception(NFS4ERR_DELAY, "slot " + slotId + " is still serving that request");
                }
                s.client().renewedNanos = now;
                return new Replay(slot.reply, slot.sequenceResult);
            }
            if (seqid != slot.seqid + 1) {
                throw new Nfs4Exception(NFS4ERR_SEQ_MISORDERED, "slot " + slotId + " seqid "
                        + Integer.toUnsignedString(seqid) + " after " + Integer.toUnsignedString(slot.seqid));
            }
            slot.seqid = seqid;
            slot.inUse = true;
            slot.reply = null;
            slot.sequenceResult = null;
        }
        s.client().renewedNanos = now;
        return new NewRequest(s, slot);
    }

    /** The request on {@code slot} was answered: keeps its reply (null: not kept) and frees the slot. */
    public void finish(Slot slot, byte[] sequenceResult, byte[] reply) {
        synchronized (slot) {
            slot.sequenceResult = sequenceResult;
            slot.reply = reply;
            slot.inUse = false;
        }
    }

    // ------------------------------------------------------------------ opens

    /**
     * OPEN by {@code owner} of {@code file} (§18.16.4): the owner's existing open of the file grows
     * (its seqid bumped), else a new one starts; NFS4ERR_SHARE_DENIED when another open's deny
     * bits refuse the access asked, or the deny asked refuses another's access: another NFSv4.1
     * client's, checked here, or another protocol's (an SMB open's share mode), checked by the
     * volume's share reservations, where the open then holds its own (OPEN4_SHARE_ACCESS_* and
     * OPEN4_SHARE_DENY_* are the reservations' READ and WRITE bits).
     */
    public synchronized OpenState open(ClientRecord c, byte[] owner, Target file, int access, int deny)
            throws Nfs4Exception {
        return open(c, owner, null, file, access, deny);
    }

    /** As {@link #open(ClientRecord, byte[], Target, int, int)} by an NFSv4.0 open-owner. */
    public synchronized OpenState open(ClientRecord c, byte[] owner, StateOwner owner40, Target file, int access,
            int deny) throws Nfs4Exception {
        OpenState mine = null;
        for (OpenState o : opensByFile.getOrDefault(FileKey.of(file), List.of())) {
            if (o.client == c && Arrays.equals(o.owner, owner)) {
                mine = o;
                continue;
            }
            if ((o.deny & access) != 0 || (o.access & deny) != 0) {
                throw new Nfs4Exception(NFS4ERR_SHARE_DENIED, "another open denies it");
            }
        }
        try {
            if (mine != null) {
                synchronized (mine) {
                    mine.reservation.change(mine.access | access, mine.deny | deny);
                    mine.access |= access;
                    mine.deny |= deny;
                    mine.seqid++;
                }
                return mine;
            }
            var reservation = file.fs().states().shares().reserve(file.handle(), access, deny, shared, c);
            byte[] other = new byte[STATEID_OTHER_SIZE];
            ByteBuffer.wrap(other).putInt(bootId).putLong(nextState++);
            OpenState o = new OpenState(other, c, owner.clone(), file, reservation);
            o.owner40 = owner40;
            if (owner40 != null) {
                owner40.states++;
            }
            o.access = access;
            o.deny = deny;
            opens.put(ByteBuffer.wrap(other), o);
            opensByFile.computeIfAbsent(FileKey.of(file), k -> new ArrayList<>(2)).add(o);
            return o;
        } catch (io.rdmagate.vfs.VfsException e) { // SHARING_VIOLATION: another protocol's open
            throw new Nfs4Exception(NFS4ERR_SHARE_DENIED, e.getMessage());
        }
    }

    /** This state as a holder of the volumes' one state: its delegations, and its opens' reservations. */
    public CrossProtocolState shared() {
        return shared;
    }

    /** A volume's file, as the opens are indexed (two exports of one volume share its opens). */
    private record FileKey(int volumeId, long fileId) {
        static FileKey of(Target t) {
            return new FileKey(t.handle().volumeId(), t.handle().fileId());
        }
    }

    /** Whether a client other than {@code except} (null: any) has the file open (for writing, when {@code forWriting}). */
    public synchronized boolean opened(int volumeId, long fileId, boolean forWriting, ClientRecord except) {
        for (OpenState o : opensByFile.getOrDefault(new FileKey(volumeId, fileId), List.of())) {
            if (o.client != except && (!forWriting || (o.access & OPEN4_SHARE_ACCESS_WRITE) != 0)) {
                return true;
            }
        }
        return false;
    }

    private void unindex(OpenState o) {
        o.reservation.release();
        if (o.owner40 != null) {
            o.owner40.states--;
        }
        FileKey k = FileKey.of(o.file);
        List<OpenState> same = opensByFile.get(k);
        if (same != null && same.remove(o) && same.isEmpty()) {
            opensByFile.remove(k);
        }
    }

    /**
     * The open a stateid stands for: an open stateid's own, or the open a lock stateid derives from
     * (clients read and write with the lock stateid while they hold locks, §8.2.2).
     */
    public synchronized OpenState openFor(Stateid id) throws Nfs4Exception {
        LockState l = locks.get(ByteBuffer.wrap(id.other()));
        if (l != null) {
            checkSeqid(id, l.seqid);
            return l.open;
        }
        return open(id);
    }

    /** The lock state a lock stateid names. */
    public synchronized LockState lock(Stateid id) throws Nfs4Exception {
        LockState l = locks.get(ByteBuffer.wrap(id.other()));
        if (l == null) {
            if (ByteBuffer.wrap(id.other()).getInt() != bootId) {
                throw new Nfs4Exception(NFS4ERR_STALE_STATEID, "stateid " + id + " of an earlier start");
            }
            throw new Nfs4Exception(NFS4ERR_BAD_STATEID, "no lock state " + id);
        }
        checkSeqid(id, l.seqid);
        return l;
    }

    /**
     * The lock state of {@code ownerBytes} on {@code open}'s file (a new lock-owner's first LOCK),
     * created when there is none yet.
     */
    public synchronized LockState lockState(OpenState open, byte[] ownerBytes) {
        return lockState(open, ownerBytes, null);
    }

    /** As {@link #lockState(OpenState, byte[])} for an NFSv4.0 lock-owner. */
    public synchronized LockState lockState(OpenState open, byte[] ownerBytes, StateOwner owner40) {
        for (OpenState o : opensByFile.getOrDefault(FileKey.of(open.file), List.of())) {
            if (o.client != open.client) {
                continue;
            }
            for (LockState l : o.lockStates) {
                if (Arrays.equals(l.ownerBytes, ownerBytes)) {
                    return l;
                }
            }
        }
        byte[] other = new byte[STATEID_OTHER_SIZE];
        ByteBuffer.wrap(other).putInt(bootId).putLong(nextState++);
        LockState l = new LockState(other, open, ownerBytes.clone());
        l.owner40 = owner40;
        if (owner40 != null) {
            owner40.states++;
        }
        locks.put(ByteBuffer.wrap(other), l);
        open.lockStates.add(l);
        return l;
    }

    /** A LOCK or LOCKU changed the lock state: its next stateid. */
    public Stateid locked(LockState l) {
        return l.bump();
    }

    /** FREE_STATEID of a lock stateid whose owner holds no lock any more. */
    public synchronized void free(LockState l) {
        if (locks.remove(ByteBuffer.wrap(l.other)) != null) {
            unowned(l);
        }
        l.open.lockStates.remove(l);
    }

    private static void unowned(LockState l) {
        if (l.owner40 != null) {
            l.owner40.states--;
        }
    }

    /** The lock states derived from an open (CLOSE releases them). */
    public synchronized List<LockState> locksOf(OpenState o) {
        return new ArrayList<>(o.lockStates);
    }

    private static void checkSeqid(Stateid id, int current) throws Nfs4Exception {
        if (id.seqid() != 0 && Integer.compareUnsigned(id.seqid(), current) < 0) {
            throw new Nfs4Exception(NFS4ERR_OLD_STATEID, "stateid " + id + " is older than seqid " + current);
        }
        if (id.seqid() != 0 && id.seqid() != current) {
            throw new Nfs4Exception(NFS4ERR_BAD_STATEID, "stateid " + id + " is newer than seqid " + current);
        }
    }

    /** The open a stateid names (§8.2.2: seqid 0 is the current one), with the errors of §8.2.4. */
    public synchronized OpenState open(Stateid id) throws Nfs4Exception {
        OpenState o = opens.get(ByteBuffer.wrap(id.other()));
        if (o == null) {
            if (ByteBuffer.wrap(id.other()).getInt() != bootId) {
                throw new Nfs4Exception(NFS4ERR_STALE_STATEID, "stateid " + id + " of an earlier start");
            }
            throw new Nfs4Exception(NFS4ERR_BAD_STATEID, "no state " + id);
        }
        synchronized (o) {
            if (id.seqid() != 0 && Integer.compareUnsigned(id.seqid(), o.seqid) < 0) {
                throw new Nfs4Exception(NFS4ERR_OLD_STATEID, "stateid " + id + " is older than seqid " + o.seqid);
            }
            if (id.seqid() != 0 && id.seqid() != o.seqid) {
                throw new Nfs4Exception(NFS4ERR_BAD_STATEID, "stateid " + id + " is newer than seqid " + o.seqid);
            }
        }
        return o;
    }

    /** OPEN_DOWNGRADE (§18.18): the open keeps only {@code access} and {@code deny}, which it must hold already. */
    public Stateid downgrade(OpenState o, int access, int deny) throws Nfs4Exception {
        synchronized (o) {
            if (access < OPEN4_SHARE_ACCESS_READ || access > OPEN4_SHARE_ACCESS_BOTH || (access & ~o.access) != 0
                    || deny < 0 || deny > OPEN4_SHARE_DENY_BOTH || (deny & ~o.deny) != 0) {
                throw new Nfs4Exception(NFS4ERR_INVAL, "downgrade to access " + access + " deny " + deny + " from "
                        + o.access + "/" + o.deny);
            }
            try {
                o.reservation.change(access, deny);
            } catch (io.rdmagate.vfs.VfsException e) {
                throw new IllegalStateException("a downgrade conflicts with nothing", e);
            }
            o.access = access;
            o.deny = deny;
            o.seqid++;
            return new Stateid(o.seqid, o.other.clone());
        }
    }

    /** CLOSE (§18.2): the open ends, and the lock states derived from it. */
    public synchronized void close(OpenState o) {
        if (opens.remove(ByteBuffer.wrap(o.other)) == null) {
            return;
        }
        unindex(o);
        if (o.owner40 != null) {
            forgetClosed(o.owner40);
            o.owner40.closed = ByteBuffer.wrap(o.other);
            closed.put(o.owner40.closed, o.owner40);
        }
        for (LockState l : o.lockStates) {
            locks.remove(ByteBuffer.wrap(l.other));
            unowned(l);
        }
        o.lockStates.clear();
    }

    /** TEST_STATEID (§18.48) of one stateid: NFS4_OK or its error. */
    public int test(Stateid id, ClientRecord c) {
        if (Delegations.isDelegation(id)) {
            return delegations.test(id, c);
        }
        try {
            openFor(id);
            return NFS4_OK;
        } catch (Nfs4Exception e) {
            return e.status();
        }
    }

    /** Every open of a client (for tests and metrics). */
    public synchronized List<OpenState> opensOf(ClientRecord c) {
        List<OpenState> out = new ArrayList<>();
        for (OpenState o : opens.values()) {
            if (o.client == c) {
                out.add(o);
            }
        }
        return out;
    }
}
