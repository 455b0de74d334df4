package io.rdmagate.smb.server;

import static io.rdmagate.smb.server.RawSmbClient.READ_WRITE;
import static io.rdmagate.smb.server.RawSmbClient.SHARE_ALL;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rdmagate.smb.mserref.NtStatus;
import io.rdmagate.smb.mssmb2.Smb2Create;
import io.rdmagate.smb.mssmb2.Smb2Header;
import io.rdmagate.smb.mssmb2.Smb2Lease;
import io.rdmagate.vfs.Caller;
import io.rdmagate.vfs.VfsError;
import io.rdmagate.vfs.VfsException;
import io.rdmagate.vfs.lock.ByteRangeLock;
import io.rdmagate.vfs.lock.LockOwner;
import io.rdmagate.vfs.lock.LockSemantics;
import io.rdmagate.vfs.state.Conflict;
import io.rdmagate.vfs.state.FileStates;
import io.rdmagate.vfs.state.ShareReservations;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * SMB leases and oplocks under operations of another protocol on the same volume, as the NFSv3
 * and NLM procedures carry them out: {@link FileStates#begin} before the operation, {@link
 * FileStates#end} after. A write recalls every caching level and waits for the acknowledgment (so
 * the SMB client flushes, then drops its cache); a read or GETATTR takes only write caching; a
 * rename or remove only handle caching; a lock request write caching; SMB share modes refuse other
 * protocols' writes and removals; a client that never acknowledges holds the operation no longer
 * than the break timer; no caching is granted while the other protocol changes the file, and no
 * write caching while it holds byte-range locks.
 */
class CrossProtocolBreakTest {
    static final int R = Smb2Lease.READ;
    static final int H = Smb2Lease.HANDLE;
    static final int W = Smb2Lease.WRITE;
    static final Duration BREAK_TIMEOUT = Duration.ofSeconds(2);

    @TempDir
    static Path tmp;
    static TestServer server;

    @BeforeAll
    static void start() throws Exception {
        server = new TestServer(Files.createDirectories(tmp.resolve("export")), Files.createDirectories(tmp.resolve("state")),
                false, false, 0, BREAK_TIMEOUT);
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    static byte[] key(int b) {
        return LeaseTest.key(b);
    }

    static RawSmbClient client() throws Exception {
        return new RawSmbClient(server.port()).logon();
    }

    static ByteBuffer open(RawSmbClient c, String name, byte[] key, int state, int share) throws Exception {
        ByteBuffer r = c.sendLeaseCreate(name, key, state, READ_WRITE, share, Smb2Create.FILE_OPEN_IF)
                .get(10, TimeUnit.SECONDS);
        assertEquals(NtStatus.SUCCESS, Smb2Header.status(r));
        return r;
    }

    static long fileId(String name) throws VfsException {
        return server.vfs.lookup(Caller.ROOT, server.vfs.root(), name).handle().fileId();
    }

    /** What an NFS procedure does around its operation, on a thread of its own, as an NFS call runs. */
    static CompletableFuture<Void> otherProtocol(String name, Conflict c) {
        CompletableFuture<Void> done = new CompletableFuture<>();
        Thread.ofVirtual().start(() -> {
            try {
                FileStates states = server.vfs.states();
                states.end(states.begin(fileId(name), c));
                done.complete(null);
            } catch (Throwable e) {
                done.completeExceptionally(e);
            }
        });
        return done;
    }

    @Test
    void anotherProtocolsWriteRecallsEveryCachingLevelAndWaitsForTheAck() throws Exception {
        FileStates states = server.vfs.states();
        long before = states.recalls(Conflict.WRITE);
        try (RawSmbClient a = client()) {
            assertEquals(R | W | H, RawSmbClient.leaseState(open(a, "nfs-write.dat", key(1), R | W | H, SHARE_ALL)));
            CompletableFuture<Void> write = otherProtocol("nfs-write.dat", Conflict.WRITE);
            ByteBuffer n = a.nextBreak(5000);
            assertNotNull(n, "the lease is broken by the other protocol's write");
            assertEquals(Smb2Lease.NOTIFY_ACK_REQUIRED, n.getInt(68));
            assertEquals(R | W | H, n.getInt(88));
            assertEquals(0, n.getInt(92), "nothing cached stays true after another client's write");
            assertFalse(write.isDone(), "the write waits while the SMB client may still flush dirty data");
            assertEquals(NtStatus.SUCCESS, Smb2Header.status(a.leaseAck(key(1), 0)));
            write.get(5, TimeUnit.SECONDS);
            assertEquals(before + 1, states.recalls(Conflict.WRITE));
        }
    }

    /**
     * An NFS client writes through a handle of an earlier file that had the same inode number (the
     * filesystem reuses the number once a file is removed; the handle's generation tells them
     * apart): the SMB client's lease on the file it has open now is not broken for it. A write
     * through the file's own handle is.
     */
    @Test
    void aWriteToAnEarlierFileWithTheSameInodeNumberBreaksNoLease() throws Exception {
        FileStates states = server.vfs.states();
        try (RawSmbClient a = client()) {
            assertEquals(R | W | H, RawSmbClient.leaseState(open(a, "reused.dat", key(20), R | W | H, SHARE_ALL)));
            io.rdmagate.vfs.FileHandle now = server.vfs.lookup(Caller.ROOT, server.vfs.root(), "reused.dat").handle();
            io.rdmagate.vfs.FileHandle earlier = io.rdmagate.vfs.FileHandle.of(now.volumeId(), now.fileId(),
                    now.generation() + 1, now.type());
            long before = states.recalls(Conflict.WRITE);
            CompletableFuture.runAsync(() -> {
                try {
                    states.end(states.begin(earlier, Conflict.WRITE, null));
                } catch (VfsException e) {
                    throw new IllegalStateException(e);
                }
            }).get(5, TimeUnit.SECONDS);
            assertEquals(before, states.recalls(Conflict.WRITE), "nothing was recalled for another file");

            CompletableFuture<Void> write = CompletableFuture.runAsync(() -> {
                try {
                    states.end(states.begin(now, Conflict.WRITE, null));
                } catch (VfsException e) {
                    throw new IllegalStateException(e);
                }
            });
            ByteBuffer n = a.nextBreak(5000);
            assertNotNull(n, "a write to the open file breaks its lease");
            assertEquals(R | W | H, n.getInt(88), "the first break is this one: the lease was whole until now");
            assertEquals(NtStatus.SUCCESS, Smb2Header.status(a.leaseAck(key(20), 0)));
            write.get(5, TimeUnit.SECONDS);
            assertEquals(before + 1, states.recalls(Conflict.WRITE));
        }
    }

    /**
     * A program on the host appends to a file an SMB client caches: the lease is broken (read
     * caching too), so the client reads the new data; the client's own SMB write before it broke
     * nothing, as the count of foreign changes shows (events arrive in order).
     */
    @Test
    void aWriteMadeOnTheHostBreaksTheLeaseAndTheServersOwnWriteDoesNot() throws Exception {
        FileStates states = server.vfs.states();
        try (RawSmbClient a = client()) {
            ByteBuffer r = open(a, "host-write.dat", key(10), R | W | H, SHARE_ALL);
            assertEquals(R | W | H, RawSmbClient.leaseState(r));
            long before = states.foreignChanges(Conflict.WRITE);
            assertEquals(NtStatus.SUCCESS, a.write(io.rdmagate.smb.mssmb2.FileId.read(r, 128), 0, "smb 1".getBytes()));
            Process p = new ProcessBuilder("sh", "-c", "printf ' and the host' >> host-write.dat")
                    .directory(tmp.resolve("export").toFile()).inheritIO().start();
            assertTrue(p.waitFor(30, TimeUnit.SECONDS));
            ByteBuffer n = a.nextBreak(10_000);
            assertNotNull(n, "the host's write breaks the lease");
            assertEquals(R | W | H, n.getInt(88));
            assertEquals(0, n.getInt(92), "nothing cached stays true after a write made elsewhere");
            assertEquals(before + 1, states.foreignChanges(Conflict.WRITE), "the client's own write was not foreign");
            assertEquals(NtStatus.SUCCESS, Smb2Header.status(a.leaseAck(key(10), 0)));
        }
    }

    @Test
    void anotherProtocolsReadTakesOnlyWriteCaching() throws Exception {
        try (RawSmbClient a = client()) {
            open(a, "nfs-read.dat", key(2), R | W | H, SHARE_ALL);
            CompletableFuture<Void> read = otherProtocol("nfs-read.dat", Conflict.READ);
            ByteBuffer n = a.nextBreak(5000);
            assertNotNull(n);
            assertEquals(R | H, n.getInt(92), "read and handle caching stay");
            assertEquals(NtStatus.SUCCESS, Smb2Header.status(a.leaseAck(key(2), R | H)));
            read.get(5, TimeUnit.SECONDS);
            otherProtocol("nfs-read.dat", Conflict.READ).get(5, TimeUnit.SECONDS);
            assertNull(a.nextBreak(200), "a second read finds nothing to recall");
        }
    }

    @Test
    void renameOrRemoveTakesHandleCachingAndAWriteTheRest() throws Exception {
        try (RawSmbClient a = client()) {
            open(a, "nfs-rename.dat", key(3), R | H, SHARE_ALL);
            CompletableFuture<Void> rename = otherProtocol("nfs-rename.dat", Conflict.NAMESPACE);
            ByteBuffer n = a.nextBreak(5000);
            assertNotNull(n);
            assertEquals(R, n.getInt(92));
            assertEquals(NtStatus.SUCCESS, Smb2Header.status(a.leaseAck(key(3), R)));
            rename.get(5, TimeUnit.SECONDS);
            // R alone breaks to none without an acknowledgment: the write does not wait
            otherProtocol("nfs-rename.dat", Conflict.WRITE).get(5, TimeUnit.SECONDS);
            ByteBuffer m = a.nextBreak(5000);
            assertNotNull(m);
            assertEquals(0, m.getInt(68), "R to none needs no ack");
            assertEquals(0, m.getInt(92));
        }
    }

    @Test
    void aLockRequestRecallsWriteCachingSoCachedLocksComeInFirst() throws Exception {
        try (RawSmbClient a = client()) {
            open(a, "nlm-lock.dat", key(4), R | W | H, SHARE_ALL);
            CompletableFuture<Void> lock = otherProtocol("nlm-lock.dat", Conflict.LOCK);
            ByteBuffer n = a.nextBreak(5000);
            assertNotNull(n);
            assertEquals(0, n.getInt(92));
            assertEquals(NtStatus.SUCCESS, Smb2Header.status(a.leaseAck(key(4), 0)));
            lock.get(5, TimeUnit.SECONDS);
        }
    }

    @Test
    void aClientThatNeverAcknowledgesHoldsTheOperationOnlyUntilTheBreakTimer() throws Exception {
        FileStates states = server.vfs.states();
        long timeouts = states.recallTimeouts();
        try (RawSmbClient a = client()) {
            open(a, "silent.dat", key(5), R | W | H, SHARE_ALL);
            long t0 = System.nanoTime();
            CompletableFuture<Void> write = otherProtocol("silent.dat", Conflict.WRITE);
            assertNotNull(a.nextBreak(5000));
            write.get(BREAK_TIMEOUT.toMillis() * 5, TimeUnit.MILLISECONDS);
            assertTrue(System.nanoTime() - t0 >= BREAK_TIMEOUT.toNanos() / 2, "the write waited for the client");
            assertEquals(timeouts + 1, states.recallTimeouts());
            // the lease is gone: the client's late acknowledgment finds nothing breaking
            assertEquals(NtStatus.UNSUCCESSFUL, Smb2Header.status(a.leaseAck(key(5), 0)));
        }
    }

    @Test
    void anOplockIsRecalledLikeALease() throws Exception {
        try (RawSmbClient a = client()) {
            RawSmbClient.Created c = a.create("oplock.dat", Smb2Create.OPLOCK_LEVEL_BATCH, READ_WRITE, SHARE_ALL,
                    Smb2Create.FILE_OPEN_IF);
            assertEquals(Smb2Create.OPLOCK_LEVEL_BATCH, c.oplockLevel());
            CompletableFuture<Void> read = otherProtocol("oplock.dat", Conflict.READ);
            ByteBuffer n = a.nextBreak(5000);
            assertNotNull(n);
            assertEquals(Smb2Create.OPLOCK_LEVEL_II, RawSmbClient.breakLevel(n));
            a.ack(c.fileId(), Smb2Create.OPLOCK_LEVEL_II);
            read.get(5, TimeUnit.SECONDS);
            // Level II breaks to none on a write, with no acknowledgment to wait for
            otherProtocol("oplock.dat", Conflict.WRITE).get(5, TimeUnit.SECONDS);
            ByteBuffer m = a.nextBreak(5000);
            assertNotNull(m);
            assertEquals(Smb2Create.OPLOCK_LEVEL_NONE, RawSmbClient.breakLevel(m));
        }
    }

    @Test
    void shareModesRefuseOtherProtocolsWritesAndRemovals() throws Exception {
        FileStates states = server.vfs.states();
        try (RawSmbClient a = client()) {
            ByteBuffer r = open(a, "deny.dat", key(6), 0, 0x1); // FILE_SHARE_READ only: no writers, no deleters
            VfsException w = assertThrows(VfsException.class, () -> states.begin(fileId("deny.dat"), Conflict.WRITE));
            assertEquals(VfsError.SHARING_VIOLATION, w.error());
            VfsException d = assertThrows(VfsException.class,
                    () -> states.begin(fileId("deny.dat"), Conflict.NAMESPACE));
            assertEquals(VfsError.SHARING_VIOLATION, d.error());
            states.end(states.begin(fileId("deny.dat"), Conflict.READ)); // reading is shared
            assertEquals(NtStatus.SUCCESS, a.close(RawSmbClient.created(r).fileId()));
            states.end(states.begin(fileId("deny.dat"), Conflict.WRITE)); // and once it is closed, writing is too
        }
    }

    /**
     * Another protocol's state of a file (NFSv4 delegations), as a holder of the volume's one
     * state: what it saw asked, and a recall that resolves when the test says. Its opens are
     * reservations in the volume's share reservations, which the tests make.
     */
    static final class OtherHolder implements io.rdmagate.vfs.state.CacheHolder {
        final java.util.List<String> asked = new java.util.concurrent.CopyOnWriteArrayList<>();
        final CompletableFuture<Void> returned = new CompletableFuture<>();
        volatile long delegated = -1;

        @Override
        public String protocol() {
            return "nfs4";
        }

        @Override
        public boolean holdsAnything() {
            return true;
        }

        @Override
        public io.rdmagate.vfs.state.Recall recall(int volumeId, long fileId, long generation, Conflict conflict, Object breaker) {
            asked.add(conflict + (breaker == null ? " by nobody" : " by smb"));
            if (fileId != delegated || conflict == Conflict.READ || returned.isDone()) {
                return null;
            }
            return maxNanos -> {
                try {
                    returned.get(Math.min(maxNanos, TimeUnit.SECONDS.toNanos(30)), TimeUnit.NANOSECONDS);
                    return io.rdmagate.vfs.state.Recall.Outcome.ACKNOWLEDGED;
                } catch (java.util.concurrent.TimeoutException | java.util.concurrent.ExecutionException e) {
                    return io.rdmagate.vfs.state.Recall.Outcome.PENDING;
                }
            };
        }
    }

    /**
     * The other way round: an SMB CREATE asks the other protocols' state first. An open for writing
     * recalls what they cache (an NFSv4 read delegation) and is answered only once it is returned;
     * an open for reading recalls nothing; an open that another protocol's share reservation
     * denies is STATUS_SHARING_VIOLATION.
     */
    @Test
    void anSmbOpenForWritingRecallsOtherProtocolsCachingAndTheirDenyModesRefuseIt() throws Exception {
        OtherHolder nfs = new OtherHolder();
        FileStates states = server.vfs.states();
        try (RawSmbClient a = client()) {
            assertEquals(NtStatus.SUCCESS, a.create("delegated.dat", 0, READ_WRITE, SHARE_ALL, Smb2Create.FILE_OPEN_IF).status());
            assertEquals(NtStatus.SUCCESS, a.create("nfs-denied.dat", 0, 0x00120089 /* FILE_GENERIC_READ */, SHARE_ALL,
                    Smb2Create.FILE_OPEN_IF).status());
            nfs.delegated = fileId("delegated.dat");
            // an NFSv4 open that reads and denies writing (OPEN4_SHARE_DENY_WRITE)
            var denying = states.shares().reserve(fileId("nfs-denied.dat"), 0, ShareReservations.READ,
                    ShareReservations.WRITE, nfs, "an nfs4 client");
            states.register(nfs);
            try {
                assertEquals(NtStatus.SUCCESS, a.create("delegated.dat", 0, 0x00120089 /* FILE_GENERIC_READ */, SHARE_ALL,
                        Smb2Create.FILE_OPEN).status(), "reading is shared with the delegation");
                assertEquals(java.util.List.of("READ by smb"), nfs.asked);
                CompletableFuture<ByteBuffer> w = a.sendCreate("delegated.dat", 0, READ_WRITE, SHARE_ALL, Smb2Create.FILE_OPEN);
                assertThrows(java.util.concurrent.TimeoutException.class, () -> w.get(300, TimeUnit.MILLISECONDS),
                        "the open for writing waits for the delegation");
                nfs.returned.complete(null);
                assertEquals(NtStatus.SUCCESS, Smb2Header.status(w.get(10, TimeUnit.SECONDS)));
                assertTrue(nfs.asked.contains("WRITE by smb"), nfs.asked.toString());
                assertEquals(NtStatus.SHARING_VIOLATION,
                        a.create("nfs-denied.dat", 0, READ_WRITE, SHARE_ALL, Smb2Create.FILE_OPEN).status(),
                        "an NFSv4 open that denies writing refuses an SMB open for writing");
            } finally {
                states.unregister(nfs);
                denying.release();
            }
        }
    }

    @Test
    void noCachingWhileAnotherProtocolChangesTheFileNorWriteCachingBesideItsLocks() throws Exception {
        FileStates states = server.vfs.states();
        try (RawSmbClient a = client()) {
            RawSmbClient.Created made = a.create("busy.dat", Smb2Create.OPLOCK_LEVEL_NONE, READ_WRITE, SHARE_ALL,
                    Smb2Create.FILE_OPEN_IF);
            assertEquals(NtStatus.SUCCESS, a.close(made.fileId()));
            long id = fileId("busy.dat");
            int use = states.begin(id, Conflict.WRITE);
            try {
                ByteBuffer r = open(a, "busy.dat", key(7), R | W | H, SHARE_ALL);
                assertEquals(0, RawSmbClient.leaseState(r), "no lease while the other protocol's write is under way");
                assertEquals(NtStatus.SUCCESS, a.close(RawSmbClient.created(r).fileId()));
            } finally {
                states.end(use);
            }
            LockOwner nlm = new LockOwner("nlm:client:1:01", "client", 1, new byte[] {1});
            server.vfs.locks().lock(id, new ByteRangeLock(nlm, 0, 10, true, LockSemantics.POSIX));
            try {
                ByteBuffer r = open(a, "busy.dat", key(8), R | W | H, SHARE_ALL);
                assertEquals(R | H, RawSmbClient.leaseState(r), "no write caching beside another protocol's lock");
                assertEquals(NtStatus.SUCCESS, a.close(RawSmbClient.created(r).fileId()));
            } finally {
                server.vfs.locks().unlock(id, nlm, 0, 10, LockSemantics.POSIX);
            }
            ByteBuffer r = open(a, "busy.dat", key(9), R | W | H, SHARE_ALL);
            assertEquals(R | W | H, RawSmbClient.leaseState(r), "the whole lease once the lock and the write are gone");
        }
    }

    /**
     * SMB opens and another protocol's opens (NFSv4 share reservations) are one table (MS-FSA
     * 2.1.5.1.2 and RFC 8881 §9.7 across both): an SMB open's share mode refuses the other
     * protocol's open, the other's deny refuses an SMB open, an attribute-only SMB open is refused
     * nothing and refuses nothing, and an SMB client gets no lease on a file the other protocol has
     * open for writing, no write caching of one it has open for reading.
     */
    @Test
    void smbSharingAndAnotherProtocolsOpensAreOneTable() throws Exception {
        OtherHolder nfs = new OtherHolder();
        ShareReservations shares = server.vfs.states().shares();
        try (RawSmbClient a = client()) {
            RawSmbClient.Created writer = a.create("one-table.dat", 0, READ_WRITE, SHARE_ALL, Smb2Create.FILE_OPEN_IF);
            assertEquals(NtStatus.SUCCESS, writer.status());
            long id = fileId("one-table.dat");
            VfsException w = assertThrows(VfsException.class,
                    () -> shares.reserve(id, 0, ShareReservations.READ, ShareReservations.WRITE, nfs, "nfs4 client"),
                    "an NFSv4 OPEN that denies writing, while an SMB client has the file open for writing");
            assertEquals(VfsError.SHARING_VIOLATION, w.error());
            assertEquals(NtStatus.SUCCESS, a.close(writer.fileId()));

            // FILE_SHARE_WRITE | FILE_SHARE_DELETE: reading is denied to others
            RawSmbClient.Created exclusive = a.create("one-table.dat", 0, 0x00120089 /* FILE_GENERIC_READ */, 0x6,
                    Smb2Create.FILE_OPEN);
            assertEquals(NtStatus.SUCCESS, exclusive.status());
            assertEquals(VfsError.SHARING_VIOLATION, assertThrows(VfsException.class,
                    () -> shares.reserve(id, 0, ShareReservations.READ, 0, nfs, "nfs4 client"),
                    "an NFSv4 OPEN for reading, while an SMB open does not share reading").error());
            var writing = shares.reserve(id, 0, ShareReservations.WRITE, 0, nfs, "nfs4 client"); // writing is shared
            assertEquals(NtStatus.SUCCESS, a.close(exclusive.fileId()));

            // the other protocol's client has the file open for writing, denying reading
            writing.change(ShareReservations.WRITE, ShareReservations.READ);
            assertEquals(NtStatus.SHARING_VIOLATION, a.create("one-table.dat", 0, 0x00120089, SHARE_ALL,
                    Smb2Create.FILE_OPEN).status(), "an SMB open for reading, while an NFSv4 open denies reading");
            RawSmbClient.Created attributes = a.create("one-table.dat", 0, 0x00100080 /* READ_ATTRIBUTES | SYNCHRONIZE */,
                    0, Smb2Create.FILE_OPEN);
            assertEquals(NtStatus.SUCCESS, attributes.status(), "an attribute-only open is not refused");
            assertEquals(NtStatus.SUCCESS, a.close(attributes.fileId()));
            writing.change(ShareReservations.WRITE, 0);
            ByteBuffer r = open(a, "one-table.dat", key(21), R | W | H, SHARE_ALL);
            assertEquals(NtStatus.SUCCESS, Smb2Header.status(r));
            assertEquals(0, RawSmbClient.leaseState(r), "no lease on a file another protocol has open for writing");
            assertEquals(NtStatus.SUCCESS, a.close(RawSmbClient.created(r).fileId()));
            writing.change(ShareReservations.READ, 0);
            r = open(a, "one-table.dat", key(22), R | W | H, SHARE_ALL);
            assertEquals(R | H, RawSmbClient.leaseState(r), "no write caching of a file another protocol has open");
            assertEquals(NtStatus.SUCCESS, a.close(RawSmbClient.created(r).fileId()));
            writing.release();
            r = open(a, "one-table.dat", key(23), R | W | H, SHARE_ALL);
            assertEquals(R | W | H, RawSmbClient.leaseState(r), "the whole lease once the other protocol closed");
            assertEquals(NtStatus.SUCCESS, a.close(RawSmbClient.created(r).fileId()));
            shares.reserve(id, 0, ShareReservations.READ, ShareReservations.WRITE, nfs, "nfs4 client").release();
        }
    }
}
