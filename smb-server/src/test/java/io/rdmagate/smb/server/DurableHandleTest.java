package io.rdmagate.smb.server;

import static io.rdmagate.smb.server.RawSmbClient.READ_WRITE;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rdmagate.smb.mserref.NtStatus;
import io.rdmagate.smb.mssmb2.FileId;
import io.rdmagate.smb.mssmb2.Smb2Create;
import io.rdmagate.smb.mssmb2.Smb2Header;
import io.rdmagate.smb.mssmb2.Smb2Lease;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Durable handles v1 as a client that loses its connection sees them (MS-SMB2 3.3.5.9.6, 3.3.5.9.7,
 * 3.3.7.1), over raw sockets on 2.1: the open outlives the connection with its data, share mode and
 * oplock or lease, comes back on a new connection and session, gives way to another client's
 * conflicting open while nobody holds it, and closes when its time runs out. (Durable v2 needs
 * SMB 3 and is exercised by smbtorture's smb2.durable-v2-open.)
 */
class DurableHandleTest {
    static final int BATCH = Smb2Create.OPLOCK_LEVEL_BATCH;
    static final int SHARE_NONE = 0;

    @TempDir
    Path tmp;
    TestServer server;

    @AfterEach
    void stop() {
        if (server != null) {
            server.close();
        }
    }

    void start(Duration durableTimeout) throws Exception {
        server = new TestServer(Files.createDirectories(tmp.resolve("export")), Files.createDirectories(tmp.resolve("state")),
                false, false, 0, Duration.ofSeconds(35), durableTimeout);
    }

    RawSmbClient client() throws Exception {
        return new RawSmbClient(server.port()).logon();
    }

    /** A new connection and session naming the lost one as its previous session (MS-SMB2 3.3.5.5.3). */
    RawSmbClient reconnectingClient(long previousSession) throws Exception {
        RawSmbClient c = new RawSmbClient(server.port());
        c.previousSessionId = previousSession;
        return c.logon();
    }

    static byte[] fileId(FileId f) {
        ByteBuffer b = ByteBuffer.allocate(16).order(ByteOrder.LITTLE_ENDIAN);
        f.write(b, 0);
        return b.array();
    }

    static byte[] lease(int key, int state) {
        ByteBuffer b = ByteBuffer.allocate(32).order(ByteOrder.LITTLE_ENDIAN);
        byte[] k = new byte[16];
        java.util.Arrays.fill(k, (byte) key);
        return b.put(k).putInt(state).array();
    }

    static Map<String, byte[]> contexts(Object... nameThenData) {
        Map<String, byte[]> m = new LinkedHashMap<>();
        for (int i = 0; i < nameThenData.length; i += 2) {
            m.put((String) nameThenData[i], (byte[]) nameThenData[i + 1]);
        }
        return m;
    }

    ByteBuffer create(RawSmbClient c, String name, int oplock, int share, Map<String, byte[]> ctx) throws Exception {
        return c.sendCreate(name, oplock, READ_WRITE, share, Smb2Create.FILE_OPEN_IF, ctx).get(20, TimeUnit.SECONDS);
    }

    @Test
    void aBatchDurableOpenOutlivesItsConnectionWithItsData() throws Exception {
        start(Duration.ofSeconds(60));
        RawSmbClient a = client();
        ByteBuffer r = create(a, "dur1.dat", BATCH, SHARE_NONE, contexts("DHnQ", new byte[16]));
        assertEquals(NtStatus.SUCCESS, Smb2Header.status(r));
        assertEquals(BATCH, r.get(66) & 0xff);
        assertEquals(java.util.List.of("DHnQ"), RawSmbClient.contextNames(r), "durability granted");
        FileId f = FileId.read(r, 128);
        assertEquals(NtStatus.SUCCESS, a.write(f, 0, "before,".getBytes(StandardCharsets.US_ASCII)));
        long lost = a.sessionId;
        a.close(); // the connection is lost, no CLOSE, no LOGOFF

        try (RawSmbClient b = reconnectingClient(lost)) {
            ByteBuffer r2 = create(b, "dur1.dat", BATCH, SHARE_NONE, contexts("DHnC", fileId(f)));
            assertEquals(NtStatus.SUCCESS, Smb2Header.status(r2), "reconnected");
            assertEquals(f, FileId.read(r2, 128), "the same open");
            assertEquals(BATCH, r2.get(66) & 0xff, "with its oplock");
            assertEquals(Smb2Create.FILE_OPENED, r2.getInt(68));
            assertTrue(RawSmbClient.contextNames(r2).isEmpty(), "no durable context in a reconnect's answer");
            assertEquals(NtStatus.SUCCESS, b.write(f, 7, "after".getBytes(StandardCharsets.US_ASCII)));
            assertEquals(NtStatus.SUCCESS, b.close(f));
        }
        assertEquals("before,after", Files.readString(server.dir.resolve("dur1.dat")));
    }

    @Test
    void aReconnectNeedsTheOpenDisconnectedAndItsLeaseKey() throws Exception {
        start(Duration.ofSeconds(60));
        RawSmbClient a = client();
        int rwh = Smb2Lease.READ | Smb2Lease.WRITE | Smb2Lease.HANDLE;
        ByteBuffer r = create(a, "dur2.dat", Smb2Create.OPLOCK_LEVEL_LEASE, RawSmbClient.SHARE_ALL,
                contexts("RqLs", lease(1, rwh), "DHnQ", new byte[16]));
        assertEquals(NtStatus.SUCCESS, Smb2Header.status(r));
        assertTrue(RawSmbClient.contextNames(r).contains("DHnQ"), "a lease with handle caching is durable");
        FileId f = FileId.read(r, 128);
        try (RawSmbClient b = client()) {
            ByteBuffer still = create(b, "dur2.dat", Smb2Create.OPLOCK_LEVEL_LEASE, RawSmbClient.SHARE_ALL,
                    contexts("RqLs", lease(1, rwh), "DHnC", fileId(f)));
            assertEquals(NtStatus.OBJECT_NAME_NOT_FOUND, Smb2Header.status(still), "its connection is alive");
            a.close();
            Thread.sleep(200);
            ByteBuffer otherKey = create(b, "dur2.dat", Smb2Create.OPLOCK_LEVEL_LEASE, RawSmbClient.SHARE_ALL,
                    contexts("RqLs", lease(2, rwh), "DHnC", fileId(f)));
            assertEquals(NtStatus.OBJECT_NAME_NOT_FOUND, Smb2Header.status(otherKey), "another lease key");
            ByteBuffer noLease = create(b, "dur2.dat", BATCH, RawSmbClient.SHARE_ALL, contexts("DHnC", fileId(f)));
            assertEquals(NtStatus.OBJECT_NAME_NOT_FOUND, Smb2Header.status(noLease), "no lease at all");
            RawSmbClient stranger = new RawSmbClient(server.port());
            stranger.clientGuid = guid(0x13);
            try (RawSmbClient s2 = stranger.logon()) {
                ByteBuffer other = create(s2, "dur2.dat", Smb2Create.OPLOCK_LEVEL_LEASE, RawSmbClient.SHARE_ALL,
                        contexts("RqLs", lease(1, rwh), "DHnC", fileId(f)));
                assertEquals(NtStatus.OBJECT_NAME_NOT_FOUND, Smb2Header.status(other),
                        "the same lease key from another client GUID names another lease");
            }
            ByteBuffer back = create(b, "dur2.dat", Smb2Create.OPLOCK_LEVEL_LEASE, RawSmbClient.SHARE_ALL,
                    contexts("RqLs", lease(1, 0), "DHnC", fileId(f)));
            assertEquals(NtStatus.SUCCESS, Smb2Header.status(back));
            assertEquals(f, FileId.read(back, 128));
            assertEquals(rwh, RawSmbClient.leaseState(back), "the lease as it is, whatever the request asks");
        }
    }

    /**
     * A client that drops its connection and reconnects at once can have its DHnC arrive before the
     * server has seen the old connection close: the reconnect waits for that loss instead of
     * answering "not found" (smbtorture's reopen tests race this way on a busy host).
     */
    @Test
    void aReconnectThatOvertakesTheOldConnectionsCloseStillSucceeds() throws Exception {
        start(Duration.ofSeconds(60));
        RawSmbClient a = client();
        ByteBuffer r = create(a, "dur8.dat", BATCH, SHARE_NONE, contexts("DHnQ", new byte[16]));
        assertEquals(java.util.List.of("DHnQ"), RawSmbClient.contextNames(r));
        FileId f = FileId.read(r, 128);
        try (RawSmbClient b = client()) {
            var pending = b.sendCreate("dur8.dat", BATCH, READ_WRITE, SHARE_NONE, Smb2Create.FILE_OPEN_IF,
                    contexts("DHnC", fileId(f)));
            Thread.sleep(300);
            assertFalse(pending.isDone(), "the reconnect waits while the old connection is up");
            a.close();
            ByteBuffer back = pending.get(20, TimeUnit.SECONDS);
            assertEquals(NtStatus.SUCCESS, Smb2Header.status(back), "reconnected once the old connection went");
            assertEquals(f, FileId.read(back, 128));
            assertEquals(NtStatus.SUCCESS, b.close(f));
        }
    }

    /**
     * A client drops a connection whose durable open is delete-on-close and at once opens the name
     * again, share-none, on a connection it already has: the file went with the lost connection,
     * so the open creates it anew and empty, however the server's handling of the loss and the
     * CREATE interleave (smbtorture's smb2.durable-open.delete_on_close1, many times over).
     */
    @Test
    void aDeleteOnCloseOpenOfADroppedConnectionIsGoneForTheNextOpen() throws Exception {
        start(Duration.ofSeconds(60));
        int access = READ_WRITE | 0x00010000; // and DELETE
        int options = RawSmbClient.NON_DIRECTORY_FILE | RawSmbClient.DELETE_ON_CLOSE;
        try (RawSmbClient b = client()) {
            for (int round = 0; round < 100; round++) {
                RawSmbClient a = client();
                ByteBuffer r = a.sendCreate("doc.dat", BATCH, access, SHARE_NONE, Smb2Create.FILE_OPEN_IF, options,
                        contexts("DHnQ", new byte[16])).get(20, TimeUnit.SECONDS);
                assertEquals(NtStatus.SUCCESS, Smb2Header.status(r), "round " + round);
                assertEquals(NtStatus.SUCCESS, a.write(FileId.read(r, 128), 0, new byte[] {1}));
                a.close(); // no CLOSE: the connection is lost with the open

                ByteBuffer again = b.sendCreate("doc.dat", BATCH, access, SHARE_NONE, Smb2Create.FILE_OPEN_IF, options,
                        Map.of()).get(20, TimeUnit.SECONDS);
                assertEquals(NtStatus.SUCCESS, Smb2Header.status(again), "round " + round + ": opened");
                assertEquals(Smb2Create.FILE_CREATED, again.getInt(68), "round " + round + ": created anew");
                assertEquals(0, again.getLong(112), "round " + round + ": empty (EndOfFile)");
                assertEquals(NtStatus.SUCCESS, b.close(FileId.read(again, 128)));
            }
        }
        assertFalse(Files.exists(server.dir.resolve("doc.dat")), "the last close deleted it");
    }

    /**
     * MS-SMB2 3.3.5.5.3: the client sets up a session on a new connection naming the old one as
     * its previous session while the old connection is still up: the old session ends, its durable
     * open waits, and the new session takes it back.
     */
    @Test
    void aSessionReconnectElsewhereEndsTheOldSessionAndKeepsTheOpen() throws Exception {
        start(Duration.ofSeconds(60));
        try (RawSmbClient a = client()) {
            int rwh = Smb2Lease.READ | Smb2Lease.WRITE | Smb2Lease.HANDLE;
            ByteBuffer r = create(a, "dur7.dat", Smb2Create.OPLOCK_LEVEL_LEASE, SHARE_NONE,
                    contexts("RqLs", lease(7, rwh), "DHnQ", new byte[16]));
            assertTrue(RawSmbClient.contextNames(r).contains("DHnQ"));
            FileId f = FileId.read(r, 128);
            try (RawSmbClient b = reconnectingClient(a.sessionId)) {
                assertEquals(NtStatus.USER_SESSION_DELETED, a.queryPosition(f), "the old session ended");
                ByteBuffer back = create(b, "dur7.dat", Smb2Create.OPLOCK_LEVEL_LEASE, SHARE_NONE,
                        contexts("RqLs", lease(7, 0), "DHnC", fileId(f)));
                assertEquals(NtStatus.SUCCESS, Smb2Header.status(back));
                assertEquals(f, FileId.read(back, 128));
            }
        }
    }

    @Test
    void aDisconnectedDurableOpenGivesWayToAnotherClient() throws Exception {
        start(Duration.ofSeconds(60));
        RawSmbClient a = client();
        ByteBuffer r = create(a, "dur3.dat", BATCH, SHARE_NONE, contexts("DHnQ", new byte[16]));
        FileId f = FileId.read(r, 128);
        a.close();
        Thread.sleep(200);
        try (RawSmbClient b = client()) {
            long t0 = System.nanoTime();
            ByteBuffer other = create(b, "dur3.dat", Smb2Create.OPLOCK_LEVEL_NONE, SHARE_NONE, Map.of());
            long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
            assertEquals(NtStatus.SUCCESS, Smb2Header.status(other), "the batch oplock could not be broken: the open closed");
            assertTrue(ms < 10_000, "without waiting for the break timeout (" + ms + " ms)");
            ByteBuffer late = create(b, "dur3.dat", BATCH, SHARE_NONE, contexts("DHnC", fileId(f)));
            assertEquals(NtStatus.OBJECT_NAME_NOT_FOUND, Smb2Header.status(late), "gone");
        }
    }

    @Test
    void anOpenNotReconnectedInTimeIsClosedAndItsShareModeReleased() throws Exception {
        start(Duration.ofMillis(300));
        RawSmbClient a = client();
        ByteBuffer r = create(a, "dur4.dat", BATCH, SHARE_NONE, contexts("DHnQ", new byte[16]));
        FileId f = FileId.read(r, 128);
        long lost = a.sessionId;
        a.close();
        Thread.sleep(1500);
        try (RawSmbClient b = reconnectingClient(lost)) {
            ByteBuffer late = create(b, "dur4.dat", BATCH, SHARE_NONE, contexts("DHnC", fileId(f)));
            assertEquals(NtStatus.OBJECT_NAME_NOT_FOUND, Smb2Header.status(late), "the scavenger closed it");
            ByteBuffer exclusive = create(b, "dur4.dat", BATCH, SHARE_NONE, Map.of());
            assertEquals(NtStatus.SUCCESS, Smb2Header.status(exclusive), "its share mode went with it");
        }
    }

    @Test
    void noDurabilityWithoutABatchOplockOrHandleCaching() throws Exception {
        start(Duration.ofSeconds(60));
        RawSmbClient a = client();
        ByteBuffer r = create(a, "dur5.dat", Smb2Create.OPLOCK_LEVEL_II, RawSmbClient.SHARE_ALL,
                contexts("DHnQ", new byte[16]));
        assertEquals(NtStatus.SUCCESS, Smb2Header.status(r));
        assertFalse(RawSmbClient.contextNames(r).contains("DHnQ"), "a Level II open is not durable");
        FileId f = FileId.read(r, 128);
        a.close();
        Thread.sleep(200);
        try (RawSmbClient b = client()) {
            ByteBuffer gone = create(b, "dur5.dat", Smb2Create.OPLOCK_LEVEL_NONE, RawSmbClient.SHARE_ALL,
                    contexts("DHnC", fileId(f)));
            assertEquals(NtStatus.OBJECT_NAME_NOT_FOUND, Smb2Header.status(gone), "closed with its connection");
        }
    }

    static final byte[] CLIENT = guid(0x11);

    static byte[] guid(int b) {
        byte[] g = new byte[16];
        java.util.Arrays.fill(g, (byte) b);
        return g;
    }

    /** An SMB 3.0.2 client with a client GUID (durable v2 needs both). */
    RawSmbClient client3(byte[] clientGuid, long previousSession) throws Exception {
        RawSmbClient c = new RawSmbClient(server.port());
        c.dialect = io.rdmagate.smb.mssmb2.Smb2Dialect.SMB_3_0_2;
        c.clientGuid = clientGuid;
        c.previousSessionId = previousSession;
        return c.logon();
    }

    static byte[] dh2q(int timeoutMillis, byte[] createGuid) {
        ByteBuffer b = ByteBuffer.allocate(32).order(ByteOrder.LITTLE_ENDIAN);
        return b.putInt(timeoutMillis).putInt(0).putLong(0).put(createGuid).array();
    }

    static byte[] dh2c(FileId f, byte[] createGuid) {
        ByteBuffer b = ByteBuffer.allocate(36).order(ByteOrder.LITTLE_ENDIAN);
        f.write(b, 0);
        return b.position(16).put(createGuid).putInt(0).array();
    }

    /** The Timeout of a CREATE response's DH2Q context (MS-SMB2 2.2.14.2.12). */
    static int dh2qTimeout(ByteBuffer r) {
        int at = r.getInt(144);
        while (true) {
            String name = new String(r.array(), at + (r.getShort(at + 4) & 0xffff), 4, StandardCharsets.US_ASCII);
            if (name.equals("DH2Q")) {
                return r.getInt(at + (r.getShort(at + 10) & 0xffff));
            }
            at += r.getInt(at);
        }
    }

    @Test
    void aV2DurableOpenComesBackByItsCreateGuid() throws Exception {
        start(Duration.ofSeconds(60));
        RawSmbClient a = client3(CLIENT, 0);
        byte[] createGuid = guid(0x21);
        ByteBuffer r = create(a, "dur8.dat", BATCH, SHARE_NONE, contexts("DH2Q", dh2q(0, createGuid)));
        assertEquals(NtStatus.SUCCESS, Smb2Header.status(r));
        assertEquals(java.util.List.of("DH2Q"), RawSmbClient.contextNames(r));
        assertEquals(60_000, dh2qTimeout(r), "Timeout 0: the server's default");
        ByteBuffer capped = create(a, "dur8b.dat", BATCH, SHARE_NONE, contexts("DH2Q", dh2q(-1, guid(0x22))));
        assertEquals(300_000, dh2qTimeout(capped), "at most the configured maximum");
        ByteBuffer again = create(a, "dur8c.dat", BATCH, SHARE_NONE, contexts("DH2Q", dh2q(0, createGuid)));
        assertEquals(NtStatus.DUPLICATE_OBJECTID, Smb2Header.status(again), "a CreateGuid names one open");
        FileId f = FileId.read(r, 128);
        long lost = a.sessionId;
        a.close();
        Thread.sleep(200);
        try (RawSmbClient b = client3(guid(0x12), lost)) { // an oplock open may come back under another client GUID

            ByteBuffer wrongGuid = create(b, "", BATCH, SHARE_NONE, contexts("DH2C", dh2c(f, guid(0x23))));
            assertEquals(NtStatus.OBJECT_NAME_NOT_FOUND, Smb2Header.status(wrongGuid), "another CreateGuid");
            ByteBuffer both = create(b, "", BATCH, SHARE_NONE,
                    contexts("DH2C", dh2c(f, createGuid), "DH2Q", dh2q(0, guid(0x24))));
            assertEquals(NtStatus.INVALID_PARAMETER, Smb2Header.status(both), "reconnect and request together");
            ByteBuffer back = create(b, "", BATCH, SHARE_NONE, contexts("DH2C", dh2c(f, createGuid)));
            assertEquals(NtStatus.SUCCESS, Smb2Header.status(back), "the name is not looked at");
            assertEquals(f, FileId.read(back, 128));
            assertEquals(BATCH, back.get(66) & 0xff);
        }
    }

    @Test
    void aV2SessionReconnectElsewhereKeepsTheOpenForTheNewSession() throws Exception {
        start(Duration.ofSeconds(60));
        try (RawSmbClient a = client3(CLIENT, 0)) {
            byte[] createGuid = guid(0x31);
            ByteBuffer r = create(a, "dur9.dat", BATCH, SHARE_NONE, contexts("DH2Q", dh2q(0, createGuid)));
            FileId f = FileId.read(r, 128);
            try (RawSmbClient b = client3(CLIENT, a.sessionId)) {
                ByteBuffer old = create(a, "", BATCH, SHARE_NONE, contexts("DH2C", dh2c(f, createGuid)));
                assertEquals(NtStatus.USER_SESSION_DELETED, Smb2Header.status(old));
                ByteBuffer back = create(b, "", BATCH, SHARE_NONE, contexts("DH2C", dh2c(f, createGuid)));
                assertEquals(NtStatus.SUCCESS, Smb2Header.status(back));
                assertEquals(f, FileId.read(back, 128));
            }
        }
    }

    @Test
    void malformedDurableContextsAreInvalidParameter() throws Exception {
        start(Duration.ofSeconds(60));
        try (RawSmbClient a = client()) {
            ByteBuffer r = create(a, "dur6.dat", BATCH, SHARE_NONE, contexts("DHnQ", new byte[12]));
            assertEquals(NtStatus.INVALID_PARAMETER, Smb2Header.status(r));
            ByteBuffer r2 = create(a, "dur6.dat", BATCH, SHARE_NONE, contexts("DHnC", new byte[20]));
            assertEquals(NtStatus.INVALID_PARAMETER, Smb2Header.status(r2));
            assertEquals(NtStatus.SUCCESS, Smb2Header.status(create(a, "dur6.dat", BATCH, SHARE_NONE, Map.of())),
                    "the connection goes on");
        }
    }
}
