package io.rdmagate.smb.server;

import static io.rdmagate.smb.server.RawSmbClient.READ_WRITE;
import static io.rdmagate.smb.server.RawSmbClient.SHARE_ALL;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rdmagate.smb.mserref.NtStatus;
import io.rdmagate.smb.mssmb2.FileId;
import io.rdmagate.smb.mssmb2.Smb2Create;
import io.rdmagate.smb.mssmb2.Smb2Header;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Oplocks as a client sees them (MS-SMB2 3.3.5.9, 3.3.4.6, 3.3.5.22.1), over raw sockets: grants,
 * break notifications to the holder on another connection, a CREATE held until the ack (or the
 * break timeout, 1 s here), Level II broken to none by a write or a lock, and the statuses of bad acks.
 */
class OplockTest {
    static final int NONE = Smb2Create.OPLOCK_LEVEL_NONE;
    static final int II = Smb2Create.OPLOCK_LEVEL_II;
    static final int EXCLUSIVE = Smb2Create.OPLOCK_LEVEL_EXCLUSIVE;
    static final int BATCH = Smb2Create.OPLOCK_LEVEL_BATCH;
    static final int OPEN_IF = Smb2Create.FILE_OPEN_IF;
    static final long TIMEOUT_MS = 1000;

    @TempDir
    static Path tmp;
    static TestServer server;
    static final AtomicInteger names = new AtomicInteger();

    @BeforeAll
    static void start() throws Exception {
        server = new TestServer(Files.createDirectories(tmp.resolve("export")), Files.createDirectories(tmp.resolve("state")),
                false, false, 0, Duration.ofMillis(TIMEOUT_MS));
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    static String fresh() {
        return "oplock" + names.incrementAndGet() + ".dat";
    }

    static RawSmbClient client() throws Exception {
        return new RawSmbClient(server.port()).logon();
    }

    @Test
    void firstOpenGetsTheBatchOplockItAsks() throws Exception {
        try (RawSmbClient a = client()) {
            RawSmbClient.Created c = a.create(fresh(), BATCH, READ_WRITE, SHARE_ALL, OPEN_IF);
            assertEquals(NtStatus.SUCCESS, c.status());
            assertEquals(BATCH, c.oplockLevel());
            RawSmbClient.Created e = a.create(fresh(), EXCLUSIVE, READ_WRITE, SHARE_ALL, OPEN_IF);
            assertEquals(EXCLUSIVE, e.oplockLevel());
            RawSmbClient.Created l = a.create(fresh(), II, READ_WRITE, SHARE_ALL, OPEN_IF);
            assertEquals(II, l.oplockLevel());
            RawSmbClient.Created n = a.create(fresh(), NONE, READ_WRITE, SHARE_ALL, OPEN_IF);
            assertEquals(NONE, n.oplockLevel());
        }
    }

    @Test
    void secondOpenBreaksBatchToLevelIIAndCompletesAfterTheAck() throws Exception {
        String name = fresh();
        try (RawSmbClient a = client(); RawSmbClient b = client()) {
            RawSmbClient.Created h1 = a.create(name, BATCH, READ_WRITE, SHARE_ALL, OPEN_IF);
            assertEquals(BATCH, h1.oplockLevel());
            long t0 = System.nanoTime();
            CompletableFuture<ByteBuffer> second = b.sendCreate(name, BATCH, READ_WRITE, SHARE_ALL, OPEN_IF);
            ByteBuffer n = a.nextBreak(5000);
            assertNotNull(n, "the holder gets a break notification");
            assertEquals(-1L, Smb2Header.messageId(n));
            assertEquals(h1.fileId(), RawSmbClient.breakFileId(n));
            assertEquals(II, RawSmbClient.breakLevel(n));
            Thread.sleep(300);
            assertFalse(second.isDone(), "the second CREATE waits for the acknowledgment");
            ByteBuffer ack = a.ack(h1.fileId(), II);
            assertEquals(NtStatus.SUCCESS, Smb2Header.status(ack));
            assertEquals(II, ack.get(66));
            RawSmbClient.Created h2 = RawSmbClient.created(second.get(5, TimeUnit.SECONDS));
            long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
            assertEquals(NtStatus.SUCCESS, h2.status());
            assertEquals(II, h2.oplockLevel());
            assertTrue(ms >= 300, "completed after the ack, " + ms + " ms");
            assertTrue(ms < TIMEOUT_MS, "completed by the ack, not the timeout: " + ms + " ms");
            assertEquals(1, b.interim.size(), "a long wait answers STATUS_PENDING first");
            assertNull(a.nextBreak(200), "one break only");
        }
    }

    @Test
    void withoutAnAckTheCreateCompletesAfterTheTimeoutAndALateAckIsRefused() throws Exception {
        String name = fresh();
        try (RawSmbClient a = client(); RawSmbClient b = client()) {
            RawSmbClient.Created h1 = a.create(name, EXCLUSIVE, READ_WRITE, SHARE_ALL, OPEN_IF);
            assertEquals(EXCLUSIVE, h1.oplockLevel());
            long t0 = System.nanoTime();
            RawSmbClient.Created h2 = b.create(name, BATCH, READ_WRITE, SHARE_ALL, OPEN_IF);
            long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
            assertNotNull(a.nextBreak(100));
            assertEquals(NtStatus.SUCCESS, h2.status());
            assertEquals(II, h2.oplockLevel());
            assertTrue(ms >= TIMEOUT_MS - 50 && ms < TIMEOUT_MS + 3000, "waited for the timeout: " + ms + " ms");
            // MS-SMB2 3.3.2.1: the server lowered the oplock itself, so there is nothing left to acknowledge
            assertEquals(NtStatus.INVALID_OPLOCK_PROTOCOL, Smb2Header.status(a.ack(h1.fileId(), II)));
        }
    }

    @Test
    void aWriteBreaksEveryLevelIIToNoneWithoutWaiting() throws Exception {
        String name = fresh();
        try (RawSmbClient a = client(); RawSmbClient b = client()) {
            a.onBreak = n -> {
                try {
                    a.sendAck(RawSmbClient.breakFileId(n), RawSmbClient.breakLevel(n));
                } catch (java.io.IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            };
            RawSmbClient.Created h1 = a.create(name, BATCH, READ_WRITE, SHARE_ALL, OPEN_IF);
            RawSmbClient.Created h2 = b.create(name, II, READ_WRITE, SHARE_ALL, OPEN_IF);
            assertEquals(II, h2.oplockLevel());
            a.onBreak = null;
            long t0 = System.nanoTime();
            assertEquals(NtStatus.SUCCESS, b.write(h2.fileId(), 0, new byte[] {1, 2, 3}));
            assertTrue(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0) < TIMEOUT_MS / 2, "no wait for an ack");
            ByteBuffer na = a.nextBreak(2000);
            ByteBuffer nb = b.nextBreak(2000);
            assertNotNull(na);
            assertNotNull(nb, "the writer's own Level II breaks too");
            assertEquals(NONE, RawSmbClient.breakLevel(na));
            assertEquals(h1.fileId(), RawSmbClient.breakFileId(na));
            assertEquals(NONE, RawSmbClient.breakLevel(nb));
            assertEquals(h2.fileId(), RawSmbClient.breakFileId(nb));
            assertEquals(NtStatus.SUCCESS, b.write(h2.fileId(), 3, new byte[] {4}));
            assertNull(a.nextBreak(200), "nothing left to break");
            assertEquals(NtStatus.INVALID_OPLOCK_PROTOCOL, Smb2Header.status(a.ack(h1.fileId(), NONE)),
                    "a Level II break is not acknowledged");
        }
    }

    @Test
    void aByteRangeLockBreaksLevelIIToNone() throws Exception {
        String name = fresh();
        try (RawSmbClient a = client()) {
            RawSmbClient.Created h1 = a.create(name, NONE, READ_WRITE, SHARE_ALL, OPEN_IF);
            RawSmbClient.Created h2 = a.create(name, BATCH, READ_WRITE, SHARE_ALL, OPEN_IF);
            assertEquals(II, h2.oplockLevel(), "Level II beside another open");
            assertEquals(NtStatus.SUCCESS, a.lock(h1.fileId(), 0, 10, 0x2 | 0x10));
            ByteBuffer n = a.nextBreak(2000);
            assertNotNull(n);
            assertEquals(NONE, RawSmbClient.breakLevel(n));
            assertEquals(h2.fileId(), RawSmbClient.breakFileId(n));
        }
    }

    @Test
    void overwriteBreaksToNoneAndCloseInsteadOfAckLetsTheOpenHaveBatch() throws Exception {
        String name = fresh();
        try (RawSmbClient a = client(); RawSmbClient b = client()) {
            RawSmbClient.Created h1 = a.create(name, BATCH, READ_WRITE, SHARE_ALL, OPEN_IF);
            CompletableFuture<ByteBuffer> second = b.sendCreate(name, BATCH, READ_WRITE, SHARE_ALL,
                    Smb2Create.FILE_OVERWRITE_IF);
            ByteBuffer n = a.nextBreak(5000);
            assertEquals(NONE, RawSmbClient.breakLevel(n), "an overwrite leaves nothing to cache");
            assertEquals(NtStatus.SUCCESS, a.close(h1.fileId()));
            RawSmbClient.Created h2 = RawSmbClient.created(second.get(5, TimeUnit.SECONDS));
            assertEquals(NtStatus.SUCCESS, h2.status());
            assertEquals(BATCH, h2.oplockLevel(), "the holder closed: the new open is alone");
        }
    }

    @Test
    void batchBreaksBeforeTheShareCheckExclusiveDoesNot() throws Exception {
        try (RawSmbClient a = client(); RawSmbClient b = client()) {
            a.onBreak = n -> {
                try {
                    a.sendAck(RawSmbClient.breakFileId(n), RawSmbClient.breakLevel(n));
                } catch (java.io.IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            };
            String ex = fresh();
            RawSmbClient.Created e1 = a.create(ex, EXCLUSIVE, READ_WRITE, 0, OPEN_IF);
            assertEquals(NtStatus.SHARING_VIOLATION, b.create(ex, BATCH, READ_WRITE, SHARE_ALL, OPEN_IF).status());
            a.onBreak = null;
            assertNull(a.nextBreak(200), "MS-FSA: no Exclusive break when sharing refuses the open");

            String bt = fresh();
            java.util.concurrent.BlockingQueue<Integer> levels = new java.util.concurrent.LinkedBlockingQueue<>();
            a.onBreak = n -> {
                levels.add(RawSmbClient.breakLevel(n));
                try {
                    a.sendAck(RawSmbClient.breakFileId(n), RawSmbClient.breakLevel(n));
                } catch (java.io.IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            };
            a.create(bt, BATCH, READ_WRITE, 0, OPEN_IF);
            assertEquals(NtStatus.SHARING_VIOLATION, b.create(bt, BATCH, READ_WRITE, SHARE_ALL, OPEN_IF).status());
            assertEquals(II, levels.poll(2, TimeUnit.SECONDS), "Batch breaks first, so its holder could close");
            assertNotNull(e1.fileId());
        }
    }

    @Test
    void attributeOnlyOpensBreakNothingAndGetNoOplock() throws Exception {
        String name = fresh();
        try (RawSmbClient a = client(); RawSmbClient b = client()) {
            a.create(name, BATCH, READ_WRITE, 0, OPEN_IF); // share none: attribute-only opens still get in
            RawSmbClient.Created s = b.create(name, BATCH, 0x00100080 | 0x100, SHARE_ALL, Smb2Create.FILE_OPEN);
            assertEquals(NtStatus.SUCCESS, s.status());
            assertEquals(NONE, s.oplockLevel());
            assertNull(a.nextBreak(200));
        }
    }

    @Test
    void badAcknowledgmentsGetTheStatusesMsSmb2Names() throws Exception {
        String name = fresh();
        try (RawSmbClient a = client(); RawSmbClient b = client()) {
            RawSmbClient.Created h1 = a.create(name, BATCH, READ_WRITE, SHARE_ALL, OPEN_IF);
            // 3.3.5.22.1: an unknown FileId, then no break outstanding
            assertEquals(NtStatus.FILE_CLOSED, Smb2Header.status(a.ack(new FileId(77777, 77777), NONE)));
            assertEquals(NtStatus.INVALID_DEVICE_STATE, Smb2Header.status(a.ack(h1.fileId(), NONE)));
            CompletableFuture<ByteBuffer> second = b.sendCreate(name, NONE, READ_WRITE, SHARE_ALL, OPEN_IF);
            assertNotNull(a.nextBreak(5000));
            // acknowledging a level above Level II is a protocol error, and ends the oplock
            assertEquals(NtStatus.INVALID_OPLOCK_PROTOCOL, Smb2Header.status(a.ack(h1.fileId(), BATCH)));
            assertEquals(NtStatus.SUCCESS, RawSmbClient.created(second.get(5, TimeUnit.SECONDS)).status());
            assertEquals(NtStatus.INVALID_OPLOCK_PROTOCOL, Smb2Header.status(a.ack(h1.fileId(), II)));
            // another session's open is not found by this one
            assertEquals(NtStatus.FILE_CLOSED, Smb2Header.status(b.ack(h1.fileId(), NONE)));
        }
    }
}
