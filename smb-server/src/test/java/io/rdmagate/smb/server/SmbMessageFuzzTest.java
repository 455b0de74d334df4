package io.rdmagate.smb.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rdmagate.smb.mserref.NtStatus;
import io.rdmagate.smb.mssmb2.FileId;
import io.rdmagate.smb.mssmb2.Smb2Command;
import io.rdmagate.smb.mssmb2.Smb2Compound;
import io.rdmagate.smb.mssmb2.Smb2Create;
import io.rdmagate.smb.mssmb2.Smb2Header;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;

/**
 * SMB2 requests from a hostile client, over TCP to the real server: fixed-seed, structure-aware
 * mutation campaigns over requests recorded from a working session (NEGOTIATE with SMB 3.1.1
 * negotiate contexts, SESSION_SETUP with NTLMSSP, and, on an authenticated tree, CREATE with
 * create contexts, READ, WRITE, LOCK, QUERY_INFO, SET_INFO, QUERY_DIRECTORY, IOCTL, FLUSH, ECHO,
 * lease and oplock acknowledgments), and over what real clients sent a gateway ({@link #CORPORA}:
 * smbclient, smbtorture's SMB2 groups, the Linux kernel's cifs). Whatever arrives, the server answers with a status or closes
 * the connection (MS-SMB2 3.3.5.2), never throws while processing a request, and a new client is
 * served afterwards. {@code -Drdmagate.fuzz.rounds=N} sets the number of requests for a long run.
 */
class SmbMessageFuzzTest {
    private static final Duration WAIT = Duration.ofSeconds(1);

    @TempDir
    static Path tmp;
    static TestServer server;

    @BeforeAll
    static void start() throws Exception {
        server = new TestServer(Files.createDirectories(tmp.resolve("export")), Files.createDirectories(tmp.resolve("state")),
                new io.micrometer.core.instrument.simple.SimpleMeterRegistry(), Duration.ZERO);
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    /** A logged-on client whose requests so far, after the tree connect, are the seeds. */
    private record Session(RawSmbClient client, List<RawSmbClient.Sent> seeds) {
    }

    /** Sessions so far: each works on a file of its own (a mutated SET_INFO may have made the last one read-only). */
    private static final java.util.concurrent.atomic.AtomicInteger sessions = new java.util.concurrent.atomic.AtomicInteger();
    /** Names a new session found made already, by a mutated request, and not its to open. */
    private static final java.util.concurrent.atomic.AtomicInteger takenNames = new java.util.concurrent.atomic.AtomicInteger();

    /** What the export holds under {@code name} (and its root), for a failure's message. */
    private static String onDisk(String name) {
        try {
            Path root = tmp.resolve("export");
            Path f = root.resolve(name);
            String file = Files.exists(f, java.nio.file.LinkOption.NOFOLLOW_LINKS)
                    ? "exists, " + java.nio.file.attribute.PosixFilePermissions.toString(Files.getPosixFilePermissions(f))
                            + " xattrs " + Files.getFileAttributeView(f, java.nio.file.attribute.UserDefinedFileAttributeView.class).list()
                    : "absent";
            return file + "; root " + java.nio.file.attribute.PosixFilePermissions.toString(Files.getPosixFilePermissions(root))
                    + " xattrs " + Files.getFileAttributeView(root, java.nio.file.attribute.UserDefinedFileAttributeView.class).list();
        } catch (java.io.IOException e) {
            return e.toString();
        }
    }

    /** How a campaign's client reaches the server: over TCP, or in memory ({@link MemoryFrames}). */
    enum Wire {
        TCP, MEMORY;

        RawSmbClient connect() throws java.io.IOException {
            return this == TCP ? new RawSmbClient(server.port()) : new RawSmbClient(new MemoryFrames(server.server));
        }
    }

    private static Session session(Wire wire) throws Exception {
        RawSmbClient c = wire.connect().logon();
        List<RawSmbClient.Sent> seeds = new ArrayList<>();
        c.sent = seeds;
        int n;
        String name;
        byte[] leaseKey;
        ByteBuffer r;
        List<String> refused = new ArrayList<>();
        do {
            // a mutated CREATE of an earlier session may have made a file of this name already, read-only
            // or with a descriptor that refuses writing: that name is taken, the next is tried
            n = sessions.getAndIncrement();
            name = "fuzz-" + n + ".dat";
            leaseKey = LeaseTest.key(1000 + n); // a lease key names one file
            r = c.sendLeaseCreate(name, leaseKey, 7, RawSmbClient.READ_WRITE, RawSmbClient.SHARE_ALL,
                    Smb2Create.FILE_OPEN_IF).get(10, TimeUnit.SECONDS);
        } while (Smb2Header.status(r) == NtStatus.ACCESS_DENIED && refused.add(name + ": " + onDisk(name))
                && refused.size() < 10);
        if (!refused.isEmpty()) {
            takenNames.addAndGet(refused.size());
        }
        assertEquals(NtStatus.hex(NtStatus.SUCCESS), NtStatus.hex(Smb2Header.status(r)),
                "a new session opens " + name + " (ACCESS_DENIED on " + refused + ")");
        FileId f = FileId.read(r, 128);
        c.write(f, 0, "fuzz data".getBytes(StandardCharsets.UTF_8));
        c.lock(f, 0, 4, 0x2 | 0x10); // exclusive, fail immediately
        c.lock(f, 0, 4, 0x4); // unlock
        c.queryPosition(f);
        c.leaseAck(leaseKey, 7);
        RawSmbClient.Created d = c.create("fuzz-dir", 0, RawSmbClient.READ_WRITE, RawSmbClient.SHARE_ALL, Smb2Create.FILE_OPEN_IF);
        c.call(Smb2Command.READ, read(f));
        c.call(Smb2Command.FLUSH, fileIdAt(msg(24, 24), 72, f));
        c.call(Smb2Command.ECHO, msg(4, 4));
        for (int[] q : new int[][] {{1, 4}, {1, 5}, {1, 18}, {1, 22}, {1, 34}, {2, 1}, {2, 3}, {2, 5}, {2, 7}, {3, 0}}) {
            ByteBuffer m = msg(40, 41);
            m.put(66, (byte) q[0]).put(67, (byte) q[1]).putInt(68, 4096).putShort(72, (short) 104).putInt(80, q[0] == 3 ? 7 : 0);
            c.call(Smb2Command.QUERY_INFO, fileIdAt(m, 88, f));
        }
        c.call(Smb2Command.SET_INFO, setInfo(f, 4, new byte[40])); // FileBasicInformation, nothing changed
        c.call(Smb2Command.SET_INFO, setInfo(f, 20, ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putLong(9).array()));
        byte[] to = name.getBytes(StandardCharsets.UTF_16LE);
        c.call(Smb2Command.SET_INFO, setInfo(f, 10, ByteBuffer.allocate(20 + to.length).order(ByteOrder.LITTLE_ENDIAN)
                .put(0, (byte) 1).putInt(16, to.length).put(20, to).array())); // rename onto itself
        if (d.fileId() != null) {
            ByteBuffer q = msg(32 + 2, 33);
            q.put(66, (byte) 37).put(67, (byte) 1).putShort(88, (short) 96).putShort(90, (short) 2).putInt(92, 65536)
                    .put(96, "*".getBytes(StandardCharsets.UTF_16LE));
            c.call(Smb2Command.QUERY_DIRECTORY, fileIdAt(q, 72, d.fileId()));
        }
        for (int ctl : new int[] {0x001401FC, 0x00140078, 0x000900C4}) { // interfaces, resume key, set sparse
            ByteBuffer m = msg(56, 57);
            m.putInt(68, ctl).putInt(88, 120).putInt(100, 120).putInt(108, 4096).putInt(112, 1);
            c.call(Smb2Command.IOCTL, fileIdAt(m, 72, ctl == 0x001401FC ? null : f));
        }
        c.sent = null;
        return new Session(c, seeds);
    }

    @Test
    void mutatedRequestsOnAnAuthenticatedTreeAreAnsweredOrCloseTheConnection() throws Exception {
        treeCampaign(Wire.TCP, Integer.getInteger("rdmagate.fuzz.rounds", 6000), 20261205);
    }

    /**
     * The same campaign with 10 times as many requests, handed to the connection in memory: what
     * the server does with each is the same, without the loopback's round trips. A long run:
     * {@code -Drdmagate.fuzz.rounds=1000000 -Dtest='SmbMessageFuzzTest#mutatedRequestsOnAnAuthenticatedTreeInMemory*'}
     * (10^7 requests).
     */
    @Test
    void mutatedRequestsOnAnAuthenticatedTreeInMemoryAreAnsweredOrCloseTheConnection() throws Exception {
        treeCampaign(Wire.MEMORY, 10 * Integer.getInteger("rdmagate.fuzz.rounds", 6000), 20261207);
    }

    /**
     * Runs the campaign on {@code -Drdmagate.fuzz.threads} sessions at once (1 by default, so that
     * a run is repeatable; more for a long run, since a CREATE that breaks its own session's
     * oplock waits 50 ms for an acknowledgment this client never sends), each with a seed of its own.
     */
    private void treeCampaign(Wire wire, int rounds, long seedOfRandom) throws Exception {
        long before = server.server.internalErrors();
        long t0 = System.nanoTime();
        int threads = Math.max(1, Integer.getInteger("rdmagate.fuzz.threads", 1));
        Map<String, Integer> outcomes = new TreeMap<>();
        try (var pool = java.util.concurrent.Executors.newFixedThreadPool(threads)) {
            List<java.util.concurrent.Future<Map<String, Integer>>> parts = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int share = rounds / threads + (t < rounds % threads ? 1 : 0);
                long seed = seedOfRandom + t;
                parts.add(pool.submit(() -> treeCampaignPart(wire, share, seed)));
            }
            for (var part : parts) {
                part.get().forEach((k, v) -> outcomes.merge(k, v, Integer::sum));
            }
        }
        System.out.printf("SmbMessageFuzzTest: %d mutated requests (%s, %d at once) in %.1f s, %d session file names"
                + " found taken, outcomes %s%n", rounds, wire, threads, (System.nanoTime() - t0) / 1e9, takenNames.get(), outcomes);
        assertEquals(before, server.server.internalErrors(), "no request made the server throw");
        assertTrue(outcomes.getOrDefault(NtStatus.hex(NtStatus.SUCCESS), 0) > rounds / 20, "many still succeeded: " + outcomes);
        try (RawSmbClient fresh = new RawSmbClient(server.port()).logon()) {
            assertEquals(NtStatus.SUCCESS, Smb2Header.status(fresh.call(Smb2Command.ECHO, msg(4, 4))));
        }
    }

    private Map<String, Integer> treeCampaignPart(Wire wire, int rounds, long seedOfRandom) throws Exception {
        Random rnd = new Random(seedOfRandom);
        Map<String, Integer> outcomes = new TreeMap<>();
        Session s = session(wire);
        assertTrue(s.seeds().size() >= 20, "seeds of every command: " + s.seeds().size());
        // CANCEL has no response of its own: a campaign of answers leaves it to the tests of CANCEL
        List<RawSmbClient.Sent> recorded = recorded(c -> !SESSION_COMMANDS.contains(c) && c != Smb2Command.CANCEL);
        for (int round = 0; round < rounds; round++) {
            // a quarter from real clients' requests; the rest from this session's, whose file ids are live
            RawSmbClient.Sent seed = rnd.nextInt(4) == 0 ? recorded.get(rnd.nextInt(recorded.size()))
                    : s.seeds().get(rnd.nextInt(s.seeds().size()));
            byte[] m = mutate(seed.message(), rnd, 64);
            String outcome;
            try {
                // the first answer: a request the server goes on with (a lock that conflicts, a change
                // notification) is answered STATUS_PENDING, up to smb.maxAsyncRequests of them
                ByteBuffer r = s.client().sendAnswered(seed.command(), ByteBuffer.wrap(m).order(ByteOrder.LITTLE_ENDIAN))
                        .get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
                assertEquals(0x424D53FE, r.getInt(0), "an SMB2 reply");
                outcome = NtStatus.hex(Smb2Header.status(r));
            } catch (TimeoutException | java.util.concurrent.ExecutionException gone) {
                // closed (a malformed request ends the connection) or waiting (a CREATE waiting for its own
                // lease's break inside a compound): a new connection goes on
                outcome = (gone instanceof TimeoutException ? "waiting " : "closed ") + Smb2Command.name(seed.command());
                s.client().close();
                s = session(wire);
            }
            outcomes.merge(outcome, 1, Integer::sum);
        }
        s.client().close();
        return outcomes;
    }

    @Test
    void mutatedNegotiateAndSessionSetupAreAnsweredOrCloseTheConnection() throws Exception {
        negotiateCampaign(Wire.TCP, Integer.getInteger("rdmagate.fuzz.rounds", 6000) / 4, 3311);
    }

    /**
     * The same campaign with 40 times as many requests, each on a fresh connection in memory. A
     * long run: {@code -Drdmagate.fuzz.rounds=1000000 -Dtest='SmbMessageFuzzTest#mutatedNegotiateAndSessionSetupInMemory*'}
     * (10^7 requests).
     */
    @Test
    void mutatedNegotiateAndSessionSetupInMemoryAreAnsweredOrCloseTheConnection() throws Exception {
        negotiateCampaign(Wire.MEMORY, 10 * Integer.getInteger("rdmagate.fuzz.rounds", 6000), 20261207);
    }

    private void negotiateCampaign(Wire wire, int rounds, long seedOfRandom) throws Exception {
        Random rnd = new Random(seedOfRandom);
        long t0 = System.nanoTime();
        long before = server.server.internalErrors();
        List<RawSmbClient.Sent> seeds = new ArrayList<>();
        try (RawSmbClient c = new RawSmbClient(server.port())) {
            c.sent = seeds;
            c.dialect = 0x302;
            c.logon();
        }
        seeds.add(new RawSmbClient.Sent(Smb2Command.NEGOTIATE, negotiate311()));
        seeds.addAll(recorded(c -> c == Smb2Command.NEGOTIATE || c == Smb2Command.SESSION_SETUP));
        Map<String, Integer> outcomes = new TreeMap<>();
        for (int round = 0; round < rounds; round++) {
            RawSmbClient.Sent seed = seeds.get(rnd.nextInt(seeds.size()));
            try (RawSmbClient c = wire.connect()) {
                if (seed.command() != Smb2Command.NEGOTIATE) {
                    ByteBuffer n = c.call(Smb2Command.NEGOTIATE, ByteBuffer.wrap(negotiate311()).order(ByteOrder.LITTLE_ENDIAN));
                    assertEquals(NtStatus.SUCCESS, Smb2Header.status(n));
                    assertEquals(0x311, n.getShort(68) & 0xffff, "SMB 3.1.1 negotiated");
                }
                byte[] m = mutate(seed.message(), rnd, 64);
                String outcome;
                try {
                    ByteBuffer r = c.send(seed.command(), ByteBuffer.wrap(m).order(ByteOrder.LITTLE_ENDIAN))
                            .get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
                    outcome = Smb2Command.name(seed.command()) + " " + NtStatus.hex(Smb2Header.status(r));
                } catch (TimeoutException | java.util.concurrent.ExecutionException gone) {
                    outcome = Smb2Command.name(seed.command()) + (gone instanceof TimeoutException ? " waiting" : " closed");
                }
                outcomes.merge(outcome, 1, Integer::sum);
            }
        }
        System.out.printf("SmbMessageFuzzTest: %d mutated NEGOTIATE/SESSION_SETUP (%s) in %.1f s, outcomes %s%n", rounds,
                wire, (System.nanoTime() - t0) / 1e9, outcomes);
        assertEquals(before, server.server.internalErrors(), "no request made the server throw");
        assertTrue(outcomes.keySet().stream().anyMatch(k -> k.startsWith("NEGOTIATE 0x00000000")), outcomes.toString());
        try (RawSmbClient fresh = new RawSmbClient(server.port()).logon()) {
            assertEquals(NtStatus.SUCCESS, Smb2Header.status(fresh.call(Smb2Command.ECHO, msg(4, 4))));
        }
    }

    /** Commands that set up or end a session or tree: the tree campaign leaves them out of its seeds. */
    private static final java.util.Set<Integer> SESSION_COMMANDS = java.util.Set.of(Smb2Command.NEGOTIATE,
            Smb2Command.SESSION_SETUP, Smb2Command.LOGOFF, Smb2Command.TREE_CONNECT, Smb2Command.TREE_DISCONNECT);

    /** The corpora of requests real clients sent a gateway: smbclient's and smbtorture's ({@code bench/run seeds}), the kernel cifs client's ({@code interop/lab/lab.sh seeds}). */
    static final List<String> CORPORA = List.of("smbclient", "smbtorture", "cifs");

    /** The requests of every corpus in {@link #CORPORA} whose command passes {@code commands}. */
    private static List<RawSmbClient.Sent> recorded(java.util.function.IntPredicate commands) throws Exception {
        List<RawSmbClient.Sent> out = new ArrayList<>();
        for (String corpus : CORPORA) {
            out.addAll(recorded(corpus, commands));
        }
        return out;
    }

    /**
     * What a real client sent a real gateway, one frame per file under {@code seeds/CORPUS}, in
     * {@code index.txt}'s order, a compound split into its requests: the client's own session, tree
     * and file ids, which {@link RawSmbClient#send} replaces with this client's session and tree.
     * Frames that are not SMB2 requests (a transform of an encrypted session) are left out.
     */
    private static List<RawSmbClient.Sent> recorded(String corpus, java.util.function.IntPredicate commands)
            throws Exception {
        Path dir = Path.of(SmbMessageFuzzTest.class.getResource("/seeds/" + corpus + "/index.txt").toURI()).getParent();
        List<RawSmbClient.Sent> out = new ArrayList<>();
        for (String name : Files.readAllLines(dir.resolve("index.txt"))) {
            byte[] frame = name.isBlank() ? new byte[0] : Files.readAllBytes(dir.resolve(name));
            List<ByteBuffer> chain = Smb2Compound.split(ByteBuffer.wrap(frame).order(ByteOrder.LITTLE_ENDIAN), 64);
            for (ByteBuffer one : chain == null ? List.<ByteBuffer>of() : chain) { // a compound: each request alone
                byte[] m = new byte[(int) (Smb2Header.nextCommand(one) != 0 ? Smb2Header.nextCommand(one) : one.limit())];
                one.get(0, m);
                ByteBuffer.wrap(m).order(ByteOrder.LITTLE_ENDIAN).putInt(20, 0); // NextCommand
                int command = Smb2Header.command(one);
                if (commands.test(command)) {
                    out.add(new RawSmbClient.Sent(command, m));
                }
            }
        }
        return out;
    }

    /**
     * Every request a real client made in its sessions, replayed on a logged-on tree as it was
     * sent (with this session's ids): each is answered with a status (or, for a request the server
     * goes on with, STATUS_PENDING first), none ends the connection or makes the server throw, so
     * the server decodes every request smbclient, smbtorture and the kernel's cifs send. CANCEL,
     * which has no response, is left out; an FSCTL_VALIDATE_NEGOTIATE_INFO, which names the
     * recording connection's negotiation, ends the connection as MS-SMB2 3.3.5.15.12 asks, and the
     * replay goes on on a new one.
     */
    @ParameterizedTest
    @org.junit.jupiter.params.provider.FieldSource("CORPORA")
    void everyRequestARealClientMadeIsAnswered(String corpus) throws Exception {
        List<RawSmbClient.Sent> recorded = recorded(corpus, c -> !SESSION_COMMANDS.contains(c) && c != Smb2Command.CANCEL);
        assertTrue(recorded.size() >= 20, "the corpus holds " + corpus + "'s requests: " + recorded.size());
        Map<String, Integer> outcomes = new TreeMap<>();
        // a server of its own: the corpus's durable opens would outlive the connection and meet the other tests
        Path dir = Files.createDirectories(tmp.resolve("replay-" + corpus));
        try (TestServer own = new TestServer(Files.createDirectories(dir.resolve("export")),
                Files.createDirectories(dir.resolve("state")), false, false)) {
            RawSmbClient c = new RawSmbClient(own.port()).logon();
            try {
                for (int i = 0; i < recorded.size(); i++) {
                    RawSmbClient.Sent r = recorded.get(i);
                    ByteBuffer m = ByteBuffer.wrap(r.message().clone()).order(ByteOrder.LITTLE_ENDIAN);
                    if (isValidateNegotiate(r)) { // another connection's negotiation (3.3.5.15.12): this one ends
                        c.send(r.command(), m);
                        assertTrue(c.endsWithin(10_000), corpus + "'s request " + i + ": a VALIDATE_NEGOTIATE_INFO"
                                + " that does not match the connection's negotiation ends it");
                        outcomes.merge("IOCTL VALIDATE_NEGOTIATE_INFO closed", 1, Integer::sum);
                        c.close();
                        c = new RawSmbClient(own.port()).logon();
                        continue;
                    }
                    ByteBuffer reply;
                    try {
                        reply = c.sendAnswered(r.command(), m).get(10, TimeUnit.SECONDS);
                    } catch (java.util.concurrent.ExecutionException | TimeoutException e) {
                        throw new AssertionError(corpus + "'s request " + i + " (" + Smb2Command.name(r.command()) + ", "
                                + java.util.HexFormat.of().formatHex(r.message()) + ") was not answered", e);
                    }
                    assertEquals(0x424D53FE, reply.getInt(0), "an SMB2 reply to " + Smb2Command.name(r.command()));
                    outcomes.merge(Smb2Command.name(r.command()) + " " + NtStatus.hex(Smb2Header.status(reply)), 1,
                            Integer::sum);
                }
            } finally {
                c.close();
            }
            System.out.printf("SmbMessageFuzzTest: %s's %d requests replayed, outcomes %s%n", corpus, recorded.size(),
                    outcomes);
            assertEquals(0, own.server.internalErrors(), "no request made the server throw");
        }
        assertTrue(outcomes.keySet().stream().anyMatch(k -> k.endsWith(" " + NtStatus.hex(NtStatus.SUCCESS))),
                "some ran: " + outcomes);
    }

    /** FSCTL_VALIDATE_NEGOTIATE_INFO (MS-SMB2 3.3.5.15.12): a mismatch ends the connection. */
    private static boolean isValidateNegotiate(RawSmbClient.Sent r) {
        return r.command() == Smb2Command.IOCTL && r.message().length >= 72
                && ByteBuffer.wrap(r.message()).order(ByteOrder.LITTLE_ENDIAN).getInt(68) == 0x00140204;
    }

    /** Mutates mostly the body (from {@code body}), sometimes the header (NextCommand makes compounds). */
    /**
     * MS-SMB2 2.2.41 transform messages on a logged-on SMB 3 session, every header field mutated
     * (OriginalMessageSize against the length, Flags, SessionId of this session or none, a cut
     * header) over a ciphertext that cannot authenticate; 2.2.42 compression transforms, which the
     * server does not negotiate; and SMB1 negotiates with mutated bodies. A transform that does not
     * decrypt ends the connection (3.3.5.2.1), whatever its sizes claim; nothing throws, and a new
     * client is served afterwards.
     */
    @Test
    void mutatedTransformCompressionAndSmb1FramesAreRefused() throws Exception {
        int rounds = Integer.getInteger("rdmagate.fuzz.rounds", 6000) / 8;
        Random rnd = new Random(0x7ea45L);
        long before = server.server.internalErrors();
        Map<String, Integer> outcomes = new TreeMap<>();
        byte[] smb1 = smb1Negotiate();
        for (int round = 0; round < rounds; round++) {
            int kind = rnd.nextInt(4);
            try (RawSmbClient c = new RawSmbClient(server.port())) {
                if (kind < 3) {
                    c.dialect = 0x302;
                    c.logon();
                }
                byte[] frame = switch (kind) {
                    case 0, 1 -> transform(rnd, c.sessionId(), 0x424D53FD);
                    case 2 -> transform(rnd, c.sessionId(), 0x424D53FC);
                    default -> mutate(smb1, rnd, 32); // the first SMB1 frame of a connection
                };
                c.sendFrame(frame);
                String what = kind < 2 ? "transform" : kind == 2 ? "compression" : "smb1";
                // an SMB1 negotiate may be answered: an ECHO behind it tells an open connection from a closed one
                boolean closed = kind < 3 ? c.endsWithin(WAIT.toMillis() * 5) : c.closedByServer(WAIT.toMillis() * 5);
                if (kind < 3) {
                    assertTrue(closed, "a " + what + " message that cannot decrypt ends the connection");
                }
                outcomes.merge(what + (closed ? " closed" : " answered"), 1, Integer::sum);
            }
        }
        System.out.printf("SmbMessageFuzzTest: %d transform, compression and SMB1 frames, outcomes %s%n", rounds, outcomes);
        assertEquals(before, server.server.internalErrors(), "no frame made the server throw");
        try (RawSmbClient fresh = new RawSmbClient(server.port()).logon()) {
            assertEquals(NtStatus.SUCCESS, Smb2Header.status(fresh.call(Smb2Command.ECHO, msg(4, 4))));
        }
    }

    /** A transform (or compression transform) header and a body that cannot authenticate, fields mutated. */
    private static byte[] transform(Random rnd, long sessionId, int protocolId) {
        int body = new int[] {0, 1, 16, 64, 68, 200, 4096, 70000}[rnd.nextInt(8)];
        ByteBuffer m = ByteBuffer.allocate(52 + body).order(ByteOrder.LITTLE_ENDIAN);
        m.putInt(0, protocolId);
        for (int i = 4; i < m.limit(); i++) {
            m.put(i, (byte) rnd.nextInt(256));
        }
        long[] sizes = {body, 0, 1, body - 1L, body + 1L, 64, 0x7fffffffL, 0xffffffffL};
        m.putInt(36, (int) sizes[rnd.nextInt(rnd.nextInt(3) == 0 ? sizes.length : 1)]);
        m.putShort(40, (short) 0);
        m.putShort(42, (short) (rnd.nextInt(4) == 0 ? rnd.nextInt(4) : 1));
        m.putLong(44, rnd.nextInt(4) == 0 ? rnd.nextLong() : sessionId);
        byte[] out = m.array();
        return rnd.nextInt(10) == 0 ? Arrays.copyOf(out, rnd.nextInt(Math.min(out.length, 60))) : out;
    }

    /** An SMB1 NEGOTIATE offering "SMB 2.002" and "SMB 2.???" (MS-SMB2 3.3.5.3.1). */
    private static byte[] smb1Negotiate() {
        byte[] dialects = "\u0002NT LM 0.12\0\u0002SMB 2.002\0\u0002SMB 2.???\0".getBytes(StandardCharsets.ISO_8859_1);
        ByteBuffer m = ByteBuffer.allocate(32 + 3 + dialects.length).order(ByteOrder.LITTLE_ENDIAN);
        m.putInt(0, 0x424D53FF).put(4, (byte) 0x72);
        m.put(32, (byte) 0).putShort(33, (short) dialects.length).put(35, dialects);
        return m.array();
    }

    private static byte[] mutate(byte[] seed, Random rnd, int body) {
        byte[] m = seed.clone();
        int mutations = 1 + rnd.nextInt(3);
        for (int k = 0; k < mutations && m.length > body; k++) {
            int from = rnd.nextInt(10) == 0 ? 0 : body;
            int at = from + rnd.nextInt(m.length - from);
            int word = at & ~3;
            switch (rnd.nextInt(7)) {
                case 0 -> m[at] ^= (byte) (1 << rnd.nextInt(8));
                case 1 -> putInt(m, word, rnd.nextInt(8)); // small values: counts, classes, flags
                case 2 -> putInt(m, word, rnd.nextInt());
                case 3 -> putInt(m, word, -1 - rnd.nextInt(4)); // lengths and offsets near 2^32
                case 4 -> putShort(m, at & ~1, rnd.nextInt(0x10000)); // 16-bit offsets and lengths
                case 5 -> m = Arrays.copyOf(m, body + rnd.nextInt(m.length - body + 1)); // truncated
                default -> m = Arrays.copyOf(m, m.length + 1 + rnd.nextInt(64)); // trailing bytes
            }
        }
        return m;
    }

    private static void putInt(byte[] m, int at, int v) {
        if (at + 4 <= m.length) {
            ByteBuffer.wrap(m).order(ByteOrder.LITTLE_ENDIAN).putInt(at, v);
        }
    }

    private static void putShort(byte[] m, int at, int v) {
        if (at + 2 <= m.length) {
            ByteBuffer.wrap(m).order(ByteOrder.LITTLE_ENDIAN).putShort(at, (short) v);
        }
    }

    private static ByteBuffer msg(int body, int structureSize) {
        ByteBuffer m = RawSmbClient.msg(body);
        m.putShort(64, (short) structureSize);
        return m;
    }

    /** Writes {@code f} at {@code at}, or all ones (no file) for null. */
    private static ByteBuffer fileIdAt(ByteBuffer m, int at, FileId f) {
        if (f == null) {
            m.putLong(at, -1L).putLong(at + 8, -1L);
        } else {
            f.write(m, at);
        }
        return m;
    }

    private static ByteBuffer read(FileId f) {
        ByteBuffer m = msg(49, 49);
        m.putInt(68, 4096).putLong(72, 0);
        return fileIdAt(m, 80, f);
    }

    private static ByteBuffer setInfo(FileId f, int infoClass, byte[] buffer) {
        ByteBuffer m = msg(32 + buffer.length, 33);
        m.put(66, (byte) 1).put(67, (byte) infoClass).putInt(68, buffer.length).putShort(72, (short) 96).put(96, buffer);
        return fileIdAt(m, 80, f);
    }

    /** NEGOTIATE offering 2.0.2 to 3.1.1 with preauth integrity (SHA-512), encryption and signing contexts. */
    private static byte[] negotiate311() {
        int dialects = 5;
        int ctxOff = (64 + 36 + 2 * dialects + 7) & ~7;
        ByteBuffer m = ByteBuffer.allocate(ctxOff + 8 + 38 + 2 + 8 + 6 + 2 + 8 + 4).order(ByteOrder.LITTLE_ENDIAN);
        // MS-SMB2 2.2.3: ... Capabilities 72, ClientGuid 76, NegotiateContextOffset 92, NegotiateContextCount 96, Dialects 100
        m.putShort(64, (short) 36).putShort(66, (short) dialects).putShort(68, (short) 1).putInt(72, 0x7f)
                .putInt(92, ctxOff).putShort(96, (short) 3);
        m.put(76, "fuzz-client-guid".getBytes(StandardCharsets.US_ASCII));
        int p = 100;
        for (int d : new int[] {0x202, 0x210, 0x300, 0x302, 0x311}) {
            m.putShort(p, (short) d);
            p += 2;
        }
        p = ctxOff;
        m.putShort(p, (short) 1).putShort(p + 2, (short) 38).putShort(p + 8, (short) 1).putShort(p + 10, (short) 32)
                .putShort(p + 12, (short) 1); // SHA-512, 32-byte salt
        p = (p + 8 + 38 + 7) & ~7;
        m.putShort(p, (short) 2).putShort(p + 2, (short) 6).putShort(p + 8, (short) 2).putShort(p + 10, (short) 2)
                .putShort(p + 12, (short) 1); // AES-128-GCM, AES-128-CCM
        p = (p + 8 + 6 + 7) & ~7;
        m.putShort(p, (short) 8).putShort(p + 2, (short) 4).putShort(p + 8, (short) 1).putShort(p + 10, (short) 2);
        return Arrays.copyOf(m.array(), p + 12);
    }
}
