package io.rdmagate.smb.server;

import io.rdmagate.smb.msnlmp.NtlmCrypto;
import io.rdmagate.smb.msnlmp.NtlmServer;
import io.rdmagate.smb.mserref.NtStatus;
import io.rdmagate.smb.mssmb2.FileId;
import io.rdmagate.smb.mssmb2.Smb2Command;
import io.rdmagate.smb.mssmb2.Smb2Dialect;
import io.rdmagate.smb.mssmb2.Smb2Header;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * A minimal SMB 2.1 client over a socket for tests that need what smbj does not expose: requested
 * oplock levels, break notifications (MessageId all ones), interim responses and raw acknowledgments.
 * Logs on with NTLMv2 (raw NTLMSSP tokens, unsigned), connects share "data".
 */
final class RawSmbClient implements AutoCloseable {
    static final int READ_WRITE = 0x0012019F; // FILE_GENERIC_READ | FILE_GENERIC_WRITE
    static final int SHARE_ALL = 7;

    /** How messages cross: Direct TCP frames or SMB Direct messages. */
    interface Frames {
        /** Sends one SMB2 message (or compound) as it is. */
        void write(byte[] message, int length) throws IOException;

        /** The next message; IOException when the connection ended. */
        byte[] read() throws IOException, InterruptedException;

        void close() throws IOException;
    }

    /** Direct TCP (MS-SMB2 2.1): a 4-byte length before each message. */
    static final class TcpFrames implements Frames {
        private final Socket socket;
        private final DataInputStream in;
        private final OutputStream out;

        TcpFrames(int port) throws IOException {
            socket = new Socket(InetAddress.getLoopbackAddress(), port);
            socket.setTcpNoDelay(true);
            in = new DataInputStream(new java.io.BufferedInputStream(socket.getInputStream()));
            out = new java.io.BufferedOutputStream(socket.getOutputStream()); // one segment per request: flushed in write
        }

        @Override
        public void write(byte[] message, int n) throws IOException {
            synchronized (out) {
                out.write(new byte[] {0, (byte) (n >> 16), (byte) (n >> 8), (byte) n});
                out.write(message, 0, n);
                out.flush();
            }
        }

        @Override
        public byte[] read() throws IOException {
            int h = in.readInt();
            byte[] b = new byte[h & 0xffffff];
            in.readFully(b);
            return b;
        }

        @Override
        public void close() throws IOException {
            socket.close();
        }
    }

    private final Frames frames;
    private final AtomicLong nextMid = new AtomicLong();
    private final Map<Long, CompletableFuture<ByteBuffer>> pending = new ConcurrentHashMap<>();
    /** Break notifications as they arrive (MS-SMB2 2.2.23.1), unless a handler takes them. */
    final BlockingQueue<ByteBuffer> breaks = new LinkedBlockingQueue<>();
    /** MessageIds answered STATUS_PENDING first (MS-SMB2 3.3.4.2). */
    final java.util.Set<Long> interim = ConcurrentHashMap.newKeySet();
    /** Futures of {@link #sendAnswered}, completed by an interim response if one comes first. */
    private final Map<Long, CompletableFuture<ByteBuffer>> interimWaiters = new ConcurrentHashMap<>();
    volatile Consumer<ByteBuffer> onBreak;
    long sessionId;
    int treeId;
    /** The exported session key of the last successful logon or binding (NTLM KEY_EXCH). */
    byte[] sessionKey;
    /** When set, every request is signed with it (a 3.x session's or channel's AES-CMAC key). */
    volatile io.rdmagate.smb.mssmb2.crypto.Smb2Signer signer;

    record Created(int status, int oplockLevel, FileId fileId) {
    }

    /** A request as sent: its command and its bytes (header included). */
    record Sent(int command, byte[] message) {
    }

    /** When not null, every request sent is added here (seeds for the fuzz campaigns). */
    volatile List<Sent> sent;
    /** Set by {@link #stopReading()}: the read loop takes no more responses. */
    private volatile boolean stalled;
    private final java.util.concurrent.CountDownLatch closing = new java.util.concurrent.CountDownLatch(1);

    /** Completes when the read loop ends: the server closed or reset the connection. */
    private final CompletableFuture<Void> ended = new CompletableFuture<>();

    RawSmbClient(int port) throws IOException {
        this(new TcpFrames(port));
    }

    RawSmbClient(Frames frames) {
        this.frames = frames;
        Thread.ofVirtual().start(this::readLoop);
    }

    private void readLoop() {
        try {
            while (true) {
                if (stalled) {
                    closing.await(); // a stalled client reads nothing more until it closes
                    return;
                }
                byte[] b = frames.read();
                ByteBuffer m = ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN);
                long mid = Smb2Header.messageId(m);
                if (mid == -1L && Smb2Header.command(m) == Smb2Command.OPLOCK_BREAK) {
                    Consumer<ByteBuffer> h2 = onBreak;
                    if (h2 != null) {
                        h2.accept(m);
                    } else {
                        breaks.add(m);
                    }
                    continue;
                }
                if (Smb2Header.isAsync(m) && Smb2Header.status(m) == NtStatus.PENDING) {
                    interim.add(mid);
                    CompletableFuture<ByteBuffer> w = interimWaiters.remove(mid);
                    if (w != null) {
                        w.complete(m);
                    }
                    continue;
                }
                CompletableFuture<ByteBuffer> f = pending.remove(mid);
                if (f != null) {
                    f.complete(m);
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (IOException e) {
            ended.complete(null);
            pending.values().forEach(f -> f.completeExceptionally(e));
        }
    }

    /** Sends a request; the header's MessageId, SessionId and TreeId are filled in. */
    CompletableFuture<ByteBuffer> send(int command, ByteBuffer m) throws IOException {
        return send(command, m, 1);
    }

    /** As {@link #send(int, ByteBuffer)} with a CreditCharge (MS-SMB2 3.2.4.1.5): it takes that many MessageIds. */
    CompletableFuture<ByteBuffer> send(int command, ByteBuffer m, int charge) throws IOException {
        return sendAs(command, m, nextMid.getAndAdd(charge), charge);
    }

    /**
     * As {@link #send(int, ByteBuffer, int)} with MessageId {@code mid}, whichever the client used
     * before: the next request's MessageId does not change.
     */
    CompletableFuture<ByteBuffer> sendAs(int command, ByteBuffer m, long mid, int charge) throws IOException {
        Smb2Header.writeRequest(m, command, charge, 16, 0, mid, treeId, sessionId);
        io.rdmagate.smb.mssmb2.crypto.Smb2Signer sig = signer;
        if (sig != null) {
            sig.sign(m, null);
        }
        if (sent != null) {
            sent.add(new Sent(command, Arrays.copyOf(m.array(), m.limit())));
        }
        CompletableFuture<ByteBuffer> f = new CompletableFuture<>();
        pending.put(mid, f);
        if (ended.isDone()) {
            f.completeExceptionally(new IOException("connection closed by the server"));
        }
        frames.write(m.array(), m.limit());
        return f;
    }

    /**
     * As {@link #send(int, ByteBuffer)}, the future completing with the first answer: the
     * response, or the interim STATUS_PENDING of a request the server goes on with asynchronously
     * (MS-SMB2 3.3.4.2: a blocking lock, a change notification).
     */
    CompletableFuture<ByteBuffer> sendAnswered(int command, ByteBuffer m) throws IOException {
        CompletableFuture<ByteBuffer> first = new CompletableFuture<>();
        interimWaiters.put(nextMid.get(), first);
        send(command, m).whenComplete((r, e) -> {
            if (e != null) {
                first.completeExceptionally(e);
            } else {
                first.complete(r);
            }
        });
        return first;
    }

    /** The final response to the request sent with {@code mid}, while it has not come; null after. */
    CompletableFuture<ByteBuffer> response(long mid) {
        return pending.get(mid);
    }

    /** Sends {@code message} as one frame, as it is (no header field filled in). */
    void sendFrame(byte[] message) throws IOException {
        frames.write(message, message.length);
    }

    /**
     * Sends a READ (MS-SMB2 2.2.19) of {@code length} bytes at {@code offset}, charged in 64 KiB
     * credits, without waiting for its response.
     */
    CompletableFuture<ByteBuffer> sendRead(FileId f, long offset, int length) throws IOException {
        ByteBuffer m = msg(49);
        m.putShort(64, (short) 49).put(66, (byte) 0x50).putInt(68, length).putLong(72, offset);
        f.write(m, 80);
        return send(Smb2Command.READ, m, Math.max(1, (length + 65535) / 65536));
    }

    /** From the next response on, reads nothing: the server's responses pile up as for a stalled client. */
    void stopReading() {
        stalled = true;
    }

    /** The session this client logged on with. */
    long sessionId() {
        return sessionId;
    }

    /**
     * Whether the server closes the connection within {@code millis}, sending nothing: unlike
     * {@link #closedByServer}, no ECHO races a request the server is still processing (the server
     * serves a connection's frames concurrently, so an ECHO sent after may be answered first).
     */
    boolean endsWithin(long millis) throws InterruptedException {
        try {
            ended.get(millis, TimeUnit.MILLISECONDS);
            return true;
        } catch (java.util.concurrent.TimeoutException e) {
            return false;
        } catch (java.util.concurrent.ExecutionException e) {
            throw new AssertionError(e);
        }
    }

    /** Whether the server closed the connection: a pending request completed exceptionally, or a read ended. */
    boolean closedByServer(long millis) throws Exception {
        try {
            send(Smb2Command.ECHO, echo()).get(millis, TimeUnit.MILLISECONDS);
            return false;
        } catch (java.util.concurrent.ExecutionException | IOException e) {
            return true;
        }
    }

    /** An ECHO request (MS-SMB2 2.2.28), its header to be filled in by {@link #send}. */
    static ByteBuffer echo() {
        ByteBuffer m = msg(4);
        m.putShort(64, (short) 4);
        return m;
    }

    ByteBuffer call(int command, ByteBuffer m) throws Exception {
        return send(command, m).get(20, TimeUnit.SECONDS);
    }

    static ByteBuffer msg(int bodyLength) {
        return ByteBuffer.allocate(64 + bodyLength).order(ByteOrder.LITTLE_ENDIAN);
    }

    /** The dialect {@link #logon} offers: 2.1, or 3.0.2 (unsigned, so only where signing is not required). */
    int dialect = Smb2Dialect.SMB_2_1;
    /** ClientGuid of the NEGOTIATE (MS-SMB2 2.2.3): a client keeps it across its connections. */
    byte[] clientGuid = new byte[16];

    /** NEGOTIATE, SESSION_SETUP (NTLMv2), TREE_CONNECT \\127.0.0.1\data. */
    RawSmbClient logon() throws Exception {
        ByteBuffer n = msg(36 + 2);
        n.putShort(64, (short) 36).putShort(66, (short) 1).putShort(68, (short) 1).put(76, clientGuid)
                .putShort(100, (short) dialect);
        check(call(Smb2Command.NEGOTIATE, n), NtStatus.SUCCESS);
        check(sessionSetup(previousSessionId), NtStatus.SUCCESS);
        if (signAfterSetup) {
            signer = signer30(sessionKey);
        }
        byte[] path = "\\\\127.0.0.1\\data".getBytes(StandardCharsets.UTF_16LE);
        ByteBuffer t = msg(8 + path.length);
        t.putShort(64, (short) 9).putShort(68, (short) 72).putShort(70, (short) path.length).put(72, path);
        ByteBuffer tr = call(Smb2Command.TREE_CONNECT, t);
        check(tr, NtStatus.SUCCESS);
        treeId = Smb2Header.treeId(tr);
        return this;
    }

    /** Whether {@link #logon} signs what follows SESSION_SETUP: {@link #logonSigned}. */
    private boolean signAfterSetup;

    /**
     * As {@link #logon}, on SMB 3.0.2, every request after SESSION_SETUP (TREE_CONNECT first) signed
     * with the session's key (MS-SMB2 3.2.4.1.1), as a server that requires signing expects.
     */
    RawSmbClient logonSigned() throws Exception {
        dialect = Smb2Dialect.SMB_3_0_2;
        signAfterSetup = true;
        return logon();
    }

    /** PreviousSessionId of the next logon (MS-SMB2 2.2.5): a reconnecting client names its old session. */
    long previousSessionId;

    /**
     * The two SESSION_SETUP legs (NTLMv2); on the session already set up when {@code sessionId} is not
     * 0 (a re-authentication). Returns the final response.
     */
    ByteBuffer sessionSetup(long previous) throws Exception {
        ByteBuffer r = call(Smb2Command.SESSION_SETUP, sessionSetup(negotiateToken(), previous));
        check(r, NtStatus.MORE_PROCESSING_REQUIRED);
        sessionId = Smb2Header.sessionId(r);
        byte[] challenge = securityBuffer(r);
        byte[] key = new byte[16];
        new SecureRandom().nextBytes(key);
        ByteBuffer done = call(Smb2Command.SESSION_SETUP, sessionSetup(authenticate(challenge, key), previous));
        sessionKey = key;
        return done;
    }

    /** The AES-CMAC signer of a 3.0/3.0.2 session or channel whose exported key is {@code key} (MS-SMB2 3.2.5.3.1). */
    static io.rdmagate.smb.mssmb2.crypto.Smb2Signer signer30(byte[] key) {
        return io.rdmagate.smb.mssmb2.crypto.Smb2Signer.aesCmac(
                io.rdmagate.smb.mssmb2.crypto.Smb2Kdf.serverKeys(key, false, null, 128).signing());
    }

    /**
     * Binds this connection to {@code primary}'s session (MS-SMB2 3.2.4.1.7): NEGOTIATE with the same
     * dialect and ClientGuid, then both SESSION_SETUP legs with SMB2_SESSION_FLAG_BINDING, signed with
     * the session's key; afterwards this client signs with the channel's key. Returns the final
     * response (its status tells whether the binding was accepted).
     */
    ByteBuffer bindTo(RawSmbClient primary) throws Exception {
        dialect = primary.dialect;
        clientGuid = primary.clientGuid;
        ByteBuffer n = msg(36 + 2);
        n.putShort(64, (short) 36).putShort(66, (short) 1).putShort(68, (short) 1).putInt(72, 0x8).put(76, clientGuid)
                .putShort(100, (short) dialect);
        check(call(Smb2Command.NEGOTIATE, n), NtStatus.SUCCESS);
        sessionId = primary.sessionId;
        treeId = primary.treeId;
        signer = primary.signer;
        ByteBuffer r = call(Smb2Command.SESSION_SETUP, binding(negotiateToken()));
        if (Smb2Header.status(r) != NtStatus.MORE_PROCESSING_REQUIRED) {
            return r;
        }
        byte[] key = new byte[16];
        new SecureRandom().nextBytes(key);
        ByteBuffer done = call(Smb2Command.SESSION_SETUP, binding(authenticate(securityBuffer(r), key)));
        if (Smb2Header.status(done) == NtStatus.SUCCESS) {
            sessionKey = key;
            signer = signer30(key);
        }
        return done;
    }

    private static ByteBuffer binding(byte[] token) {
        ByteBuffer m = sessionSetup(token, 0);
        m.put(66, (byte) 1); // Flags: SMB2_SESSION_FLAG_BINDING
        return m;
    }

    static void check(ByteBuffer r, int status) {
        if (Smb2Header.status(r) != status) {
            throw new AssertionError("status " + NtStatus.hex(Smb2Header.status(r)) + ", expected " + NtStatus.hex(status));
        }
    }

    private static ByteBuffer sessionSetup(byte[] token, long previous) {
        ByteBuffer m = msg(24 + token.length);
        m.putShort(64, (short) 25).put(67, (byte) 1).putShort(76, (short) 88).putShort(78, (short) token.length)
                .putLong(80, previous).put(88, token);
        return m;
    }

    private static byte[] securityBuffer(ByteBuffer r) {
        int off = r.getShort(68) & 0xffff;
        int len = r.getShort(70) & 0xffff;
        return Arrays.copyOfRange(r.array(), off, off + len);
    }

    private static final int FLAGS = NtlmServer.NEGOTIATE_KEY_EXCH | NtlmServer.NEGOTIATE_UNICODE
            | NtlmServer.NEGOTIATE_SIGN | NtlmServer.NEGOTIATE_128 | NtlmServer.NEGOTIATE_EXTENDED_SESSIONSECURITY;

    private static byte[] negotiateToken() {
        ByteBuffer n = ByteBuffer.allocate(32).order(ByteOrder.LITTLE_ENDIAN);
        n.put("NTLMSSP\0".getBytes(StandardCharsets.US_ASCII)).putInt(1).putInt(FLAGS);
        return n.array();
    }

    /** NTLMv2 AUTHENTICATE_MESSAGE (MS-NLMP 3.1.5.1.2), without MIC. */
    private static byte[] authenticate(byte[] challenge, byte[] randomSessionKey) {
        ByteBuffer c = ByteBuffer.wrap(challenge).order(ByteOrder.LITTLE_ENDIAN);
        byte[] sc = Arrays.copyOfRange(challenge, 24, 32);
        int tiLen = c.getShort(40) & 0xffff;
        int tiOff = c.getInt(44);
        byte[] ti = Arrays.copyOfRange(challenge, tiOff, tiOff + tiLen);
        ByteBuffer temp = ByteBuffer.allocate(28 + ti.length + 4).order(ByteOrder.LITTLE_ENDIAN);
        temp.put((byte) 1).put((byte) 1).putShort((short) 0).putInt(0).putLong(0).putLong(0x1122334455667788L).putInt(0);
        temp.put(ti).putInt(0);
        byte[] t = temp.array();
        String user = TestServer.USER;
        String domain = "WORKGROUP";
        byte[] key = NtlmCrypto.ntowfV2(TestServer.ntHash(TestServer.PASSWORD), user, domain);
        byte[] proof = NtlmCrypto.ntProofStr(key, sc, t);
        byte[] base = NtlmCrypto.sessionBaseKey(key, proof);
        byte[] nt = new byte[16 + t.length];
        System.arraycopy(proof, 0, nt, 0, 16);
        System.arraycopy(t, 0, nt, 16, t.length);
        byte[] d = domain.getBytes(StandardCharsets.UTF_16LE);
        byte[] u = user.getBytes(StandardCharsets.UTF_16LE);
        byte[] enc = NtlmCrypto.rc4(base, randomSessionKey);
        int p = 88;
        ByteBuffer m = ByteBuffer.allocate(p + 24 + nt.length + d.length + u.length + 16).order(ByteOrder.LITTLE_ENDIAN);
        m.put("NTLMSSP\0".getBytes(StandardCharsets.US_ASCII)).putInt(3);
        m.putShort(12, (short) 24).putShort(14, (short) 24).putInt(16, p);
        p += 24;
        m.putShort(20, (short) nt.length).putShort(22, (short) nt.length).putInt(24, p).put(p, nt);
        p += nt.length;
        m.putShort(28, (short) d.length).putShort(30, (short) d.length).putInt(32, p).put(p, d);
        p += d.length;
        m.putShort(36, (short) u.length).putShort(38, (short) u.length).putInt(40, p).put(p, u);
        p += u.length;
        m.putShort(44, (short) 0).putShort(46, (short) 0).putInt(48, p);
        m.putShort(52, (short) 16).putShort(54, (short) 16).putInt(56, p).put(p, enc);
        m.putInt(60, FLAGS);
        return m.array();
    }

    /** CREATE (MS-SMB2 2.2.13) without create contexts. */
    CompletableFuture<ByteBuffer> sendCreate(String name, int oplock, int access, int share, int disposition) throws IOException {
        return sendCreate(name, oplock, access, share, disposition, 0x40); // FILE_NON_DIRECTORY_FILE
    }

    private CompletableFuture<ByteBuffer> sendCreate(String name, int oplock, int access, int share, int disposition,
            int options) throws IOException {
        byte[] n = name.getBytes(StandardCharsets.UTF_16LE);
        ByteBuffer m = msg(56 + Math.max(1, n.length));
        m.putShort(64, (short) 57).put(67, (byte) oplock).putInt(68, 2).putInt(88, access).putInt(92, 0x80)
                .putInt(96, share).putInt(100, disposition).putInt(104, options)
                .putShort(108, (short) 120).putShort(110, (short) n.length).put(120, n);
        return send(Smb2Command.CREATE, m);
    }

    /** Opens (or creates) directory {@code name} with FILE_LIST_DIRECTORY | FILE_READ_ATTRIBUTES, sharing all. */
    Created openDirectory(String name) throws Exception {
        return created(sendCreate(name, 0, 0x81, 7, 3, 0x1).get(20, TimeUnit.SECONDS)); // FILE_OPEN_IF, FILE_DIRECTORY_FILE
    }

    /** SET_INFO (MS-SMB2 2.2.39) of {@code buffer} as it is; returns the response's status. */
    int setInfo(FileId f, int infoType, int infoClass, int additionalInformation, byte[] buffer) throws Exception {
        ByteBuffer m = msg(32 + Math.max(1, buffer.length));
        m.putShort(64, (short) 33).put(66, (byte) infoType).put(67, (byte) infoClass).putInt(68, buffer.length)
                .putShort(72, (short) 96).putInt(76, additionalInformation).put(96, buffer);
        f.write(m, 80);
        return Smb2Header.status(call(Smb2Command.SET_INFO, m));
    }

    /** Takes {@code n} MessageIds for requests sent otherwise (a compound built by hand); returns the first. */
    long takeMessageIds(int n) {
        return nextMid.getAndAdd(n);
    }

    /** The MessageId the next request will carry. */
    long nextMessageId() {
        return nextMid.get();
    }

    /** CHANGE_NOTIFY (MS-SMB2 2.2.35) on directory {@code dir}, without waiting for its response. */
    CompletableFuture<ByteBuffer> sendChangeNotify(FileId dir, int completionFilter, int outputLength) throws IOException {
        return send(Smb2Command.CHANGE_NOTIFY, changeNotify(dir, completionFilter, outputLength));
    }

    /** A CHANGE_NOTIFY request (MS-SMB2 2.2.35) on directory {@code dir}, its header to be filled in by {@link #send}. */
    static ByteBuffer changeNotify(FileId dir, int completionFilter, int outputLength) {
        ByteBuffer m = msg(32);
        m.putShort(64, (short) 32).putInt(68, outputLength).putInt(88, completionFilter);
        dir.write(m, 72);
        return m;
    }

    /** CANCEL (MS-SMB2 2.2.30) of the synchronous request {@code messageId}: no response comes for it. */
    void sendCancel(long messageId) throws IOException {
        ByteBuffer m = msg(4);
        m.putShort(64, (short) 4);
        Smb2Header.writeRequest(m, Smb2Command.CANCEL, 0, 0, 0, messageId, treeId, sessionId);
        io.rdmagate.smb.mssmb2.crypto.Smb2Signer sig = signer;
        if (sig != null) {
            sig.sign(m, null);
        }
        frames.write(m.array(), m.limit());
    }

    /** CREATE asking for a lease (MS-SMB2 2.2.13.2.8: an RqLs v1 context of 32 bytes). */
    CompletableFuture<ByteBuffer> sendLeaseCreate(String name, byte[] key, int state, int access, int share,
            int disposition) throws IOException {
        byte[] n = name.getBytes(StandardCharsets.UTF_16LE);
        int ctx = 120 + ((n.length + 7) & ~7);
        ByteBuffer m = msg(ctx - 64 + 24 + 32);
        m.putShort(64, (short) 57).put(67, (byte) 0xFF).putInt(68, 2).putInt(88, access).putInt(92, 0x80)
                .putInt(96, share).putInt(100, disposition).putInt(104, 0x40)
                .putShort(108, (short) 120).putShort(110, (short) n.length).put(120, n)
                .putInt(112, ctx).putInt(116, 24 + 32);
        m.putInt(ctx, 0).putShort(ctx + 4, (short) 16).putShort(ctx + 6, (short) 4).putShort(ctx + 10, (short) 24)
                .putInt(ctx + 12, 32).put(ctx + 16, "RqLs".getBytes(StandardCharsets.US_ASCII))
                .put(ctx + 24, key).putInt(ctx + 40, state);
        return send(Smb2Command.CREATE, m);
    }

    /**
     * CREATE with create contexts (MS-SMB2 2.2.13.2): each a 4-character name and its data, in
     * order, 8-aligned, as clients chain them.
     */
    CompletableFuture<ByteBuffer> sendCreate(String name, int oplock, int access, int share, int disposition,
            java.util.Map<String, byte[]> contexts) throws IOException {
        return sendCreate(name, oplock, access, share, disposition, NON_DIRECTORY_FILE, contexts);
    }

    static final int NON_DIRECTORY_FILE = 0x40;
    static final int DELETE_ON_CLOSE = 0x1000;

    /** CREATE with these CreateOptions (MS-SMB2 2.2.13) and create contexts. */
    CompletableFuture<ByteBuffer> sendCreate(String name, int oplock, int access, int share, int disposition, int options,
            java.util.Map<String, byte[]> contexts) throws IOException {
        byte[] n = name.getBytes(StandardCharsets.UTF_16LE);
        int ctx = 120 + ((n.length + 7) & ~7);
        int len = 0;
        for (byte[] d : contexts.values()) {
            len = ((len + 7) & ~7) + 24 + d.length;
        }
        ByteBuffer m = msg(ctx - 64 + len);
        m.putShort(64, (short) 57).put(67, (byte) oplock).putInt(68, 2).putInt(88, access).putInt(92, 0x80)
                .putInt(96, share).putInt(100, disposition).putInt(104, options)
                .putShort(108, (short) 120).putShort(110, (short) n.length).put(120, n)
                .putInt(112, ctx).putInt(116, len);
        int at = ctx;
        int prev = -1;
        for (java.util.Map.Entry<String, byte[]> e : contexts.entrySet()) {
            at = (at + 7) & ~7;
            if (prev >= 0) {
                m.putInt(prev, at - prev);
            }
            byte[] d = e.getValue();
            m.putInt(at, 0).putShort(at + 4, (short) 16).putShort(at + 6, (short) 4)
                    .putShort(at + 10, (short) (d.length == 0 ? 0 : 24)).putInt(at + 12, d.length)
                    .put(at + 16, e.getKey().getBytes(StandardCharsets.US_ASCII)).put(at + 24, d);
            prev = at;
            at += 24 + d.length;
        }
        return send(Smb2Command.CREATE, m);
    }

    /** The names of a CREATE response's contexts, in order. */
    static java.util.List<String> contextNames(ByteBuffer r) {
        java.util.List<String> names = new java.util.ArrayList<>();
        int off = r.getInt(144);
        if (r.getInt(148) == 0) {
            return names;
        }
        int at = off;
        while (true) {
            int nameOff = r.getShort(at + 4) & 0xffff;
            names.add(new String(r.array(), at + nameOff, r.getShort(at + 6) & 0xffff, StandardCharsets.US_ASCII));
            int next = r.getInt(at);
            if (next == 0) {
                return names;
            }
            at += next;
        }
    }

    /** The lease state of a CREATE response's RqLs context, or -1 without one. */
    static int leaseState(ByteBuffer r) {
        int off = r.getInt(144);
        int len = r.getInt(148);
        if (len == 0) {
            return -1;
        }
        int at = off;
        while (true) {
            int nameOff = r.getShort(at + 4) & 0xffff;
            String nm = new String(r.array(), at + nameOff, r.getShort(at + 6) & 0xffff, StandardCharsets.US_ASCII);
            if (nm.equals("RqLs")) {
                return r.getInt(at + (r.getShort(at + 10) & 0xffff) + 16);
            }
            int next = r.getInt(at);
            if (next == 0) {
                return -1;
            }
            at += next;
        }
    }

    /** LEASE_BREAK acknowledgment (MS-SMB2 2.2.24.2). */
    ByteBuffer leaseAck(byte[] key, int state) throws Exception {
        ByteBuffer m = msg(36);
        m.putShort(64, (short) 36).put(72, key).putInt(88, state);
        return call(Smb2Command.OPLOCK_BREAK, m);
    }

    static Created created(ByteBuffer r) {
        int st = Smb2Header.status(r);
        return st != NtStatus.SUCCESS ? new Created(st, -1, null) : new Created(st, r.get(66) & 0xff, FileId.read(r, 128));
    }

    Created create(String name, int oplock, int access, int share, int disposition) throws Exception {
        return created(sendCreate(name, oplock, access, share, disposition).get(20, TimeUnit.SECONDS));
    }

    int write(FileId f, long offset, byte[] data) throws Exception {
        ByteBuffer m = msg(48 + data.length);
        m.putShort(64, (short) 49).putShort(66, (short) 112).putInt(68, data.length).putLong(72, offset);
        f.write(m, 80);
        m.put(112, data);
        int charge = Math.max(1, (data.length + 65535) / 65536);
        return Smb2Header.status(send(Smb2Command.WRITE, m, charge).get(20, TimeUnit.SECONDS));
    }

    int lock(FileId f, long offset, long length, int flags) throws Exception {
        ByteBuffer m = msg(48);
        m.putShort(64, (short) 48).putShort(66, (short) 1);
        f.write(m, 72);
        m.putLong(88, offset).putLong(96, length).putInt(104, flags);
        return Smb2Header.status(call(Smb2Command.LOCK, m));
    }

    int close(FileId f) throws Exception {
        return Smb2Header.status(call(Smb2Command.CLOSE, closeMsg(f)));
    }

    CompletableFuture<ByteBuffer> sendClose(FileId f) throws IOException {
        return send(Smb2Command.CLOSE, closeMsg(f));
    }

    /** QUERY_INFO FilePositionInformation (MS-SMB2 2.2.37): a cheap request that needs the session and the open. */
    int queryPosition(FileId f) throws Exception {
        ByteBuffer m = msg(40);
        m.putShort(64, (short) 41).put(66, (byte) 1).put(67, (byte) 14).putInt(68, 8);
        f.write(m, 88);
        return Smb2Header.status(call(Smb2Command.QUERY_INFO, m));
    }

    private static ByteBuffer closeMsg(FileId f) {
        ByteBuffer m = msg(24);
        m.putShort(64, (short) 24);
        f.write(m, 72);
        return m;
    }

    /** OPLOCK_BREAK acknowledgment (MS-SMB2 2.2.24.1); the response's status and OplockLevel. */
    CompletableFuture<ByteBuffer> sendAck(FileId f, int level) throws IOException {
        ByteBuffer m = msg(24);
        m.putShort(64, (short) 24).put(66, (byte) level);
        f.write(m, 72);
        return send(Smb2Command.OPLOCK_BREAK, m);
    }

    ByteBuffer ack(FileId f, int level) throws Exception {
        return sendAck(f, level).get(20, TimeUnit.SECONDS);
    }

    /** The next break notification within the time, or null. */
    ByteBuffer nextBreak(long millis) throws InterruptedException {
        return breaks.poll(millis, TimeUnit.MILLISECONDS);
    }

    static int breakLevel(ByteBuffer n) {
        return n.get(66) & 0xff;
    }

    static FileId breakFileId(ByteBuffer n) {
        return FileId.read(n, 72);
    }

    @Override
    public void close() throws IOException {
        closing.countDown();
        frames.close();
    }
}
