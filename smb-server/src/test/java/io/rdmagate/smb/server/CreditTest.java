package io.rdmagate.smb.server;

import static io.rdmagate.smb.server.RawSmbClient.changeNotify;
import static io.rdmagate.smb.server.RawSmbClient.echo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rdmagate.gateway.spi.config.SmbConfig;
import io.rdmagate.smb.mserref.NtStatus;
import io.rdmagate.smb.mssmb2.Smb2Command;
import io.rdmagate.smb.mssmb2.Smb2Header;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Credits and MessageIds as a client that misbehaves uses them: a MessageId used twice, one the
 * server never granted, a multi-credit request's MessageIds reused, and a flood of requests the
 * server answers STATUS_PENDING. The first three end the connection (MS-SMB2 3.3.5.2.3, as Windows
 * and Samba do), so a client cannot run ahead of its credits however it numbers its requests; the
 * flood stops at {@code smb.maxAsyncRequests} (3.3.4.2); the server serves others throughout.
 */
class CreditTest {
    @TempDir
    static Path dir;
    static TestServer server;

    @BeforeAll
    static void start() throws Exception {
        server = new TestServer(Files.createDirectories(dir.resolve("export")), Files.createDirectories(dir.resolve("state")),
                false, false);
    }

    @AfterAll
    static void stop() throws Exception {
        server.close();
    }

    @Test
    void aMessageIdUsedTwiceEndsTheConnection() throws Exception {
        try (RawSmbClient c = new RawSmbClient(server.port()).logon()) {
            long used = c.nextMessageId() - 1;
            assertEquals(NtStatus.SUCCESS, Smb2Header.status(c.call(Smb2Command.ECHO, echo())));
            c.sendAs(Smb2Command.ECHO, echo(), used, 1);
            assertTrue(c.endsWithin(10_000), "MessageId " + used + " again");
        }
        assertServed();
    }

    @Test
    void aMessageIdBeyondTheCreditsGrantedEndsTheConnection() throws Exception {
        try (RawSmbClient c = new RawSmbClient(server.port()).logon()) {
            c.sendAs(Smb2Command.ECHO, echo(), c.nextMessageId() + 9000, 1); // 8192 credits at most
            assertTrue(c.endsWithin(10_000), "a MessageId never granted");
        }
        assertServed();
    }

    @Test
    void messageIdsWithinTheCreditsMayArriveInAnyOrder() throws Exception {
        try (RawSmbClient c = new RawSmbClient(server.port()).logon()) {
            long next = c.nextMessageId();
            CompletableFuture<ByteBuffer> later = c.sendAs(Smb2Command.ECHO, echo(), next + 2, 1);
            CompletableFuture<ByteBuffer> earlier = c.sendAs(Smb2Command.ECHO, echo(), next + 1, 1);
            CompletableFuture<ByteBuffer> first = c.sendAs(Smb2Command.ECHO, echo(), next, 1);
            for (var f : List.of(later, earlier, first)) {
                assertEquals(NtStatus.SUCCESS, Smb2Header.status(f.get(10, TimeUnit.SECONDS)));
            }
        }
    }

    @Test
    void aMultiCreditRequestTakesAllItsMessageIds() throws Exception {
        Files.write(dir.resolve("export/charged.bin"), new byte[256 << 10]);
        try (RawSmbClient c = new RawSmbClient(server.port()).logon()) {
            RawSmbClient.Created f = c.create("charged.bin", 0, 0x0012019f, 7, 1);
            assertEquals(NtStatus.SUCCESS, f.status());
            long first = c.nextMessageId();
            ByteBuffer r = c.sendRead(f.fileId(), 0, 256 << 10).get(10, TimeUnit.SECONDS); // CreditCharge 4
            assertEquals(NtStatus.SUCCESS, Smb2Header.status(r));
            assertEquals(first + 4, c.nextMessageId());
            c.sendAs(Smb2Command.ECHO, echo(), first + 2, 1);
            assertTrue(c.endsWithin(10_000), "MessageId " + (first + 2) + " was the READ's third");
        }
        assertServed();
    }

    /**
     * CHANGE_NOTIFYs on one directory, each sent once the one before is pending: the first
     * {@code maxAsyncRequests} wait, the next is STATUS_INSUFFICIENT_RESOURCES; the connection goes
     * on serving, and once one pending request is cancelled another may wait in its place.
     */
    @Test
    void requestsPendingAtOnceStopAtMaxAsyncRequests() throws Exception {
        Files.createDirectories(dir.resolve("export/watched"));
        int max = SmbConfig.DEFAULT_MAX_ASYNC_REQUESTS;
        try (RawSmbClient c = new RawSmbClient(server.port()).logon()) {
            RawSmbClient.Created d = c.openDirectory("watched");
            assertEquals(NtStatus.SUCCESS, d.status());
            List<Long> pending = new ArrayList<>();
            for (int i = 0; i < max; i++) {
                long mid = c.nextMessageId();
                ByteBuffer first = c.sendAnswered(Smb2Command.CHANGE_NOTIFY, changeNotify(d.fileId(), 0x3, 4096))
                        .get(10, TimeUnit.SECONDS);
                assertEquals(NtStatus.PENDING, Smb2Header.status(first), "CHANGE_NOTIFY " + i + " waits");
                pending.add(mid);
            }
            ByteBuffer refused = c.sendChangeNotify(d.fileId(), 0x3, 4096).get(10, TimeUnit.SECONDS);
            assertEquals(NtStatus.INSUFFICIENT_RESOURCES, Smb2Header.status(refused), "one more than " + max);
            assertEquals(NtStatus.SUCCESS, Smb2Header.status(c.call(Smb2Command.ECHO, echo())), "the connection serves on");

            CompletableFuture<ByteBuffer> cancelled = c.response(pending.getFirst());
            c.sendCancel(pending.getFirst());
            assertEquals(NtStatus.CANCELLED, Smb2Header.status(cancelled.get(10, TimeUnit.SECONDS)));
            ByteBuffer again = c.sendAnswered(Smb2Command.CHANGE_NOTIFY, changeNotify(d.fileId(), 0x3, 4096))
                    .get(10, TimeUnit.SECONDS);
            assertEquals(NtStatus.PENDING, Smb2Header.status(again), "another CHANGE_NOTIFY waits in its place");
        }
        assertServed();
    }

    private static void assertServed() throws Exception {
        try (RawSmbClient fresh = new RawSmbClient(server.port()).logon()) {
            assertEquals(NtStatus.SUCCESS, Smb2Header.status(fresh.call(Smb2Command.ECHO, echo())));
        }
    }
}
