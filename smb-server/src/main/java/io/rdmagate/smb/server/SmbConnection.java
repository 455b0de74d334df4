package io.rdmagate.smb.server;

import io.rdmagate.smb.mserref.NtStatus;
import io.rdmagate.smb.mssmb2.Smb2Command;
import io.rdmagate.smb.mssmb2.Smb2Compound;
import io.rdmagate.smb.mssmb2.Smb2DecodeException;
import io.rdmagate.smb.mssmb2.Smb2Dialect;
import io.rdmagate.smb.mssmb2.Smb2Error;
import io.rdmagate.smb.mssmb2.Smb2Header;
import io.rdmagate.smb.mssmb2.TransformHeader;
import io.rdmagate.smb.mssmb2.Wire;
import io.rdmagate.smb.mssmb2.crypto.PreauthIntegrity;
import io.rdmagate.smb.mssmb2.crypto.Smb2Cipher;
import io.rdmagate.smb.mssmb2.crypto.Smb2Signer;
import io.rdmagate.smb.server.transport.Receiver;
import io.rdmagate.smb.server.transport.SmbTransport;
import io.rdmagate.vfs.VfsException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One client connection (MS-SMB2 3.3.1.7) and its request processing.
 *
 * <p>Operation: the transport (Direct TCP or SMB Direct) hands each message to {@link #received},
 * which starts a virtual thread for it (receiving pauses while {@code maxInFlight} are in
 * progress). The
 * thread decrypts a transform message (3.3.5.2.1), splits the compound (3.3.5.2.7), and for each
 * message checks the session (3.3.5.2.9), the signature (3.3.5.2.4), encryption requirements and
 * the tree (3.3.5.2.11), runs the command's handler, and writes the response header with the
 * credits granted. The responses of one compound go out in one frame, each signed (3.3.4.1.1),
 * the whole encrypted when the session or share asks (3.3.4.1.4), and go to the transport with a
 * READ's payload as a buffer of its own, released once the transport has sent it.
 */
public final class SmbConnection implements Receiver {
    private static final Logger log = LoggerFactory.getLogger(SmbConnection.class);
    private static final int MAX_COMPOUND = 64;

    final SmbServer server;
    private final SmbTransport transport;
    private InetAddress client;
    private InetSocketAddress local;
    private final AtomicInteger inFlight = new AtomicInteger();

    // MS-SMB2 3.3.1.7
    public volatile int dialect;
    public volatile boolean negotiated;
    /** Some session of this connection has authenticated: it is past the handshake deadline's reach. */
    volatile boolean authenticated;
    volatile boolean smb1Upgraded;
    public volatile byte[] clientGuid = new byte[16];
    public volatile int clientCapabilities;
    public volatile int clientSecurityMode;
    public volatile int serverCapabilities;
    public volatile int serverSecurityMode;
    public volatile int cipherId;
    public volatile int signingAlgorithm = -1;
    public volatile List<Integer> clientDialects = List.of();
    public final PreauthIntegrity preauth = new PreauthIntegrity();
    public final Map<Long, SmbSession> sessions = new ConcurrentHashMap<>();
    /** MS-SMB2 3.3.1.1: the MessageIds the client may use; its credits. */
    final CommandSequenceWindow window;
    final Map<Long, AsyncOp> async = new ConcurrentHashMap<>();
    /** When the client last sent a request, for the idle timeout. */
    volatile long lastRequestNanos = System.nanoTime();
    private final AtomicLong nextAsyncId = new AtomicLong(1);
    private final ArrivalOrder arrival = new ArrivalOrder();
    /** MessageIds of CANCELs that found no request yet, oldest first (see {@link #cancel}). */
    private final java.util.LinkedHashSet<Long> earlyCancels = new java.util.LinkedHashSet<>();
    static final int EARLY_CANCELS = 64;

    public SmbConnection(SmbServer server, SmbTransport transport) {
        this.server = server;
        this.transport = transport;
        this.window = new CommandSequenceWindow(server.config().maxCredits());
    }

    /** The wire under this connection: Direct TCP or SMB Direct. */
    public SmbTransport transport() {
        return transport;
    }

    public InetAddress client() {
        return client;
    }

    public InetSocketAddress local() {
        return local;
    }

    private io.rdmagate.vfs.memory.IoMemoryPool.Account memory;

    /** This connection's account of the I/O memory pool. */
    public io.rdmagate.vfs.memory.IoMemoryPool.Account memory() {
        return memory;
    }

    /** A new session in progress with a random, unused id (MS-SMB2 3.3.5.5.1). */
    public SmbSession newSession() {
        while (true) {
            long id = server.random().nextLong();
            if (id == 0 || id == -1 || sessions.containsKey(id)) {
                continue;
            }
            SmbSession s = new SmbSession(id, preauth.copy(), this);
            if (server.registerSession(s)) {
                sessions.put(id, s);
                return s;
            }
        }
    }

    /** Session bindings in progress on this connection (MS-SMB2 3.3.1.7 PreauthSessionTable), by SessionId. */
    public final Map<Long, io.rdmagate.smb.server.command.SessionBinding.InProgress> bindings = new ConcurrentHashMap<>();

    /** MS-SMB2 3.3.5.5.3: {@code s} gets this connection as a channel, signing with {@code signer}. */
    public void bindSession(SmbSession s, Smb2Signer signer) {
        s.bind(this, signer);
        sessions.put(s.id, s);
        authenticated = true;
    }

    /**
     * A re-authentication failed: the session ends everywhere (opens closed, out of the global
     * table), but stays in its channels' tables as expired, so that what its client sends next is
     * answered USER_SESSION_DELETED signed with its key, as a client that signs requires.
     */
    public void expireSession(SmbSession s) {
        server.logoff(s);
    }

    /** Forgets a session whose setup failed. */
    public void dropSession(SmbSession s) {
        if (sessions.remove(s.id) != null) {
            server.logoff(s);
        }
    }

    /**
     * MS-SMB2 3.3.5.5.3: the client reconnected elsewhere and names this session as its previous
     * one; it ends as if its connection were lost, so its durable opens wait to be reconnected.
     */
    void endPrevious(SmbSession s) {
        if (sessions.remove(s.id) != null) {
            for (SmbConnection other : s.channels()) {
                if (other != this) {
                    other.sessions.remove(s.id, s); // its other channels end with it
                }
            }
            server.connectionLost(s);
        }
    }

    /** Whether the transport is still up (its loss may not have been handled yet). */
    boolean isOpen() {
        return transport.isOpen();
    }

    /**
     * LOGOFF (MS-SMB2 3.3.5.6). Durable opens of the session are kept for a reconnect, as Windows and
     * Samba keep them (smbtorture smb2.durable-open.reopen4); every other open closes.
     */
    public void logoff(SmbSession s) {
        for (SmbConnection c : s.channels()) {
            c.sessions.remove(s.id, s); // MS-SMB2 3.3.5.6: the session ends on every channel
        }
        sessions.remove(s.id);
        server.connectionLost(s);
    }

    public int dialect() {
        return dialect;
    }

    @Override
    public void opened() {
        InetSocketAddress r = transport.remoteAddress();
        client = r.getAddress();
        local = transport.localAddress();
        memory = server.config().pool().account("smb:" + r.getAddress().getHostAddress() + ":" + r.getPort());
    }

    @Override
    public boolean authenticated() {
        return authenticated;
    }

    @Override
    public void received(ByteBuffer message, Runnable release) {
        lastRequestNanos = System.nanoTime();
        if (inFlight.incrementAndGet() >= server.config().maxInFlight()) {
            transport.pauseReceiving(true);
        }
        long ticket = arrival.ticket();
        Thread.ofVirtual().name("smb-" + client.getHostAddress()).start(() -> {
            try {
                arrival.await(ticket);
                process(message, ticket);
            } catch (RuntimeException e) {
                server.internalError();
                log.error("closing {}: request processing failed", client, e);
                transport.disconnect();
            } finally {
                arrival.taken(ticket);
                release.run();
                if (inFlight.decrementAndGet() < server.config().maxInFlight()) {
                    transport.pauseReceiving(false);
                }
            }
        });
    }

    @Override
    public void closed() {
        for (AsyncOp op : async.values()) {
            op.cancel.run();
        }
        async.clear();
        for (SmbSession s : List.copyOf(sessions.values())) {
            // MS-SMB2 3.3.7.1: a session with another channel up lives on there, its opens with it
            SmbConnection other = s.unbind(this) ? s.liveChannel(this) : null;
            if (other != null) {
                sessions.remove(s.id, s);
                server.opens().moveChannel(s, this, other);
                continue;
            }
            endPrevious(s); // durable opens wait for their client; once per session
        }
    }

    /**
     * Whether the connection is idle as Windows' autodisconnect means it: authenticated, nothing
     * sent for {@code timeoutNanos}, no request in progress, no async operation, no open file.
     */
    boolean idle(long timeoutNanos) {
        return authenticated && System.nanoTime() - lastRequestNanos > timeoutNanos && inFlight.get() == 0
                && async.isEmpty() && !server.opens().anyOpenOf(this);
    }

    void close(String why) {
        log.info("closing SMB connection from {}: {}", client, why);
        transport.disconnect();
    }

    private void process(ByteBuffer nio, long ticket) {
        if (nio.limit() >= 4 && nio.getInt(0) == 0x424D53FF) {
            Smb1Negotiate.handle(this, nio);
            return;
        }
        boolean encrypted = false;
        SmbSession encSession = null;
        if (TransformHeader.isTransform(nio)) {
            // MS-SMB2 3.3.5.2.1
            if (!TransformHeader.check(nio) || !Smb2Dialect.is3(dialect)) {
                close("malformed transform header");
                return;
            }
            encSession = sessions.get(TransformHeader.sessionId(nio));
            if (encSession == null || encSession.decryptor == null) {
                close("encrypted message for an unknown session");
                return;
            }
            ByteBuffer plain = encSession.decryptor.decrypt(nio);
            if (plain == null) {
                close("message does not decrypt");
                return;
            }
            nio = plain;
            encrypted = true;
        }
        List<ByteBuffer> messages = Smb2Compound.split(nio, MAX_COMPOUND);
        if (messages == null) {
            close("malformed SMB2 header or compound chain");
            return;
        }
        boolean holdsTurn = false;
        for (ByteBuffer m : messages) {
            // MS-SMB2 3.3.5.2.3, in arrival order (this request holds its turn): a CANCEL takes no MessageId
            int command = Smb2Header.command(m);
            int charge = dialect == Smb2Dialect.SMB_2_0_2 ? 1 : Smb2Header.creditCharge(m);
            if (command != Smb2Command.CANCEL && !window.receive(Smb2Header.messageId(m), charge)) {
                close("MessageId " + Long.toUnsignedString(Smb2Header.messageId(m)) + " (CreditCharge " + charge
                        + ") is outside the command sequence window or was used before");
                return;
            }
            holdsTurn |= command == Smb2Command.CHANGE_NOTIFY || command == Smb2Command.CANCEL;
        }
        if (!holdsTurn) {
            // a CHANGE_NOTIFY takes its turn once it is with its open; a CANCEL once the request it
            // names has its STATUS_CANCELLED response, which so goes out before those of later requests
            arrival.taken(ticket);
        }
        List<Ctx> done = new ArrayList<>(messages.size());
        Ctx prev = null;
        for (int i = 0; i < messages.size(); i++) {
            Ctx c = new Ctx(this, messages.get(i), encrypted, i == messages.size() - 1);
            c.ticket = ticket;
            handleOne(c, prev, i == 0);
            if (!c.reply.disconnect && !(c.reply.asyncId != 0 && c.reply.status == NtStatus.PENDING)) {
                server.metrics().request(Smb2Header.command(c.msg), c.reply.status, c.start); // async: when it completes
            }
            if (c.reply.disconnect) {
                releaseAll(done);
                c.reply.releasePayload();
                close("protocol violation in " + Smb2Command.name(Smb2Header.command(c.msg)));
                return;
            }
            done.add(c);
            prev = c;
        }
        send(done, encrypted ? encSession : null);
    }

    private static void releaseAll(List<Ctx> done) {
        for (Ctx c : done) {
            c.reply.releasePayload();
        }
    }

    long usedSession(Ctx c) {
        return c.reply.sessionId != -1 ? c.reply.sessionId : c.sessionIdUsed;
    }

    private void handleOne(Ctx c, Ctx prev, boolean first) {
        ByteBuffer m = c.msg;
        int cmd = Smb2Header.command(m);
        int flags = Smb2Header.flags(m);
        c.sessionIdUsed = Smb2Header.sessionId(m);
        c.treeIdUsed = Smb2Header.isAsync(m) ? 0 : Smb2Header.treeId(m);
        if (!negotiated && cmd != Smb2Command.NEGOTIATE) {
            c.reply.disconnect = true; // MS-SMB2 3.3.5.2: only NEGOTIATE before negotiation
            return;
        }
        if ((flags & Smb2Header.FLAGS_RELATED_OPERATIONS) != 0) {
            // MS-SMB2 3.3.5.2.7.2
            if (first) {
                fail(c, NtStatus.INVALID_PARAMETER);
                return;
            }
            c.sessionIdUsed = usedSession(prev);
            c.treeIdUsed = prev.reply.treeId != -1 ? prev.reply.treeId : prev.treeIdUsed;
            c.compoundFileId = prev.compoundFileId;
            int inherited = RelatedFailure.of(prev);
            if (inherited != 0) {
                c.chainError = inherited;
                fail(c, inherited);
                return;
            }
        }
        Command h = cmd < Smb2Command.COUNT ? server.command(cmd) : null;
        if (h == null) {
            fail(c, NtStatus.INVALID_PARAMETER);
            return;
        }
        try {
            if (h.needs() != Command.Needs.NOTHING) {
                SmbSession s = sessions.get(c.sessionIdUsed);
                if (s == null || s.state != SmbSession.State.VALID) {
                    if (s != null && s.state == SmbSession.State.EXPIRED && s.hasSigner()
                            && Smb2Header.isSigned(c.msg)) {
                        c.reply.signWith = s; // an ended session signs its refusal (see expireSession)
                    }
                    SmbSession elsewhere = s == null ? server.globalSession(c.sessionIdUsed) : null;
                    if (elsewhere != null && elsewhere.state == SmbSession.State.VALID && elsewhere.hasSigner()
                            && Smb2Dialect.is3(dialect)) {
                        c.reply.signWith = elsewhere; // 3.3.5.2.9: a session of another channel signs its refusal
                    }
                    throw new SmbException(NtStatus.USER_SESSION_DELETED, "no session " + c.sessionIdUsed);
                }
                c.session = s;
                checkSigning(c, s, flags);
                if (s.encryptData && !c.encrypted) {
                    throw new SmbException(NtStatus.ACCESS_DENIED, "session requires encryption"); // 3.3.5.2.9
                }
                if (s.authenticationExpired() && cmd != Smb2Command.LOGOFF && cmd != Smb2Command.CLOSE
                        && cmd != Smb2Command.LOCK) {
                    // 3.3.5.2.9: the ticket ended; only LOGOFF, CLOSE and (un)LOCK go on until a re-authentication
                    throw new SmbException(NtStatus.NETWORK_SESSION_EXPIRED, "the session's Kerberos ticket expired");
                }
                if (h.needs() == Command.Needs.TREE) {
                    TreeConnect t = s.trees.get(c.treeIdUsed);
                    if (t == null) {
                        throw new SmbException(NtStatus.NETWORK_NAME_DELETED, "no tree " + c.treeIdUsed);
                    }
                    if (t.encrypt() && !c.encrypted) {
                        throw new SmbException(NtStatus.ACCESS_DENIED, "share requires encryption"); // 3.3.5.2.11
                    }
                    c.tree = t;
                }
            }
            h.handle(c);
        } catch (SmbException e) {
            log.debug("{} {}: {}", client, Smb2Command.name(cmd), e.getMessage());
            fail(c, e.status());
        } catch (Smb2DecodeException e) {
            log.debug("{} {} malformed: {}", client, Smb2Command.name(cmd), e.getMessage());
            fail(c, e.status());
        } catch (VfsException e) {
            log.debug("{} {}: {}", client, Smb2Command.name(cmd), e.getMessage());
            fail(c, StatusMap.of(e.error()));
        }
    }

    /** MS-SMB2 3.3.5.2.4: signed requests are verified; sessions that require signing refuse unsigned ones. */
    private void checkSigning(Ctx c, SmbSession s, int flags) throws SmbException {
        if (c.encrypted || Smb2Header.command(c.msg) == Smb2Command.CANCEL && !s.hasSigner()) {
            return;
        }
        if ((flags & Smb2Header.FLAGS_SIGNED) != 0) {
            if (!s.hasSigner()) {
                return;
            }
            boolean ok;
            synchronized (s) {
                ok = s.signerLocked(this).verify(c.msg); // the channel's key (3.3.5.2.4)
            }
            if (!ok) {
                throw new SmbException(NtStatus.ACCESS_DENIED, "bad signature");
            }
            c.requestSigned = true;
        } else if (s.signingRequired && Smb2Header.command(c.msg) != Smb2Command.CANCEL) {
            throw new SmbException(NtStatus.ACCESS_DENIED, "unsigned request on a session that requires signing");
        }
    }

    static void fail(Ctx c, int status) {
        c.reply.releasePayload();
        c.reply.status = status;
        c.reply.buf = null;
        c.reply.bodyLength = 0;
    }

    /** MS-SMB2 3.3.1.2: grants credits up to the ceiling, never leaving the client with none. */
    int grant(int requested) {
        return window.grant(requested, server.config().maxCredits());
    }

    /** Writes the header of a finished reply; returns the message bytes (header + body). */
    private ByteBuffer finish(Ctx c, int credits, boolean interim) {
        Reply r = c.reply;
        if (r.buf == null || (NtStatus.isError(r.status) && r.bodyLength == 0)) {
            r.body(9);
            Smb2Error.write(r.buf);
            r.bodyLength = 9;
        }
        int flags = Smb2Header.flags(c.msg) & (Smb2Header.FLAGS_RELATED_OPERATIONS | Smb2Header.FLAGS_PRIORITY_MASK);
        long sid = usedSession(c);
        int tid = r.treeId != -1 ? r.treeId : c.treeIdUsed;
        Smb2Header.writeResponse(r.buf, Smb2Header.command(c.msg), interim ? NtStatus.PENDING : r.status,
                Smb2Header.creditCharge(c.msg), credits, flags, Smb2Header.messageId(c.msg), r.asyncId, tid, sid);
        return r.buf.slice(0, Smb2Header.SIZE + r.bodyLength).order(ByteOrder.LITTLE_ENDIAN);
    }

    private SmbSession signingSession(Ctx c) {
        if (c.reply.signWith != null) {
            return c.reply.signWith;
        }
        SmbSession s = c.session != null ? c.session : sessions.get(usedSession(c));
        if (s == null || s.state != SmbSession.State.VALID || !s.hasSigner()) {
            return null;
        }
        return c.requestSigned || s.signingRequired ? s : null;
    }

    private void send(List<Ctx> done, SmbSession encSession) {
        List<ByteBuffer> parts = new ArrayList<>(done.size());
        List<Ctx> sent = new ArrayList<>(done.size());
        io.rdmagate.vfs.memory.IoMemory tailPayload = null;
        long paddedPayload = 0; // payload bytes copied into the messages of a compound
        SmbSession encryptFor = encSession;
        int lastIndex = -1;
        for (int i = 0; i < done.size(); i++) {
            if (!done.get(i).reply.none) {
                lastIndex = i;
            }
        }
        for (int i = 0; i < done.size(); i++) {
            Ctx c = done.get(i);
            if (c.reply.none) {
                continue;
            }
            boolean last = i == lastIndex;
            boolean interim = c.reply.asyncId != 0 && c.reply.status == NtStatus.PENDING;
            int g = grant(Smb2Header.creditRequest(c.msg));
            ByteBuffer msg = finish(c, g, interim);
            if (!last) {
                ByteBuffer payload = c.reply.payload == null ? null : c.reply.payload.segment().asByteBuffer();
                int len = msg.limit() + (payload == null ? 0 : payload.remaining());
                ByteBuffer padded = ByteBuffer.allocate(Wire.align8(len)).order(ByteOrder.LITTLE_ENDIAN);
                padded.put(msg.duplicate());
                if (payload != null) {
                    server.config().copies().add(transport.kind(), payload.remaining());
                    paddedPayload += payload.remaining();
                    padded.put(payload.duplicate());
                    c.reply.releasePayload();
                }
                padded.clear();
                msg = padded;
                Smb2Header.setNextCommand(msg, msg.limit());
            } else if (c.reply.payload != null) {
                tailPayload = c.reply.payload;
            }
            if (encryptFor == null && c.session != null && c.session.encryptor != null && !interim
                    && (c.session.encryptData || c.tree != null && c.tree.encrypt())) {
                encryptFor = c.session;
            }
            parts.add(msg);
            sent.add(c);
        }
        if (parts.isEmpty()) {
            interimsSent(done);
            return;
        }
        for (int i = 0; i < parts.size(); i++) {
            Ctx c = sent.get(i);
            ByteBuffer msg = parts.get(i);
            boolean interim = c.reply.asyncId != 0 && c.reply.status == NtStatus.PENDING;
            SmbSession signer = interim || encryptFor != null ? null : signingSession(c);
            if (signer != null) {
                boolean last = i == parts.size() - 1;
                synchronized (signer) {
                    Smb2Signer s = signer.signerLocked(this); // the channel's key (3.3.4.1.1)
                    s.sign(msg, last && tailPayload != null ? tailPayload.segment().asByteBuffer() : null);
                }
            }
            if (c.reply.afterBuild != null) {
                c.reply.afterBuild.accept(msg);
            }
        }
        if (encryptFor != null) {
            List<ByteBuffer> all = new ArrayList<>(parts);
            long sealedPayload = paddedPayload;
            if (tailPayload != null) {
                all.add(tailPayload.segment().asByteBuffer());
                sealedPayload += tailPayload.length();
            }
            // Smb2Cipher.encrypt gathers the plaintext into an array, seals it into another and places
            // that in the message: three copies of the payload before write() gathers it once more
            server.config().copies().add(transport.kind(), 3 * sealedPayload);
            ByteBuffer sealed = encryptFor.encryptor.encrypt(encryptFor.id, all.toArray(new ByteBuffer[0]));
            if (tailPayload != null) {
                tailPayload.release();
            }
            transport.send(List.of(sealed), null, sealedPayload, invalidate(sent));
            interimsSent(done);
            return;
        }
        transport.send(parts, tailPayload, paddedPayload, invalidate(sent));
        interimsSent(done);
    }

    /** Final responses of async operations that completed before their interim response may follow it now. */
    private static void interimsSent(List<Ctx> done) {
        for (Ctx c : done) {
            if (c.reply.async != null) {
                c.reply.async.interimSent(c.reply.asyncId != 0 && c.reply.status == NtStatus.PENDING && !c.reply.none);
            }
        }
    }

    /** The client's memory token a response asks to invalidate (SMB2_CHANNEL_RDMA_V1_INVALIDATE), or -1. */
    private static long invalidate(List<Ctx> sent) {
        long token = -1;
        for (Ctx c : sent) {
            if (c.reply.invalidateToken >= 0) {
                token = c.reply.invalidateToken;
            }
        }
        return token;
    }

    private void write(List<ByteBuffer> parts, io.rdmagate.vfs.memory.IoMemory payload) {
        write(parts, payload, 0);
    }

    private void write(List<ByteBuffer> parts, io.rdmagate.vfs.memory.IoMemory payload, long payloadInParts) {
        transport.send(parts, payload, payloadInParts);
    }

    /** Sends an SMB2 message built outside a request (SMB1 upgrade, async completions). */
    void sendRaw(ByteBuffer msg) {
        write(List.of(msg), null);
    }

    /**
     * MS-SMB2 3.3.4.6: sends an Oplock Break Notification for an open of this connection. It is not
     * signed (SessionId 0); on 3.x it is encrypted when the open's session or share asks for it.
     */
    void sendOplockBreak(Open o, int level) {
        if (sendNotification(o, io.rdmagate.smb.mssmb2.Smb2OplockBreak.notification(level, o.fileId()))) {
            server.metrics().oplockBreak();
        }
    }

    /** MS-SMB2 3.3.4.7: a Lease Break Notification goes out like an oplock break, on a connection of the lease's opens. */
    void sendLeaseBreak(Open o, ByteBuffer msg) {
        if (sendNotification(o, msg)) {
            server.metrics().leaseBreak();
        }
    }

    /** Whether it was sent (false: the connection is gone). */
    private boolean sendNotification(Open o, ByteBuffer msg) {
        if (!transport.isOpen()) {
            return false;
        }
        SmbSession s = o.session;
        if (Smb2Dialect.is3(dialect) && s.encryptor != null && (s.encryptData || o.tree() != null && o.tree().encrypt())) {
            write(List.of(s.encryptor.encrypt(s.id, msg)), null);
            return true;
        }
        write(List.of(msg), null);
        return true;
    }

    /** An operation answered later (MS-SMB2 3.3.4.2): CHANGE_NOTIFY, a blocking LOCK. */
    public final class AsyncOp {
        final long asyncId;
        final long messageId;
        final int command;
        final SmbSession session;
        final int treeId;
        final boolean signed;
        final boolean encrypted;
        final int creditCharge;
        final long start;
        volatile Runnable cancel = () -> { };
        /** A CANCEL named this operation, perhaps before its handler said how to cancel it. */
        private volatile boolean cancelRequested;
        private final java.util.concurrent.atomic.AtomicBoolean completed = new java.util.concurrent.atomic.AtomicBoolean();
        /** Guards {@link #interimOut} and {@link #held}: the final response never overtakes the interim one. */
        private final Object order = new Object();
        private boolean interimOut;
        private ByteBuffer held;

        AsyncOp(Ctx c) {
            this.asyncId = nextAsyncId.getAndIncrement();
            this.messageId = Smb2Header.messageId(c.msg);
            this.command = Smb2Header.command(c.msg);
            this.session = c.session;
            this.treeId = c.tree == null ? 0 : c.tree.id;
            this.signed = c.requestSigned;
            this.encrypted = c.encrypted;
            this.creditCharge = Smb2Header.creditCharge(c.msg);
            this.start = c.start;
        }

        /** Runs the cancel action (CANCEL, connection loss). */
        public void cancel() {
            cancelRequested = true;
            cancel.run();
        }

        /**
         * How to cancel the operation. A CANCEL that came first (before the request went async,
         * or before this call) runs {@code r} now.
         */
        public void onCancel(Runnable r) {
            cancel = r;
            if (cancelRequested) {
                r.run();
            }
        }

        /** The interim response went out (or the request was answered otherwise): a held final response follows. */
        void interimSent(boolean interim) {
            ByteBuffer msg;
            synchronized (order) {
                interimOut = true;
                msg = held;
                held = null;
            }
            if (msg != null && interim) {
                write(List.of(msg), null);
            }
        }

        private void sendFinal(ByteBuffer msg) {
            synchronized (order) {
                if (!interimOut) {
                    held = msg; // completed before the interim response left: it follows that
                    return;
                }
            }
            write(List.of(msg), null);
        }

        /** Whether the final response went out (or a cancel or lost connection ended the operation). */
        public boolean done() {
            return completed.get();
        }

        /**
         * Sends the final response once; {@code fill} writes the body (or sets an error status).
         * Returns false when the operation had already completed and nothing was sent.
         */
        public boolean complete(Consumer<Reply> fill) {
            if (!completed.compareAndSet(false, true)) {
                return false;
            }
            async.remove(asyncId);
            Reply r = new Reply();
            fill.accept(r);
            if (r.buf == null || (NtStatus.isError(r.status) && r.bodyLength == 0)) {
                r.body(9);
                Smb2Error.write(r.buf);
                r.bodyLength = 9;
            }
            Smb2Header.writeResponse(r.buf, command, r.status, creditCharge, 0, 0, messageId, asyncId, treeId, session.id);
            server.metrics().request(command, r.status, start);
            ByteBuffer msg = r.buf.slice(0, Smb2Header.SIZE + r.bodyLength).order(ByteOrder.LITTLE_ENDIAN);
            if (encrypted || session.encryptData) {
                Smb2Cipher enc = session.encryptor;
                if (enc != null) {
                    sendFinal(enc.encrypt(session.id, msg));
                    return true;
                }
            }
            if ((signed || session.signingRequired) && session.hasSigner()) {
                synchronized (session) {
                    session.signerLocked(SmbConnection.this).sign(msg, null);
                }
            }
            sendFinal(msg);
            return true;
        }
    }

    /**
     * Makes the request async: the interim response goes out with the rest of the compound, and
     * a final response completed before that waits for it. A CANCEL of its MessageId that came
     * while the request was still being handled cancels it now. Fails with
     * STATUS_INSUFFICIENT_RESOURCES when {@code maxAsyncRequests} of the connection are pending.
     */
    public AsyncOp goAsync(Ctx c) throws SmbException {
        AsyncOp op = new AsyncOp(c);
        synchronized (earlyCancels) {
            if (async.size() >= server.config().maxAsyncRequests()) {
                // MS-SMB2 3.3.4.2: an operation that needs asynchronous processing when resources are constrained
                throw new SmbException(NtStatus.INSUFFICIENT_RESOURCES, async.size() + " requests of this connection are pending");
            }
            async.put(op.asyncId, op);
            if (earlyCancels.remove(op.messageId)) {
                op.cancelRequested = true;
            }
        }
        c.reply.asyncId = op.asyncId;
        c.reply.async = op;
        c.reply.status = NtStatus.PENDING;
        return op;
    }

    /** Whether a request could go async now (see {@link #goAsync}). */
    public boolean mayGoAsync() {
        return async.size() < server.config().maxAsyncRequests();
    }

    /** The request in {@code c} no longer needs the messages after it to wait (see {@link ArrivalOrder}). */
    public void turnTaken(Ctx c) {
        arrival.taken(c.ticket);
    }

    /**
     * MS-SMB2 3.3.5.16: cancels the request a CANCEL names, by AsyncId, or by MessageId while it
     * is synchronous. Requests are handled concurrently, so the CANCEL may be handled before the
     * request it names goes async (a client sends it microseconds later): its MessageId is kept
     * (the last {@link #EARLY_CANCELS}) for the request to find when it does.
     */
    public void cancel(ByteBuffer cancel) {
        AsyncOp op;
        synchronized (earlyCancels) {
            op = findAsync(cancel);
            if (op == null && !Smb2Header.isAsync(cancel)) {
                long mid = Smb2Header.messageId(cancel);
                if (earlyCancels.size() >= EARLY_CANCELS) {
                    earlyCancels.remove(earlyCancels.iterator().next());
                }
                earlyCancels.add(mid);
            }
        }
        if (op != null) {
            op.cancel();
        }
    }

    private AsyncOp findAsync(ByteBuffer cancel) {
        if (Smb2Header.isAsync(cancel)) {
            return async.get(Smb2Header.asyncId(cancel));
        }
        long mid = Smb2Header.messageId(cancel);
        for (AsyncOp op : async.values()) {
            if (op.messageId == mid) {
                return op;
            }
        }
        return null;
    }
}
