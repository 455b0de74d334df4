package io.rdmagate.vfs.local;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rdmagate.vfs.Caller;
import io.rdmagate.vfs.CreateMode;
import io.rdmagate.vfs.ExportOptions;
import io.rdmagate.vfs.FileAttributes;
import io.rdmagate.vfs.FileHandle;
import io.rdmagate.vfs.FileType;
import io.rdmagate.vfs.Node;
import io.rdmagate.vfs.SetAttributes;
import io.rdmagate.vfs.Stability;
import io.rdmagate.vfs.VfsError;
import io.rdmagate.vfs.VfsException;
import io.rdmagate.vfs.VirtualFileSystem;
import io.rdmagate.vfs.memory.IoMemory;
import io.rdmagate.vfs.memory.IoMemoryPool;
import io.rdmagate.vfs.memory.MemoryRegistrar;
import io.rdmagate.vfs.memory.PoolLimits;
import java.lang.foreign.Arena;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The local backend never reaches outside its root: not through symlinks made on the host, not
 * through forged handles, not while the host renames and swaps directories under it.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class LocalEscapeTest {
    private static final Caller ROOT = Caller.ROOT;
    private static final String SECRET = "SECRET-OUTSIDE-THE-EXPORT";
    private static final String INSIDE = "inside-data";

    @TempDir
    Path base;

    private Path root;
    private Path outside;
    private VirtualFileSystem vfs;
    private IoMemoryPool pool;
    private IoMemoryPool.Account account;

    @BeforeEach
    void setUp() throws Exception {
        root = Files.createDirectories(base.resolve("export"));
        outside = Files.createDirectories(base.resolve("outside"));
        Files.writeString(outside.resolve("marker"), SECRET);
        Files.createDirectories(outside.resolve("b").resolve("c"));
        Files.writeString(outside.resolve("b").resolve("c").resolve("data.txt"), SECRET);
        vfs = LocalFileSystem.open(root, Files.createDirectories(base.resolve("state")), ExportOptions.DEFAULT);
        pool = new IoMemoryPool(PoolLimits.DEFAULT, MemoryRegistrar.NONE);
        account = pool.account("escape");
    }

    @AfterEach
    void tearDown() {
        try {
            vfs.close();
        } finally {
            long leaked = pool.leasedBytes();
            pool.close();
            assertEquals(0, leaked, "I/O memory still leased");
        }
    }

    private String read(FileHandle h) throws VfsException {
        IoMemory m = vfs.read(ROOT, h, 0, 4096, account);
        try {
            return new String(m.segment().toArray(JAVA_BYTE), StandardCharsets.UTF_8);
        } finally {
            m.release();
        }
    }

    private static void assertError(VfsError expected, org.junit.jupiter.api.function.Executable e) {
        VfsException x = assertThrows(VfsException.class, e);
        assertEquals(expected, x.error(), x.getMessage());
    }

    private static void assertErrorIn(Set<VfsError> expected, org.junit.jupiter.api.function.Executable e) {
        VfsException x = assertThrows(VfsException.class, e, "expected one of " + expected);
        assertTrue(expected.contains(x.error()), "expected one of " + expected + ", got " + x.getMessage());
    }

    /** Whatever a read through this handle gives, it is never the secret. */
    private void assertNeverSecret(FileHandle h) {
        try {
            assertTrue(!read(h).contains(SECRET), "read data from outside the export");
        } catch (VfsException refused) {
            // refusing is fine
        }
    }

    @Test
    void symlinksMadeOnTheHostAreLinksThatResolveNeverFollowsOut() throws Exception {
        Files.createSymbolicLink(root.resolve("etc"), Path.of("/etc"));
        Files.createSymbolicLink(root.resolve("abs"), outside);
        Files.createSymbolicLink(root.resolve("absfile"), outside.resolve("marker"));
        Files.createSymbolicLink(root.resolve("rel"), Path.of("../outside"));
        Files.createSymbolicLink(root.resolve("relfile"), Path.of("../outside/marker"));
        Files.createDirectories(root.resolve("deep").resolve("er"));
        Files.createSymbolicLink(root.resolve("deep").resolve("er").resolve("up"), Path.of("../../../outside"));

        for (String name : List.of("etc", "abs", "absfile", "rel", "relfile")) {
            Node n = vfs.lookup(ROOT, vfs.root(), name);
            assertEquals(FileType.SYMLINK, n.attributes().type(), name + " is shown as a link, not followed");
            assertEquals(Files.readSymbolicLink(root.resolve(name)).toString(), vfs.readlink(ROOT, n.handle()));
            assertThrows(VfsException.class, () -> vfs.lookup(ROOT, n.handle(), "marker"),
                    "a lookup inside a link does not follow it");
            assertNeverSecret(n.handle());
        }
        for (String path : List.of("etc/passwd", "etc", "abs/marker", "absfile", "rel/marker", "relfile",
                "deep/er/up/marker", "deep/er/up")) {
            assertError(VfsError.ESCAPE, () -> vfs.resolve(ROOT, vfs.root(), path, true));
        }
        assertError(VfsError.ESCAPE, () -> vfs.resolve(ROOT, vfs.root(), "..", true));
        assertError(VfsError.ESCAPE, () -> vfs.resolve(ROOT, vfs.root(), "../outside/marker", true));
        assertEquals(vfs.root(), vfs.parent(ROOT, vfs.root()).handle(), "the root is its own parent");
    }

    @Test
    void writingThroughAHostSymlinkNeverChangesAFileOutside() throws Exception {
        Files.createSymbolicLink(root.resolve("relfile"), Path.of("../outside/marker"));
        Node link = vfs.lookup(ROOT, vfs.root(), "relfile");
        try (Arena arena = Arena.ofConfined()) {
            IoMemory data = IoMemory.lend(arena.allocateFrom(JAVA_BYTE, "overwritten".getBytes(StandardCharsets.UTF_8)));
            assertThrows(VfsException.class, () -> vfs.write(ROOT, link.handle(), 0, data, Stability.FILE_SYNC));
        }
        assertThrows(VfsException.class, () -> vfs.setattr(ROOT, link.handle(), SetAttributes.create().size(0)));
        try {
            vfs.create(ROOT, vfs.root(), "relfile", CreateMode.UNCHECKED, SetAttributes.create().size(0), 0);
        } catch (VfsException refused) {
            // refusing is fine; truncating the target is not
        }
        assertEquals(SECRET, Files.readString(outside.resolve("marker")));
    }

    @Test
    void forgedHandlesOfFilesOutsideTheRootNeverResolve() throws Exception {
        Set<VfsError> refused = EnumSet.of(VfsError.STALE, VfsError.ESCAPE);
        List<Path> targets = List.of(outside.resolve("marker"), outside, base, Path.of("/"), Path.of("/etc"),
                Path.of("/etc/passwd"));
        for (Path p : targets) {
            long ino = (Long) Files.getAttribute(p, "unix:ino");
            FileType type = Files.isDirectory(p) ? FileType.DIRECTORY : FileType.REGULAR;
            for (long gen : new long[] {0, 1, ino, -1L, 0x5eed_5eedL}) {
                FileHandle forged = FileHandle.of(vfs.volumeId(), ino, gen, type);
                if (forged.equals(vfs.root())) {
                    continue;
                }
                assertErrorIn(refused, () -> vfs.getattr(forged));
                if (type == FileType.DIRECTORY) {
                    assertErrorIn(refused, () -> vfs.lookup(ROOT, forged, "marker"));
                    assertErrorIn(refused, () -> vfs.readdir(ROOT, forged, 0, 0, 10, false));
                } else {
                    assertErrorIn(refused, () -> read(forged));
                }
            }
        }
    }

    @Test
    void aFileDeletedOnTheHostIsStale() throws Exception {
        Node f = vfs.create(ROOT, vfs.root(), "f", CreateMode.GUARDED, SetAttributes.create().mode(0644), 0);
        Node d = vfs.mkdir(ROOT, vfs.root(), "d", SetAttributes.create().mode(0755));
        Files.delete(root.resolve("f"));
        Files.delete(root.resolve("d"));
        assertError(VfsError.STALE, () -> vfs.getattr(f.handle()));
        assertError(VfsError.STALE, () -> read(f.handle()));
        assertError(VfsError.STALE, () -> vfs.getattr(d.handle()));
        assertError(VfsError.NOT_FOUND, () -> vfs.lookup(ROOT, vfs.root(), "f"));
    }

    @Test
    void aFileTheGatewayHasReadAndWrittenThenDeletedOnTheHostIsStale() throws Exception {
        Node f = vfs.create(ROOT, vfs.root(), "busy", CreateMode.GUARDED, SetAttributes.create().mode(0644), 0);
        write(f.handle(), "served before");
        assertEquals("served before", read(f.handle())); // the gateway now has the file open
        Files.delete(root.resolve("busy"));
        assertError(VfsError.STALE, () -> vfs.getattr(f.handle()));
        assertError(VfsError.STALE, () -> read(f.handle()));
        assertError(VfsError.STALE, () -> write(f.handle(), "lost?"));
    }

    @Test
    void aFileTheGatewayHasOpenShowsWhatTheHostChangedInItsAttributes() throws Exception {
        Node f = vfs.create(ROOT, vfs.root(), "open", CreateMode.GUARDED, SetAttributes.create().mode(0644), 0);
        write(f.handle(), "served");
        assertEquals("served", read(f.handle())); // its data descriptor is open: getattr takes one statx on it
        Files.writeString(root.resolve("open"), " and appended on the host", java.nio.file.StandardOpenOption.APPEND);
        Files.setPosixFilePermissions(root.resolve("open"), java.nio.file.attribute.PosixFilePermissions.fromString("rw-------"));
        FileAttributes a = vfs.getattr(f.handle());
        assertEquals("served and appended on the host".length(), a.size());
        assertEquals(0600, a.mode() & 07777);
        Files.createLink(root.resolve("second"), root.resolve("open"));
        assertEquals(2, vfs.getattr(f.handle()).nlink());
        Files.delete(root.resolve("second"));
        assertEquals(1, vfs.getattr(f.handle()).nlink());
        assertEquals("served and appended on the host", read(f.handle()));
    }

    @Test
    void aFileTheGatewayHasOpenThenReplacedOnTheHostServesTheNewFileOnly() throws Exception {
        Node f = vfs.create(ROOT, vfs.root(), "f", CreateMode.GUARDED, SetAttributes.create().mode(0644), 0);
        write(f.handle(), "old content");
        assertEquals("old content", read(f.handle()));
        Files.delete(root.resolve("f"));
        Files.writeString(root.resolve("f"), "new content");
        assertError(VfsError.STALE, () -> read(f.handle()));
        assertEquals("new content", read(vfs.lookup(ROOT, vfs.root(), "f").handle()));
    }

    private void write(FileHandle h, String text) throws VfsException {
        try (Arena arena = Arena.ofConfined()) {
            IoMemory data = IoMemory.lend(arena.allocateFrom(JAVA_BYTE, text.getBytes(StandardCharsets.UTF_8)));
            vfs.write(ROOT, h, 0, data, Stability.UNSTABLE);
        }
    }

    @Test
    void aFileReplacedOnTheHostIsANewFileAndTheOldHandleIsStale() throws Exception {
        Node f = vfs.create(ROOT, vfs.root(), "f", CreateMode.GUARDED, SetAttributes.create().mode(0644), 0);
        Files.delete(root.resolve("f"));
        Files.writeString(root.resolve("f"), "replacement"); // may well get the same inode number
        assertError(VfsError.STALE, () -> vfs.getattr(f.handle()));
        Node now = vfs.lookup(ROOT, vfs.root(), "f");
        assertNotEquals(f.handle(), now.handle());
        assertEquals("replacement", read(now.handle()));
    }

    @Test
    void concurrentHostRenamesAndSymlinkSwapsNeverExposeOutsideData() throws Exception {
        Path a = Files.createDirectories(root.resolve("a"));
        Path b = Files.createDirectories(a.resolve("b"));
        Path c = Files.createDirectories(b.resolve("c"));
        Files.writeString(c.resolve("data.txt"), INSIDE);
        FileHandle top = vfs.root();
        Node na = vfs.lookup(ROOT, top, "a");
        Node nb = vfs.lookup(ROOT, na.handle(), "b");
        Node nc = vfs.lookup(ROOT, nb.handle(), "c");
        Node nd = vfs.lookup(ROOT, nc.handle(), "data.txt");
        Set<Long> insideIds = Set.of(na.attributes().fileId(), nb.attributes().fileId(), nc.attributes().fileId(),
                nd.attributes().fileId());

        AtomicBoolean stop = new AtomicBoolean();
        ConcurrentLinkedQueue<String> violations = new ConcurrentLinkedQueue<>();
        AtomicLong insideReads = new AtomicLong();
        AtomicLong swaps = new AtomicLong();

        Thread swapper = Thread.ofPlatform().name("host-swapper").start(() -> {
            Path away = a.resolve("b.away");
            Path data = c.resolve("data.txt");
            Path dataAway = c.resolve("data.away");
            try {
                while (!stop.get()) {
                    // the directory b goes away and a link to the outside takes its name
                    Files.move(b, away, StandardCopyOption.ATOMIC_MOVE);
                    Files.createSymbolicLink(b, outside.resolve("b"));
                    Thread.onSpinWait();
                    Files.delete(b);
                    Files.createSymbolicLink(b, Path.of("../../outside/b"));
                    Thread.onSpinWait();
                    Files.delete(b);
                    Files.move(away, b, StandardCopyOption.ATOMIC_MOVE);
                    // the file itself is swapped for a link to the marker
                    Files.move(data, dataAway, StandardCopyOption.ATOMIC_MOVE);
                    Files.createSymbolicLink(data, outside.resolve("marker"));
                    Thread.onSpinWait();
                    Files.delete(data);
                    Files.move(dataAway, data, StandardCopyOption.ATOMIC_MOVE);
                    // and the whole chain is renamed
                    Files.move(a, root.resolve("a2"), StandardCopyOption.ATOMIC_MOVE);
                    Files.move(root.resolve("a2"), a, StandardCopyOption.ATOMIC_MOVE);
                    swaps.incrementAndGet();
                }
            } catch (Exception e) {
                violations.add("the swapper failed: " + e);
            }
        });

        List<Future<?>> readers = new ArrayList<>();
        try (ExecutorService ex = Executors.newVirtualThreadPerTaskExecutor()) {
            for (int r = 0; r < 4; r++) {
                int kind = r;
                readers.add(ex.submit(() -> {
                    while (!stop.get()) {
                        try {
                            Node found = switch (kind) {
                                case 0 -> {
                                    Node x = vfs.lookup(ROOT, top, "a");
                                    check(x, "a", insideIds, violations);
                                    x = vfs.lookup(ROOT, x.handle(), "b");
                                    check(x, "b", insideIds, violations);
                                    x = vfs.lookup(ROOT, x.handle(), "c");
                                    check(x, "c", insideIds, violations);
                                    x = vfs.lookup(ROOT, x.handle(), "data.txt");
                                    yield x;
                                }
                                case 1 -> vfs.resolve(ROOT, top, "a/b/c/data.txt", true);
                                case 2 -> vfs.lookup(ROOT, nc.handle(), "data.txt"); // through a handle held all along
                                default -> {
                                    Node x = vfs.lookup(ROOT, nb.handle(), "c");
                                    check(x, "c", insideIds, violations);
                                    yield vfs.resolve(ROOT, nb.handle(), "c/data.txt", false);
                                }
                            };
                            check(found, "data.txt", insideIds, violations);
                            String content = read(found.handle());
                            if (content.contains(SECRET)) {
                                violations.add("read the outside marker through " + kind);
                            } else if (content.equals(INSIDE)) {
                                insideReads.incrementAndGet();
                            }
                            String held = read(nd.handle());
                            if (held.contains(SECRET)) {
                                violations.add("the held handle of data.txt read the outside marker");
                            }
                        } catch (VfsException refused) {
                            // NOT_FOUND, STALE, ESCAPE, NOT_DIRECTORY... all fine while the tree moves
                        }
                    }
                    return null;
                }));
            }
            Thread.sleep(2000);
            stop.set(true);
            for (Future<?> f : readers) {
                f.get(30, TimeUnit.SECONDS);
            }
        } finally {
            stop.set(true);
            swapper.join(10_000);
        }
        assertTrue(violations.isEmpty(), () -> violations.size() + " violations, first: " + violations.peek());
        assertTrue(swaps.get() > 0, "the host swapped the tree");
        assertTrue(insideReads.get() > 0, "some reads succeeded between the swaps");
        assertEquals(SECRET, Files.readString(outside.resolve("marker")));
        assertEquals(INSIDE, read(vfs.resolve(ROOT, top, "a/b/c/data.txt", true).handle()));
    }

    /** A node found at a name is the inside object we know, or a link that was not followed. */
    private static void check(Node n, String name, Set<Long> insideIds, ConcurrentLinkedQueue<String> violations) {
        if (n.attributes().type() != FileType.SYMLINK && !insideIds.contains(n.attributes().fileId())) {
            violations.add(name + " resolved to an unknown " + n.attributes().type() + " with id "
                    + n.attributes().fileId() + " (outside the export?)");
        }
    }
}
