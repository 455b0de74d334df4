package io.rdmagate.smb.server;

import static io.rdmagate.smb.server.RawSmbClient.READ_WRITE;
import static io.rdmagate.smb.server.RawSmbClient.SHARE_ALL;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.rdmagate.smb.mserref.NtStatus;
import io.rdmagate.smb.mssmb2.Smb2Create;
import io.rdmagate.smb.mssmb2.Smb2Header;
import io.rdmagate.smb.mssmb2.Smb2Lease;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Leases as a client sees them (MS-SMB2 3.3.5.9.8, 3.3.4.7, 3.3.5.22.2), over raw sockets on 2.1:
 * grant, break of another key's W to RH with the CREATE held until the ack, R broken to none by a
 * write without an ack, and the statuses of bad lease acks.
 */
class LeaseTest {
    static final int R = Smb2Lease.READ;
    static final int H = Smb2Lease.HANDLE;
    static final int W = Smb2Lease.WRITE;

    @TempDir
    static Path tmp;
    static TestServer server;

    @BeforeAll
    static void start() throws Exception {
        server = new TestServer(Files.createDirectories(tmp.resolve("export")), Files.createDirectories(tmp.resolve("state")),
                false, false, 0, Duration.ofSeconds(2));
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    static byte[] key(int b) {
        byte[] k = new byte[16];
        Arrays.fill(k, (byte) b);
        return k;
    }

    static RawSmbClient client() throws Exception {
        return new RawSmbClient(server.port()).logon();
    }

    static ByteBuffer open(RawSmbClient c, String name, byte[] key, int state) throws Exception {
        ByteBuffer r = c.sendLeaseCreate(name, key, state, READ_WRITE, SHARE_ALL, Smb2Create.FILE_OPEN_IF)
                .get(10, TimeUnit.SECONDS);
        assertEquals(NtStatus.SUCCESS, Smb2Header.status(r));
        return r;
    }

    /**
     * What the Linux cifs client sends with every open: MxAc and QFid with an RqLs v2 (52 bytes);
     * the response carries all three answers (it once overflowed its buffer and closed the
     * connection, the client reconnecting in a loop).
     */
    @Test
    void leaseV2WithMaximalAccessAndFileIdAsLinuxAsks() throws Exception {
        try (RawSmbClient a = client()) {
            ByteBuffer lease = ByteBuffer.allocate(52).order(java.nio.ByteOrder.LITTLE_ENDIAN);
            lease.put(key(7)).putInt(R | W | H).putInt(0).putLong(0).put(new byte[16]).putShort((short) 0)
                    .putShort((short) 0);
            java.util.Map<String, byte[]> ctx = new java.util.LinkedHashMap<>();
            ctx.put("MxAc", new byte[0]);
            ctx.put("QFid", new byte[0]);
            ctx.put("RqLs", lease.array());
            ByteBuffer r = a.sendCreate("linux-asks.dat", 0xFF, READ_WRITE, SHARE_ALL, Smb2Create.FILE_OPEN_IF, ctx)
                    .get(10, TimeUnit.SECONDS);
            assertEquals(NtStatus.SUCCESS, Smb2Header.status(r));
            assertEquals(Smb2Create.OPLOCK_LEVEL_LEASE, r.get(66) & 0xff);
            assertEquals(java.util.List.of("MxAc", "QFid", "RqLs"), RawSmbClient.contextNames(r));
            assertEquals(R | W | H, RawSmbClient.leaseState(r));
        }
    }

    @Test
    void anotherKeyBreaksWriteCachingAndWaitsForTheAck() throws Exception {
        try (RawSmbClient a = client(); RawSmbClient b = client()) {
            ByteBuffer r1 = open(a, "lease1.dat", key(1), R | W | H);
            assertEquals(Smb2Create.OPLOCK_LEVEL_LEASE, r1.get(66) & 0xff);
            assertEquals(R | W | H, RawSmbClient.leaseState(r1));
            CompletableFuture<ByteBuffer> second = b.sendLeaseCreate("lease1.dat", key(2), R | W | H, READ_WRITE,
                    SHARE_ALL, Smb2Create.FILE_OPEN_IF);
            ByteBuffer n = a.nextBreak(5000);
            assertNotNull(n);
            assertEquals(44, n.getShort(64)); // MS-SMB2 2.2.23.2
            assertEquals(Smb2Lease.NOTIFY_ACK_REQUIRED, n.getInt(68));
            assertArrayEquals(key(1), Arrays.copyOfRange(n.array(), 72, 88));
            assertEquals(R | W | H, n.getInt(88));
            assertEquals(R | H, n.getInt(92));
            Thread.sleep(200);
            assertFalse(second.isDone(), "the second CREATE waits for the lease break ack");
            ByteBuffer ack = a.leaseAck(key(1), R | H);
            assertEquals(NtStatus.SUCCESS, Smb2Header.status(ack));
            assertEquals(R | H, ack.getInt(88));
            ByteBuffer r2 = second.get(5, TimeUnit.SECONDS);
            assertEquals(NtStatus.SUCCESS, Smb2Header.status(r2));
            assertEquals(R | H, RawSmbClient.leaseState(r2), "W only without other keys");
        }
    }

    @Test
    void aWriteBreaksAnotherKeysReadLeaseWithoutAnAck() throws Exception {
        try (RawSmbClient a = client(); RawSmbClient b = client()) {
            open(a, "lease2.dat", key(3), R);
            ByteBuffer r2 = open(b, "lease2.dat", key(4), R);
            assertEquals(R, RawSmbClient.leaseState(r2));
            assertNull(a.nextBreak(100), "R leases coexist");
            assertEquals(NtStatus.SUCCESS, b.write(RawSmbClient.created(r2).fileId(), 0, new byte[] {9}));
            ByteBuffer n = a.nextBreak(2000);
            assertNotNull(n);
            assertEquals(0, n.getInt(68), "R to none needs no ack");
            assertEquals(R, n.getInt(88));
            assertEquals(0, n.getInt(92));
            assertNull(b.nextBreak(200), "the writer's own lease is not broken");
        }
    }

    @Test
    void badLeaseAcknowledgmentsGetTheStatusesMsSmb2Names() throws Exception {
        try (RawSmbClient a = client(); RawSmbClient b = client()) {
            open(a, "lease3.dat", key(5), R | W | H);
            // MS-SMB2 3.3.5.22.2: unknown key, then a lease that is not breaking
            assertEquals(NtStatus.OBJECT_NAME_NOT_FOUND, Smb2Header.status(a.leaseAck(key(99), 0)));
            assertEquals(NtStatus.UNSUCCESSFUL, Smb2Header.status(a.leaseAck(key(5), R)));
            CompletableFuture<ByteBuffer> second = b.sendLeaseCreate("lease3.dat", key(6), R, READ_WRITE, SHARE_ALL,
                    Smb2Create.FILE_OPEN_IF);
            assertNotNull(a.nextBreak(5000));
            assertEquals(NtStatus.REQUEST_NOT_ACCEPTED, Smb2Header.status(a.leaseAck(key(5), R | W | H)),
                    "an ack may not keep more than the break allows");
            assertEquals(NtStatus.SUCCESS, Smb2Header.status(a.leaseAck(key(5), R)));
            assertEquals(R, RawSmbClient.leaseState(second.get(5, TimeUnit.SECONDS)));
        }
    }
}
