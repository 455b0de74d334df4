package io.rdmagate.vfs.local;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rdmagate.vfs.Caller;
import io.rdmagate.vfs.CreateMode;
import io.rdmagate.vfs.ExportOptions;
import io.rdmagate.vfs.SetAttributes;
import io.rdmagate.vfs.lock.ByteRangeLock;
import io.rdmagate.vfs.lock.LockConflictException;
import io.rdmagate.vfs.lock.LockManager;
import io.rdmagate.vfs.lock.LockOwner;
import io.rdmagate.vfs.lock.LockSemantics;
import io.rdmagate.vfs.lock.PendingLock;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Locks of a local export and locks of processes on the host see each other: what the gateway
 * grants (to NLM or SMB owners) is an open file description lock on the backing file, which this
 * JVM's own fcntl locks ({@link FileChannel#tryLock}, as any host process takes them) conflict
 * with, and a host lock refuses the gateway's clients.
 */
class OfdLocksTest {
    @TempDir
    Path tmp;
    LocalFileSystem fs;
    Path file;
    long id;
    final LockOwner nlm = new LockOwner("nlm:client:7:aa", "client", 7, new byte[] {1});
    final LockOwner smb = new LockOwner("smb:open:9", "client", 0, new byte[0]);

    @BeforeEach
    void open() throws Exception {
        Path root = Files.createDirectories(tmp.resolve("export"));
        fs = LocalFileSystem.open(root, Files.createDirectories(tmp.resolve("state")), ExportOptions.DEFAULT);
        id = fs.create(Caller.ROOT, fs.root(), "shared.dat", CreateMode.GUARDED, SetAttributes.NONE, 0).handle().fileId();
        file = root.resolve("shared.dat");
    }

    @AfterEach
    void close() {
        fs.close();
    }

    private FileLock hostTryLock(FileChannel c, long position, long size, boolean shared) throws Exception {
        return c.tryLock(position, size, shared);
    }

    /**
     * Another process on the host holding an fcntl lock until closed (perl is in every Debian and
     * Ubuntu: perl-base is essential). Not this JVM: closing any descriptor of a file drops the
     * traditional fcntl locks its process holds on it, and the gateway opens and closes some.
     */
    static final class HostProcess implements AutoCloseable {
        private static final String SCRIPT = "open(my $fh, '+<', $ARGV[0]) or die 'open'; "
                + "my $lk = pack('s s x4 q q i x4', $ARGV[3] eq 'w' ? F_WRLCK : F_RDLCK, 0, $ARGV[1], $ARGV[2], 0); "
                + "fcntl($fh, F_SETLK, $lk) or die 'refused'; $| = 1; print \"held\\n\"; <STDIN>;";
        private final Process p;

        HostProcess(Path file, long start, long length, boolean write) throws Exception {
            p = new ProcessBuilder("perl", "-MFcntl", "-e", SCRIPT, file.toString(), Long.toString(start),
                    Long.toString(length), write ? "w" : "r").redirectErrorStream(true).start();
            String line = new java.io.BufferedReader(new java.io.InputStreamReader(p.getInputStream())).readLine();
            assertEquals("held", line, "the host process took its lock");
        }

        @Override
        public void close() throws Exception {
            p.getOutputStream().close();
            assertEquals(0, p.waitFor());
        }
    }

    @Test
    void aGatewayLockIsSeenByAHostProcessUntilItIsReleased() throws Exception {
        LockManager locks = fs.locks();
        locks.lock(id, new ByteRangeLock(nlm, 0, 100, true, LockSemantics.POSIX));
        try (FileChannel c = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            assertNull(hostTryLock(c, 50, 10, false), "the host is refused a range the gateway's client holds");
            FileLock outside = hostTryLock(c, 200, 10, false);
            assertNotNull(outside, "ranges the gateway does not hold stay free");
            outside.release();
            locks.unlock(id, nlm, 0, 100, LockSemantics.POSIX);
            FileLock after = hostTryLock(c, 50, 10, false);
            assertNotNull(after, "released by the gateway, free to the host");
            after.release();
        }
    }

    @Test
    void aHostLockRefusesTheGatewaysClientsAndTheirWaitsToo() throws Exception {
        LockManager locks = fs.locks();
        assertFalse(locks.anyLock(id));
        try (HostProcess host = new HostProcess(file, 0, 10, true)) {
            assertTrue(locks.anyLock(id), "a host process's lock is seen (SMB grants no write caching beside it)");
            LockConflictException e = assertThrows(LockConflictException.class,
                    () -> locks.lock(id, new ByteRangeLock(smb, 5, 1, true, LockSemantics.WINDOWS)));
            assertEquals(LockManager.OUTSIDE, e.holder().owner());
            assertThrows(LockConflictException.class,
                    () -> locks.lockOrWait(id, new ByteRangeLock(nlm, 0, 0, true, LockSemantics.POSIX)),
                    "the gateway hears nothing when a host lock goes: it refuses rather than waits");
            assertTrue(locks.locks(id).isEmpty(), "a refused lock leaves nothing granted");
            locks.lock(id, new ByteRangeLock(smb, 10, 10, true, LockSemantics.WINDOWS)); // beside it: granted
            // NLM TEST (F_GETLK over NFS) names the host process as the holder; the gateway's own owners as before
            assertEquals(LockManager.OUTSIDE,
                    locks.test(id, new ByteRangeLock(nlm, 5, 1, true, LockSemantics.POSIX)).orElseThrow().owner());
            assertEquals(smb, locks.test(id, new ByteRangeLock(nlm, 12, 1, false, LockSemantics.POSIX)).orElseThrow()
                    .owner());
            locks.lock(id, new ByteRangeLock(nlm, 40, 10, true, LockSemantics.POSIX));
            assertTrue(locks.test(id, new ByteRangeLock(nlm, 45, 1, true, LockSemantics.POSIX)).isEmpty(),
                    "a POSIX owner's own lock is no conflict, on the backing file either");
            locks.unlock(id, nlm, 40, 10, LockSemantics.POSIX);
            assertTrue(locks.test(id, new ByteRangeLock(nlm, 30, 5, true, LockSemantics.POSIX)).isEmpty());
        }
        locks.lock(id, new ByteRangeLock(nlm, 0, 5, true, LockSemantics.POSIX));
        assertEquals(2, locks.locks(id).size());
    }

    @Test
    void sharedLocksCoexistWithAHostReaderAndOwnersStayApart() throws Exception {
        LockManager locks = fs.locks();
        try (HostProcess reader = new HostProcess(file, 0, 100, false)) {
            LockConflictException e = assertThrows(LockConflictException.class,
                    () -> locks.lock(id, new ByteRangeLock(smb, 0, 100, true, LockSemantics.WINDOWS)));
            assertEquals(LockManager.OUTSIDE, e.holder().owner(), "a host reader holds a gateway writer off");
            locks.lock(id, new ByteRangeLock(nlm, 0, 100, false, LockSemantics.POSIX)); // shared beside a shared
        }
        locks.lock(id, new ByteRangeLock(smb, 0, 100, false, LockSemantics.WINDOWS));
        locks.releaseAll(o -> o.equals(nlm));
        try (FileChannel c = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            assertNull(hostTryLock(c, 0, 100, false), "the other owner's shared lock still holds the host's writer off");
            FileLock read = hostTryLock(c, 0, 100, true);
            assertNotNull(read, "but not its readers");
            read.release();
            locks.releaseAll(o -> true);
            FileLock write = hostTryLock(c, 0, 100, false);
            assertNotNull(write, "free once every owner let go");
            write.release();
        }
    }

    @Test
    void aWaiterGrantedAfterAGatewayUnlockTakesTheBackingLockToo() throws Exception {
        LockManager locks = fs.locks();
        locks.lock(id, new ByteRangeLock(nlm, 0, 10, true, LockSemantics.POSIX));
        PendingLock p = locks.lockOrWait(id, new ByteRangeLock(smb, 0, 10, true, LockSemantics.WINDOWS));
        locks.unlock(id, nlm, 0, 10, LockSemantics.POSIX);
        assertEquals(smb, p.granted().get().owner());
        try (FileChannel c = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            assertNull(hostTryLock(c, 0, 10, false), "the waiter's grant is on the backing file");
        }
    }

    @Test
    void overlappingLocksOfOneOwnerFlattenToTheStrongestPerByte() {
        List<OfdLocks.Segment> s = OfdLocks.flatten(List.of(
                new ByteRangeLock(smb, 0, 100, false, LockSemantics.WINDOWS),
                new ByteRangeLock(smb, 50, 10, true, LockSemantics.WINDOWS),
                new ByteRangeLock(smb, 200, 0, true, LockSemantics.POSIX)));
        assertEquals(List.of(new OfdLocks.Segment(0, 50, Libc.F_RDLCK), new OfdLocks.Segment(50, 60, Libc.F_WRLCK),
                new OfdLocks.Segment(60, 100, Libc.F_RDLCK), new OfdLocks.Segment(100, 200, Libc.F_UNLCK),
                new OfdLocks.Segment(200, 0, Libc.F_WRLCK)), s);
    }
}
