package io.rdmagate.vfs;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.rdmagate.vfs.lock.ByteRangeLock;
import io.rdmagate.vfs.lock.LockConflictException;
import io.rdmagate.vfs.lock.LockManager;
import io.rdmagate.vfs.lock.LockOwner;
import io.rdmagate.vfs.lock.LockSemantics;
import io.rdmagate.vfs.memory.IoMemory;
import io.rdmagate.vfs.memory.IoMemoryPool;
import io.rdmagate.vfs.memory.MemoryRegistrar;
import io.rdmagate.vfs.memory.PoolLimits;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.function.Executable;

/**
 * The behaviour every {@link VirtualFileSystem} backend owes its clients, as NFS and SMB users
 * would notice it. A backend's test extends this class and says how to open and restart it.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
public abstract class AbstractVfsConformanceTest {
    protected static final Caller ROOT = Caller.ROOT;
    protected static final Caller ALICE = new Caller(1000, 1000, new int[0]);
    /** In ALICE's group. */
    protected static final Caller BOB = new Caller(1001, 1001, new int[] {1000});
    /** In no group of the others. */
    protected static final Caller EVE = new Caller(1002, 1002, new int[0]);

    protected static final long GiB = 1L << 30;
    protected static final int KiB = 1024;

    protected VirtualFileSystem fs;
    protected IoMemoryPool pool;
    protected IoMemoryPool.Account account;

    /** A fresh, empty export with these options. */
    protected abstract VirtualFileSystem open(ExportOptions options) throws Exception;

    /** Closes {@code old} and opens the same data again, as a gateway restart would. */
    protected abstract VirtualFileSystem restart(VirtualFileSystem old) throws Exception;

    protected VirtualFileSystem open() throws Exception {
        return open(ExportOptions.DEFAULT);
    }

    @BeforeEach
    void openExport() throws Exception {
        fs = open();
        pool = new IoMemoryPool(PoolLimits.DEFAULT, MemoryRegistrar.NONE);
        account = pool.account("conformance");
    }

    @AfterEach
    void closeExport() {
        try {
            if (fs != null) {
                fs.close();
            }
        } finally {
            long leaked = pool.leasedBytes();
            pool.close();
            assertEquals(0, leaked, "I/O memory still leased at the end of the test");
        }
    }

    /** Replaces the export by a fresh one with other options. */
    protected void reopenWith(ExportOptions options) throws Exception {
        fs.close();
        fs = null;
        fs = open(options);
    }

    protected void restart() throws Exception {
        VirtualFileSystem old = fs;
        fs = null;
        fs = restart(old);
    }

    // ------------------------------------------------------------------ helpers

    protected FileHandle root() {
        return fs.root();
    }

    protected static SetAttributes mode(int m) {
        return SetAttributes.create().mode(m);
    }

    protected Node mkfile(String name) throws VfsException {
        return mkfile(ROOT, root(), name, 0644);
    }

    protected Node mkfile(FileHandle dir, String name) throws VfsException {
        return mkfile(ROOT, dir, name, 0644);
    }

    protected Node mkfile(Caller c, FileHandle dir, String name, int mode) throws VfsException {
        return fs.create(c, dir, name, CreateMode.GUARDED, mode(mode), 0);
    }

    protected Node mkfile(String name, byte[] content) throws VfsException {
        Node n = mkfile(name);
        write(n.handle(), 0, content);
        return n;
    }

    protected Node mkdir(String name) throws VfsException {
        return mkdir(ROOT, root(), name, 0755);
    }

    protected Node mkdir(FileHandle dir, String name) throws VfsException {
        return mkdir(ROOT, dir, name, 0755);
    }

    protected Node mkdir(Caller c, FileHandle dir, String name, int mode) throws VfsException {
        return fs.mkdir(c, dir, name, mode(mode));
    }

    protected Node symlink(FileHandle dir, String name, String target) throws VfsException {
        return fs.symlink(ROOT, dir, name, target, SetAttributes.NONE);
    }

    protected Node lookup(FileHandle dir, String name) throws VfsException {
        return fs.lookup(ROOT, dir, name);
    }

    protected FileAttributes attrs(FileHandle h) throws VfsException {
        return fs.getattr(h);
    }

    protected WriteResult write(FileHandle file, long offset, byte[] data) throws VfsException {
        return write(ROOT, file, offset, data, Stability.UNSTABLE);
    }

    /** Writes through leased pool memory, as a transport hands received payload to the vfs. */
    protected WriteResult write(Caller c, FileHandle file, long offset, byte[] data, Stability stability)
            throws VfsException {
        int max = pool.limits().maxBufferBytes();
        WriteResult last = null;
        int done = 0;
        do {
            int n = Math.min(max, data.length - done);
            IoMemory m = account.lease(Math.max(n, 1));
            try {
                if (n == 0) {
                    m.shrink(0);
                } else {
                    MemorySegment.copy(data, done, m.segment(), JAVA_BYTE, 0, n);
                }
                last = fs.write(c, file, offset + done, m, stability);
            } finally {
                m.release();
            }
            assertEquals(n, last.count(), "bytes written at " + (offset + done));
            done += n;
        } while (done < data.length);
        return last;
    }

    protected byte[] read(FileHandle file, long offset, int length) throws VfsException {
        return read(ROOT, file, offset, length);
    }

    protected byte[] read(Caller c, FileHandle file, long offset, int length) throws VfsException {
        IoMemory m = fs.read(c, file, offset, length, account);
        try {
            assertEquals(m.length(), m.segment().byteSize());
            assertTrue(m.length() <= length, "read returned more than asked");
            return m.segment().toArray(JAVA_BYTE);
        } finally {
            m.release();
        }
    }

    protected byte[] readAll(FileHandle file) throws VfsException {
        long size = attrs(file).size();
        byte[] out = new byte[Math.toIntExact(size)];
        int chunk = pool.limits().maxBufferBytes();
        for (int off = 0; off < out.length; off += chunk) {
            byte[] part = read(file, off, Math.min(chunk, out.length - off));
            assertEquals(Math.min(chunk, out.length - off), part.length, "short read inside the file at " + off);
            System.arraycopy(part, 0, out, off, part.length);
        }
        return out;
    }

    protected static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    protected static byte[] random(int n, long seed) {
        byte[] b = new byte[n];
        new Random(seed).nextBytes(b);
        return b;
    }

    protected static VfsError error(Executable e) {
        return assertThrows(VfsException.class, e).error();
    }

    protected static void assertError(VfsError expected, Executable e) {
        VfsException x = assertThrows(VfsException.class, e, () -> "expected " + expected);
        assertEquals(expected, x.error(), () -> "expected " + expected + " but got: " + x.getMessage());
    }

    protected static void assertError(VfsError expected, Executable e, String why) {
        VfsException x = assertThrows(VfsException.class, e, () -> why + ": expected " + expected);
        assertEquals(expected, x.error(), () -> why + ": expected " + expected + " but got: " + x.getMessage());
    }

    protected static void assertErrorIn(Set<VfsError> expected, Executable e) {
        VfsException x = assertThrows(VfsException.class, e, () -> "expected one of " + expected);
        assertTrue(expected.contains(x.error()), () -> "expected one of " + expected + " but got: " + x.getMessage());
    }

    /** Every entry of a directory, page by page. */
    protected List<DirectoryEntry> list(Caller c, FileHandle dir, int pageSize, boolean withAttributes)
            throws VfsException {
        List<DirectoryEntry> all = new ArrayList<>();
        long cookie = 0;
        long verifier = 0;
        for (int pages = 0; pages < 100_000; pages++) {
            DirectoryPage p = fs.readdir(c, dir, cookie, verifier, pageSize, withAttributes);
            assertTrue(p.entries().size() <= pageSize, "a page of " + p.entries().size() + " entries for " + pageSize);
            all.addAll(p.entries());
            if (p.eof()) {
                return all;
            }
            assertFalse(p.entries().isEmpty(), "an empty page that is not the end");
            cookie = p.entries().getLast().cookie();
            verifier = p.verifier();
        }
        return fail("the listing never ended");
    }

    protected List<DirectoryEntry> list(FileHandle dir) throws VfsException {
        return list(ROOT, dir, 1000, false);
    }

    protected List<String> names(FileHandle dir) throws VfsException {
        return list(dir).stream().map(DirectoryEntry::name).sorted().toList();
    }

    protected static List<String> sorted(String... names) {
        List<String> l = new ArrayList<>(List.of(names));
        Collections.sort(l);
        return l;
    }

    private static long nowNanos() {
        return System.currentTimeMillis() * 1_000_000L;
    }

    // ------------------------------------------------------------------ getattr, lookup

    @Test
    void theRootIsAnEmptyDirectoryOfThisVolumeAndItsOwnParent() throws Exception {
        FileAttributes a = attrs(root());
        assertEquals(FileType.DIRECTORY, a.type());
        assertEquals(FileType.DIRECTORY, root().type());
        assertEquals(root().fileId(), a.fileId());
        assertEquals(fs.volumeId(), a.volumeId());
        assertEquals(fs.volumeId(), root().volumeId());
        assertEquals(List.of(), names(root()), "a fresh export shows no entries (no internal state files)");
        assertEquals(root(), fs.parent(ROOT, root()).handle());
        assertEquals(ExportOptions.DEFAULT, fs.options());
    }

    @Test
    void lookupFindsWhatCreateMadeWithTheSameHandleAndAttributes() throws Exception {
        Node made = mkfile("a.txt", bytes("hello"));
        Node found = lookup(root(), "a.txt");
        assertEquals(made.handle(), found.handle());
        assertEquals(made.attributes().fileId(), found.attributes().fileId());
        assertEquals(FileType.REGULAR, found.attributes().type());
        assertEquals(5, found.attributes().size());
        assertEquals(attrs(made.handle()).fileId(), found.attributes().fileId());
    }

    @Test
    void lookupOfAMissingNameIsNotFound() throws Exception {
        assertError(VfsError.NOT_FOUND, () -> lookup(root(), "nothing-here"));
        Node d = mkdir("d");
        assertError(VfsError.NOT_FOUND, () -> lookup(d.handle(), "nothing-here"));
    }

    @Test
    void lookupInAFileIsNotDirectory() throws Exception {
        Node f = mkfile("plain");
        assertError(VfsError.NOT_DIRECTORY, () -> lookup(f.handle(), "x"));
    }

    @Test
    void lookupRefusesInvalidNames() throws Exception {
        mkdir("d");
        for (String bad : List.of("", ".", "..", "d/x", "/d", "a\0b", "bad\uD800")) {
            assertError(VfsError.INVALID, () -> lookup(root(), bad));
        }
    }

    @Test
    void lookupOfANameOver255BytesIsNameTooLong() throws Exception {
        assertError(VfsError.NAME_TOO_LONG, () -> lookup(root(), "a".repeat(256)));
        assertError(VfsError.NAME_TOO_LONG, () -> lookup(root(), "\u20ac".repeat(85) + "a"));
    }

    // ------------------------------------------------------------------ create, mkdir

    @Test
    void createMakesAnEmptyRegularFileOwnedByTheCallerWithTheRequestedMode() throws Exception {
        fs.setattr(ROOT, root(), mode(0755));
        Node shared = mkdir(ROOT, root(), "shared", 0777);
        fs.setattr(ROOT, shared.handle(), mode(0777));
        Node n = mkfile(ALICE, shared.handle(), "mine", 0640);
        FileAttributes a = attrs(n.handle());
        assertEquals(FileType.REGULAR, a.type());
        assertEquals(FileType.REGULAR, n.handle().type());
        assertEquals(fs.volumeId(), n.handle().volumeId());
        assertEquals(0, a.size());
        assertEquals(1, a.nlink());
        assertEquals(0640, a.mode());
        assertEquals(1000, a.uid());
        assertEquals(1000, a.gid());
        assertEquals(n.attributes().fileId(), a.fileId());
        assertEquals(0100640, a.fullMode());
    }

    @Test
    void createUncheckedOpensAnExistingFileAndAppliesOnlyTheGivenSize() throws Exception {
        Node f = mkfile("f", random(100, 1));
        Node again = fs.create(ROOT, root(), "f", CreateMode.UNCHECKED, SetAttributes.NONE, 0);
        assertEquals(f.handle(), again.handle());
        assertEquals(100, attrs(f.handle()).size(), "UNCHECKED without a size keeps the data");
        Node truncated = fs.create(ROOT, root(), "f", CreateMode.UNCHECKED, SetAttributes.create().size(10), 0);
        assertEquals(f.attributes().fileId(), truncated.attributes().fileId());
        assertEquals(10, attrs(f.handle()).size());
        assertArrayEquals(Arrays.copyOf(random(100, 1), 10), readAll(f.handle()));
        Node fresh = fs.create(ROOT, root(), "g", CreateMode.UNCHECKED, mode(0600), 0);
        assertEquals(0600, attrs(fresh.handle()).mode(), "UNCHECKED creates a missing file");
    }

    @Test
    void createGuardedOnAnExistingNameIsExists() throws Exception {
        mkfile("f", bytes("keep"));
        mkdir("d");
        assertError(VfsError.EXISTS, () -> mkfile("f"));
        assertError(VfsError.EXISTS, () -> mkfile("d"));
        assertArrayEquals(bytes("keep"), readAll(lookup(root(), "f").handle()));
    }

    @Test
    void exclusiveCreateRetransmittedWithTheSameVerifierFindsTheSameFile() throws Exception {
        long verifier = 0x1122_3344_5566_7788L;
        Node first = fs.create(ALICE, home(), "x", CreateMode.EXCLUSIVE, SetAttributes.NONE, verifier);
        Node retry = fs.create(ALICE, home(), "x", CreateMode.EXCLUSIVE, SetAttributes.NONE, verifier);
        assertEquals(first.handle(), retry.handle());
        assertError(VfsError.EXISTS,
                () -> fs.create(ALICE, home(), "x", CreateMode.EXCLUSIVE, SetAttributes.NONE, verifier + 1));
        mkfile(home(), "plain");
        assertError(VfsError.EXISTS,
                () -> fs.create(ROOT, home(), "plain", CreateMode.EXCLUSIVE, SetAttributes.NONE, verifier));
        // after an exclusive create the client sets the attributes it wanted, and uses the file
        fs.setattr(ALICE, first.handle(), mode(0600));
        write(ALICE, first.handle(), 0, bytes("data"), Stability.FILE_SYNC);
        assertArrayEquals(bytes("data"), readAll(first.handle()));
    }

    private FileHandle home;

    /** A directory owned by ALICE, 0755, under a root everyone may search. */
    protected FileHandle home() throws VfsException {
        if (home == null) {
            fs.setattr(ROOT, root(), mode(0755));
            home = mkdir(ROOT, root(), "alice", 0755).handle();
            fs.setattr(ROOT, home, SetAttributes.create().owner(1000).group(1000));
        }
        return home;
    }

    @Test
    void createInAFileIsNotDirectory() throws Exception {
        Node f = mkfile("f");
        assertError(VfsError.NOT_DIRECTORY, () -> mkfile(f.handle(), "x"));
        assertError(VfsError.NOT_DIRECTORY, () -> mkdir(f.handle(), "x"));
    }

    @Test
    void createAndMkdirRefuseInvalidAndOverlongNames() throws Exception {
        for (String bad : List.of("", ".", "..", "a/b", "a\0b")) {
            assertError(VfsError.INVALID, () -> mkfile(bad));
            assertError(VfsError.INVALID, () -> mkdir(bad));
            assertError(VfsError.INVALID, () -> symlink(root(), bad, "t"));
        }
        String tooLong = "x".repeat(256);
        assertError(VfsError.NAME_TOO_LONG, () -> mkfile(tooLong));
        assertError(VfsError.NAME_TOO_LONG, () -> mkdir(tooLong));
        assertError(VfsError.NAME_TOO_LONG, () -> symlink(root(), tooLong, "t"));
        assertEquals(List.of(), names(root()), "nothing was created");
    }

    @Test
    void mkdirMakesAnEmptyDirectoryWithTheRequestedModeUnderItsParent() throws Exception {
        Node d = mkdir(ROOT, root(), "d", 0750);
        Node sub = mkdir(d.handle(), "sub");
        FileAttributes a = attrs(d.handle());
        assertEquals(FileType.DIRECTORY, a.type());
        assertEquals(0750, a.mode());
        assertEquals(List.of(), names(sub.handle()));
        assertEquals(root(), fs.parent(ROOT, d.handle()).handle());
        assertEquals(d.handle(), fs.parent(ROOT, sub.handle()).handle());
    }

    @Test
    void mkdirOnAnExistingNameIsExists() throws Exception {
        mkdir("d");
        mkfile("f");
        assertError(VfsError.EXISTS, () -> mkdir("d"));
        assertError(VfsError.EXISTS, () -> mkdir("f"));
        assertEquals(FileType.REGULAR, lookup(root(), "f").attributes().type());
    }

    // ------------------------------------------------------------------ symlink, link

    @Test
    void symlinksStoreTheirTargetVerbatimAndAreNotFollowedByLookup() throws Exception {
        for (String target : List.of("target/path", "../up/../x", "/absolute/elsewhere", "\u540d\u524d/\uD83D\uDE00",
                "dangling")) {
            String name = "l" + Integer.toHexString(target.hashCode());
            Node l = symlink(root(), name, target);
            assertEquals(FileType.SYMLINK, l.attributes().type());
            assertEquals(target, fs.readlink(ROOT, l.handle()));
            Node found = lookup(root(), name);
            assertEquals(FileType.SYMLINK, found.attributes().type(), "lookup returns the link itself");
            assertEquals(l.handle(), found.handle());
            assertEquals(bytes(target).length, found.attributes().size(), "a link's size is its target's length");
        }
    }

    @Test
    void readlinkOfAFileOrDirectoryIsNotSymlink() throws Exception {
        Node f = mkfile("f");
        Node d = mkdir("d");
        assertError(VfsError.NOT_SYMLINK, () -> fs.readlink(ROOT, f.handle()));
        assertError(VfsError.NOT_SYMLINK, () -> fs.readlink(ROOT, d.handle()));
    }

    @Test
    void symlinkOnAnExistingNameIsExists() throws Exception {
        mkfile("f");
        assertError(VfsError.EXISTS, () -> symlink(root(), "f", "x"));
    }

    @Test
    void hardLinksShareDataAndCountLinks() throws Exception {
        Node f = mkfile("f", bytes("hello"));
        Node d = mkdir("d");
        Node g = fs.link(ROOT, f.handle(), d.handle(), "g");
        assertEquals(f.attributes().fileId(), g.attributes().fileId());
        assertEquals(2, attrs(f.handle()).nlink());
        assertEquals(2, attrs(g.handle()).nlink());
        assertArrayEquals(bytes("hello"), readAll(g.handle()));
        write(g.handle(), 5, bytes(" world"));
        assertArrayEquals(bytes("hello world"), readAll(lookup(root(), "f").handle()));
        fs.remove(ROOT, root(), "f");
        FileAttributes after = attrs(lookup(d.handle(), "g").handle());
        assertEquals(1, after.nlink());
        assertArrayEquals(bytes("hello world"), readAll(lookup(d.handle(), "g").handle()));
        assertEquals(1, attrs(f.handle()).nlink(), "the file lives on under its other name");
    }

    @Test
    void aFilesHandleStaysValidWhenTheNameItWasCreatedUnderIsRemoved() throws Exception {
        Node f = mkfile("original", bytes("linked data"));
        Node d = mkdir("d");
        fs.link(ROOT, f.handle(), d.handle(), "other");
        fs.remove(ROOT, root(), "original"); // no lookup in between: the client only holds the handle
        assertEquals(1, attrs(f.handle()).nlink());
        assertArrayEquals(bytes("linked data"), readAll(f.handle()));
        restart();
        assertArrayEquals(bytes("linked data"), readAll(f.handle()), "and after a restart");
    }

    @Test
    void aHardLinkToADirectoryIsIsDirectory() throws Exception {
        Node d = mkdir("d");
        assertError(VfsError.IS_DIRECTORY, () -> fs.link(ROOT, d.handle(), root(), "d2"));
    }

    @Test
    void aHardLinkOntoAnExistingNameIsExists() throws Exception {
        Node f = mkfile("f");
        mkfile("g");
        assertError(VfsError.EXISTS, () -> fs.link(ROOT, f.handle(), root(), "g"));
        assertEquals(1, attrs(f.handle()).nlink());
    }

    // ------------------------------------------------------------------ remove, rmdir

    @Test
    void removeDeletesTheNameAndStalesTheHandle() throws Exception {
        Node f = mkfile("f", bytes("x"));
        fs.remove(ROOT, root(), "f");
        assertError(VfsError.NOT_FOUND, () -> lookup(root(), "f"));
        assertEquals(List.of(), names(root()));
        assertError(VfsError.STALE, () -> attrs(f.handle()));
        assertError(VfsError.STALE, () -> read(f.handle(), 0, 1));
        assertError(VfsError.STALE, () -> write(f.handle(), 0, bytes("y")));
    }

    @Test
    void removeIfSameRemovesOnlyTheFileTheNameStillNames() throws Exception {
        Node first = mkfile("f", bytes("first"));
        fs.remove(ROOT, root(), "f");
        Node second = mkfile("f", bytes("second")); // another client's file under the same name
        assertError(VfsError.STALE, () -> fs.removeIfSame(ROOT, root(), "f", first.handle()));
        assertEquals(second.handle(), lookup(root(), "f").handle());
        assertArrayEquals(bytes("second"), read(second.handle(), 0, 100));
        fs.removeIfSame(ROOT, root(), "f", second.handle());
        assertError(VfsError.NOT_FOUND, () -> lookup(root(), "f"));

        Node d1 = mkdir("d");
        fs.rmdir(ROOT, root(), "d");
        Node d2 = mkdir("d");
        assertError(VfsError.STALE, () -> fs.removeIfSame(ROOT, root(), "d", d1.handle()));
        fs.removeIfSame(ROOT, root(), "d", d2.handle());
        assertEquals(List.of(), names(root()));
    }

    @Test
    void removeOfADirectoryIsIsDirectory() throws Exception {
        mkdir("d");
        assertError(VfsError.IS_DIRECTORY, () -> fs.remove(ROOT, root(), "d"));
        assertEquals(FileType.DIRECTORY, lookup(root(), "d").attributes().type());
    }

    @Test
    void removeOfAMissingNameIsNotFound() {
        assertError(VfsError.NOT_FOUND, () -> fs.remove(ROOT, root(), "ghost"));
    }

    @Test
    void removingASymlinkLeavesItsTargetAlone() throws Exception {
        Node f = mkfile("f", bytes("data"));
        symlink(root(), "l", "f");
        fs.remove(ROOT, root(), "l");
        assertEquals(List.of("f"), names(root()));
        assertArrayEquals(bytes("data"), readAll(f.handle()));
    }

    @Test
    void rmdirRemovesAnEmptyDirectoryAndStalesItsHandle() throws Exception {
        Node d = mkdir("d");
        fs.rmdir(ROOT, root(), "d");
        assertError(VfsError.NOT_FOUND, () -> lookup(root(), "d"));
        assertError(VfsError.STALE, () -> attrs(d.handle()));
    }

    @Test
    void rmdirOfANonEmptyDirectoryIsNotEmpty() throws Exception {
        Node a = mkdir("a");
        mkfile(a.handle(), "f");
        Node b = mkdir("b");
        mkdir(b.handle(), "sub");
        Node c = mkdir("c");
        symlink(c.handle(), "l", "nowhere");
        for (String name : List.of("a", "b", "c")) {
            assertError(VfsError.NOT_EMPTY, () -> fs.rmdir(ROOT, root(), name));
        }
        assertEquals(List.of("f"), names(a.handle()));
    }

    @Test
    void rmdirOfAFileIsNotDirectoryAndOfAMissingNameNotFound() throws Exception {
        mkfile("f");
        assertError(VfsError.NOT_DIRECTORY, () -> fs.rmdir(ROOT, root(), "f"));
        assertError(VfsError.NOT_FOUND, () -> fs.rmdir(ROOT, root(), "ghost"));
        assertError(VfsError.INVALID, () -> fs.rmdir(ROOT, root(), "."));
    }

    // ------------------------------------------------------------------ rename

    @Test
    void renameWithinADirectoryKeepsTheFileAndItsHandle() throws Exception {
        Node f = mkfile("a", bytes("content"));
        fs.rename(ROOT, root(), "a", root(), "b", false);
        assertEquals(List.of("b"), names(root()));
        assertError(VfsError.NOT_FOUND, () -> lookup(root(), "a"));
        Node b = lookup(root(), "b");
        assertEquals(f.handle(), b.handle(), "lookup by the new name gives the same handle");
        assertEquals(f.attributes().fileId(), attrs(f.handle()).fileId(), "the old handle still resolves");
        write(f.handle(), 7, bytes("!"));
        assertArrayEquals(bytes("content!"), readAll(b.handle()));
    }

    @Test
    void renameBetweenDirectoriesMovesTheSubtree() throws Exception {
        Node d1 = mkdir("d1");
        Node d2 = mkdir("d2");
        Node sub = mkdir(d1.handle(), "sub");
        Node f = mkfile(sub.handle(), "f");
        fs.rename(ROOT, d1.handle(), "sub", d2.handle(), "moved", false);
        assertEquals(List.of(), names(d1.handle()));
        assertEquals(List.of("moved"), names(d2.handle()));
        Node moved = lookup(d2.handle(), "moved");
        assertEquals(sub.handle(), moved.handle());
        assertEquals(f.handle(), lookup(moved.handle(), "f").handle());
        assertEquals(d2.handle(), fs.parent(ROOT, sub.handle()).handle(), "'..' of a moved directory is its new parent");
    }

    @Test
    void renameReplacesAnExistingFile() throws Exception {
        Node a = mkfile("a", bytes("AAA"));
        Node b = mkfile("b", bytes("B"));
        fs.rename(ROOT, root(), "a", root(), "b", true);
        assertEquals(List.of("b"), names(root()));
        assertEquals(a.handle(), lookup(root(), "b").handle());
        assertArrayEquals(bytes("AAA"), readAll(lookup(root(), "b").handle()));
        assertError(VfsError.STALE, () -> attrs(b.handle()));
    }

    @Test
    void renameReplacesAnEmptyDirectory() throws Exception {
        Node x = mkdir("x");
        mkfile(x.handle(), "inside");
        Node y = mkdir("y");
        fs.rename(ROOT, root(), "x", root(), "y", true);
        assertEquals(List.of("y"), names(root()));
        assertEquals(x.handle(), lookup(root(), "y").handle());
        assertEquals(List.of("inside"), names(x.handle()));
        assertError(VfsError.STALE, () -> attrs(y.handle()));
    }

    @Test
    void renameOntoANonEmptyDirectoryIsNotEmpty() throws Exception {
        mkdir("x");
        Node y = mkdir("y");
        mkfile(y.handle(), "keep");
        assertError(VfsError.NOT_EMPTY, () -> fs.rename(ROOT, root(), "x", root(), "y", true));
        assertEquals(List.of("keep"), names(y.handle()));
        assertEquals(sorted("x", "y"), names(root()));
    }

    @Test
    void renameOfAFileOntoADirectoryIsIsDirectory() throws Exception {
        mkfile("f");
        mkdir("d");
        assertError(VfsError.IS_DIRECTORY, () -> fs.rename(ROOT, root(), "f", root(), "d", true));
        assertEquals(sorted("d", "f"), names(root()));
    }

    @Test
    void renameOfADirectoryOntoAFileIsNotDirectory() throws Exception {
        mkfile("f", bytes("keep"));
        mkdir("d");
        assertError(VfsError.NOT_DIRECTORY, () -> fs.rename(ROOT, root(), "d", root(), "f", true));
        assertArrayEquals(bytes("keep"), readAll(lookup(root(), "f").handle()));
    }

    @Test
    void renameWithoutReplaceOntoAnExistingNameIsExists() throws Exception {
        mkfile("a", bytes("A"));
        mkfile("b", bytes("B"));
        assertError(VfsError.EXISTS, () -> fs.rename(ROOT, root(), "a", root(), "b", false));
        assertArrayEquals(bytes("A"), readAll(lookup(root(), "a").handle()));
        assertArrayEquals(bytes("B"), readAll(lookup(root(), "b").handle()));
    }

    @Test
    void renameOfADirectoryIntoItsOwnSubtreeIsInvalid() throws Exception {
        Node a = mkdir("a");
        Node b = mkdir(a.handle(), "b");
        assertError(VfsError.INVALID, () -> fs.rename(ROOT, root(), "a", b.handle(), "c", false));
        assertError(VfsError.INVALID, () -> fs.rename(ROOT, root(), "a", a.handle(), "c", false));
        assertEquals(List.of("a"), names(root()));
        assertEquals(List.of("b"), names(a.handle()));
    }

    @Test
    void renameOfAMissingNameIsNotFound() throws Exception {
        assertError(VfsError.NOT_FOUND, () -> fs.rename(ROOT, root(), "ghost", root(), "x", true));
    }

    @Test
    void renameOntoItselfChangesNothing() throws Exception {
        Node f = mkfile("f", bytes("same"));
        fs.rename(ROOT, root(), "f", root(), "f", true);
        assertEquals(List.of("f"), names(root()));
        assertEquals(f.handle(), lookup(root(), "f").handle());
        assertArrayEquals(bytes("same"), readAll(f.handle()));
    }

    @Test
    void renameRefusesInvalidTargetNames() throws Exception {
        mkfile("f");
        assertError(VfsError.INVALID, () -> fs.rename(ROOT, root(), "f", root(), "a/b", true));
        assertError(VfsError.INVALID, () -> fs.rename(ROOT, root(), "f", root(), "..", true));
        assertError(VfsError.NAME_TOO_LONG, () -> fs.rename(ROOT, root(), "f", root(), "n".repeat(256), true));
        assertEquals(List.of("f"), names(root()));
    }

    // ------------------------------------------------------------------ readdir

    @Test
    void readdirListsEveryEntryOnceWithExactNamesAndIds() throws Exception {
        Map<String, Long> expected = new HashMap<>();
        for (int i = 0; i < 20; i++) {
            expected.put("file-" + i, mkfile("file-" + i).attributes().fileId());
        }
        expected.put("dir", mkdir("dir").attributes().fileId());
        expected.put("link", symlink(root(), "link", "file-0").attributes().fileId());
        expected.put("caf\u00e9 \uD83D\uDE00", mkfile("caf\u00e9 \uD83D\uDE00").attributes().fileId());
        List<DirectoryEntry> entries = list(root());
        Map<String, Long> seen = new HashMap<>();
        Set<Long> cookies = new HashSet<>();
        for (DirectoryEntry e : entries) {
            assertNull(seen.put(e.name(), e.fileId()), "listed twice: " + e.name());
            assertTrue(e.cookie() >= VirtualFileSystem.FIRST_COOKIE, "cookie " + e.cookie() + " of " + e.name());
            assertTrue(cookies.add(e.cookie()), "two entries share cookie " + e.cookie());
            assertNull(e.node(), "no attributes were asked for");
        }
        assertEquals(expected, seen);
    }

    @Test
    void readdirOfAnEmptyDirectoryIsEmptyAndAtTheEnd() throws Exception {
        Node d = mkdir("d");
        DirectoryPage p = fs.readdir(ROOT, d.handle(), 0, 0, 100, true);
        assertEquals(List.of(), p.entries());
        assertTrue(p.eof());
    }

    @Test
    void smallPagesTogetherListExactlyTheDirectory() throws Exception {
        Set<String> expected = new TreeSet<>();
        for (int i = 0; i < 100; i++) {
            String name = "entry-" + i;
            if (i % 10 == 0) {
                mkdir(name);
            } else {
                mkfile(name);
            }
            expected.add(name);
        }
        for (int pageSize : new int[] {1, 7, 99, 100, 101}) {
            List<DirectoryEntry> all = list(ROOT, root(), pageSize, false);
            List<String> names = all.stream().map(DirectoryEntry::name).toList();
            assertEquals(expected.size(), names.size(), "entries listed with pages of " + pageSize);
            assertEquals(expected, new TreeSet<>(names));
        }
    }

    @Test
    void cookiesResumeCorrectlyWhileEntriesComeAndGo() throws Exception {
        Set<String> keep = new TreeSet<>();
        for (int i = 0; i < 60; i++) {
            mkfile("keep-" + i);
            keep.add("keep-" + i);
        }
        List<String> churn = new ArrayList<>();
        for (int i = 0; i < 30; i++) {
            mkfile("churn-" + i);
            churn.add("churn-" + i);
        }
        List<String> seen = new ArrayList<>();
        long cookie = 0;
        long verifier = 0;
        int added = 0;
        Random rnd = new Random(5);
        for (int pages = 0; ; pages++) {
            assertTrue(pages < 1000, "the listing never ended");
            DirectoryPage p = fs.readdir(ROOT, root(), cookie, verifier, 8, false);
            p.entries().forEach(e -> seen.add(e.name()));
            if (p.eof()) {
                break;
            }
            cookie = p.entries().getLast().cookie();
            verifier = p.verifier();
            // between pages: other clients add and remove entries, including the last one returned
            for (int k = 0; k < 3; k++) {
                mkfile("new-" + added++);
            }
            for (int k = 0; k < 2 && !churn.isEmpty(); k++) {
                fs.remove(ROOT, root(), churn.remove(rnd.nextInt(churn.size())));
            }
            String last = p.entries().getLast().name();
            if (last.startsWith("churn-") && churn.remove(last)) {
                fs.remove(ROOT, root(), last);
            }
        }
        for (String k : keep) {
            assertEquals(1, Collections.frequency(seen, k), k + " was present throughout: listed once");
        }
        assertEquals(seen.size(), new HashSet<>(seen).size(), "no name listed twice: " + seen);
    }

    @Test
    void aListingResumesAfterItsLastEntryWasRemoved() throws Exception {
        for (int i = 0; i < 20; i++) {
            mkfile("f" + i);
        }
        DirectoryPage first = fs.readdir(ROOT, root(), 0, 0, 5, false);
        assertEquals(5, first.entries().size());
        DirectoryEntry last = first.entries().getLast();
        fs.remove(ROOT, root(), last.name());
        List<String> rest = new ArrayList<>();
        long cookie = last.cookie();
        long verifier = first.verifier();
        while (true) {
            DirectoryPage p = fs.readdir(ROOT, root(), cookie, verifier, 5, false);
            p.entries().forEach(e -> rest.add(e.name()));
            if (p.eof()) {
                break;
            }
            cookie = p.entries().getLast().cookie();
            verifier = p.verifier();
        }
        Set<String> all = new TreeSet<>(rest);
        first.entries().forEach(e -> all.add(e.name()));
        assertEquals(20, all.size());
        assertEquals(15, rest.size(), "the second part lists the 15 entries not yet seen, each once");
    }

    @Test
    void cookiesStayValidAcrossARestart() throws Exception {
        Set<String> expected = new TreeSet<>();
        for (int i = 0; i < 30; i++) {
            mkfile("n" + i);
            expected.add("n" + i);
        }
        DirectoryPage first = fs.readdir(ROOT, root(), 0, 0, 10, false);
        restart();
        List<String> names = new ArrayList<>();
        first.entries().forEach(e -> names.add(e.name()));
        long cookie = first.entries().getLast().cookie();
        long verifier = first.verifier();
        while (true) {
            DirectoryPage p = fs.readdir(ROOT, root(), cookie, verifier, 10, false);
            p.entries().forEach(e -> names.add(e.name()));
            if (p.eof()) {
                break;
            }
            cookie = p.entries().getLast().cookie();
            verifier = p.verifier();
        }
        assertEquals(30, names.size());
        assertEquals(expected, new TreeSet<>(names));
    }

    @Test
    void aForeignVerifierIsBadCookieAndZeroIsAccepted() throws Exception {
        for (int i = 0; i < 10; i++) {
            mkfile("f" + i);
        }
        DirectoryPage first = fs.readdir(ROOT, root(), 0, 0, 3, false);
        long cookie = first.entries().getLast().cookie();
        long bad = first.verifier() + 1 == 0 ? first.verifier() + 2 : first.verifier() + 1;
        assertError(VfsError.BAD_COOKIE, () -> fs.readdir(ROOT, root(), cookie, bad, 3, false));
        DirectoryPage next = fs.readdir(ROOT, root(), cookie, 0, 100, false);
        assertEquals(7, next.entries().size(), "verifier 0 is accepted with a cookie");
        assertTrue(next.eof());
    }

    @Test
    void readdirWithAttributesGivesEachEntrysNode() throws Exception {
        mkfile("f", bytes("12345"));
        mkdir("d");
        symlink(root(), "l", "f");
        for (DirectoryEntry e : list(ROOT, root(), 2, true)) {
            assertNotNull(e.node(), e.name());
            Node byName = lookup(root(), e.name());
            assertEquals(byName.handle(), e.node().handle(), e.name());
            assertEquals(e.fileId(), e.node().attributes().fileId());
            assertEquals(byName.attributes().type(), e.node().attributes().type());
            assertEquals(byName.attributes().size(), e.node().attributes().size());
        }
    }

    @Test
    void readdirOfAFileIsNotDirectory() throws Exception {
        Node f = mkfile("f");
        assertError(VfsError.NOT_DIRECTORY, () -> fs.readdir(ROOT, f.handle(), 0, 0, 10, false));
    }

    // ------------------------------------------------------------------ setattr

    @Test
    void setattrChangesTheModeAndNothingElse() throws Exception {
        Node f = mkfile("f", bytes("abc"));
        FileAttributes a = fs.setattr(ROOT, f.handle(), mode(0640));
        assertEquals(0640, a.mode());
        assertEquals(0640, attrs(f.handle()).mode());
        assertEquals(3, attrs(f.handle()).size());
        assertEquals(FileType.REGULAR, attrs(f.handle()).type());
        fs.setattr(ROOT, f.handle(), mode(0));
        assertEquals(0, attrs(f.handle()).mode());
        Node d = mkdir("d");
        fs.setattr(ROOT, d.handle(), mode(01777));
        assertEquals(01777, attrs(d.handle()).mode());
    }

    @Test
    void setattrTruncatesAndExtendsWithZeroes() throws Exception {
        Node f = mkfile("f", random(100, 2));
        fs.setattr(ROOT, f.handle(), SetAttributes.create().size(10));
        assertEquals(10, attrs(f.handle()).size());
        assertArrayEquals(Arrays.copyOf(random(100, 2), 10), readAll(f.handle()));
        fs.setattr(ROOT, f.handle(), SetAttributes.create().size(100_000));
        assertEquals(100_000, attrs(f.handle()).size());
        byte[] all = readAll(f.handle());
        assertArrayEquals(Arrays.copyOf(random(100, 2), 10), Arrays.copyOf(all, 10));
        assertArrayEquals(new byte[100_000 - 10], Arrays.copyOfRange(all, 10, 100_000),
                "bytes cut off by a truncate do not come back when the file grows again");
    }

    @Test
    void setattrSetsExplicitTimesToTheNanosecond() throws Exception {
        Node f = mkfile("f");
        long atime = 1_500_000_000_123_456_789L;
        long mtime = 1_400_000_000_987_654_321L;
        fs.setattr(ROOT, f.handle(), SetAttributes.create().atime(atime).mtime(mtime));
        FileAttributes a = attrs(f.handle());
        assertEquals(atime, a.atimeNanos());
        assertEquals(mtime, a.mtimeNanos());
    }

    @Test
    void setattrWithServerTimeMeansNow() throws Exception {
        Node f = mkfile("f");
        fs.setattr(ROOT, f.handle(), SetAttributes.create().atime(1_000_000_000L).mtime(1_000_000_000L));
        long before = nowNanos();
        fs.setattr(ROOT, f.handle(),
                SetAttributes.create().atime(SetAttributes.SERVER_TIME).mtime(SetAttributes.SERVER_TIME));
        long after = nowNanos();
        FileAttributes a = attrs(f.handle());
        long slack = Duration.ofSeconds(2).toNanos();
        assertTrue(a.mtimeNanos() >= before - slack && a.mtimeNanos() <= after + slack, "mtime " + a.mtimeNanos());
        assertTrue(a.atimeNanos() >= before - slack && a.atimeNanos() <= after + slack, "atime " + a.atimeNanos());
    }

    @Test
    void theSuperuserChangesOwnerAndGroup() throws Exception {
        Node f = mkfile("f");
        fs.setattr(ROOT, f.handle(), SetAttributes.create().owner(1001).group(1002));
        FileAttributes a = attrs(f.handle());
        assertEquals(1001, a.uid());
        assertEquals(1002, a.gid());
    }

    @Test
    void onlyTheOwnerChangesTheMode() throws Exception {
        Node f = mkfile(ALICE, home(), "f", 0666);
        assertError(VfsError.NOT_OWNER, () -> fs.setattr(BOB, f.handle(), mode(0777)));
        assertError(VfsError.NOT_OWNER, () -> fs.setattr(EVE, f.handle(), mode(0777)));
        assertEquals(0666, attrs(f.handle()).mode());
        fs.setattr(ALICE, f.handle(), mode(0600));
        assertEquals(0600, attrs(f.handle()).mode());
    }

    @Test
    void onlyTheSuperuserGivesFilesAway() throws Exception {
        Node f = mkfile(ALICE, home(), "f", 0644);
        assertError(VfsError.NOT_OWNER, () -> fs.setattr(ALICE, f.handle(), SetAttributes.create().owner(1001)));
        assertError(VfsError.NOT_OWNER, () -> fs.setattr(ALICE, f.handle(), SetAttributes.create().group(1002)),
                "the owner may not change the group to one she is not in");
        assertEquals(1000, attrs(f.handle()).uid());
        assertEquals(1000, attrs(f.handle()).gid());
        Node g = mkfile(home(), "g");
        fs.setattr(ROOT, g.handle(), SetAttributes.create().owner(1001).group(1001));
        fs.setattr(BOB, g.handle(), SetAttributes.create().group(1000));
        assertEquals(1000, attrs(g.handle()).gid(), "an owner may give the file to a group he is in");
    }

    @Test
    void theSizeOfADirectoryCannotBeSet() throws Exception {
        Node d = mkdir(ALICE, home(), "d", 0755);
        assertError(VfsError.IS_DIRECTORY, () -> fs.setattr(ROOT, d.handle(), SetAttributes.create().size(0)));
        assertError(VfsError.IS_DIRECTORY, () -> fs.setattr(ALICE, d.handle(), SetAttributes.create().size(0)));
        assertEquals(FileType.DIRECTORY, attrs(d.handle()).type());
    }

    @Test
    void dosAttributesAreKeptAndReadOnlyFollowsTheMode() throws Exception {
        Node f = mkfile("f");
        fs.setattr(ROOT, f.handle(), SetAttributes.create().dosAttributes(DosAttributes.HIDDEN | DosAttributes.ARCHIVE));
        int dos = attrs(f.handle()).dosAttributes();
        assertEquals(DosAttributes.HIDDEN | DosAttributes.ARCHIVE, dos & (DosAttributes.HIDDEN | DosAttributes.ARCHIVE));
        fs.setattr(ROOT, f.handle(), mode(0444));
        assertTrue((attrs(f.handle()).dosAttributes() & DosAttributes.READONLY) != 0);
        assertTrue((attrs(mkdir("d").handle()).dosAttributes() & DosAttributes.DIRECTORY) != 0);
    }

    @Test
    void aDirectoryKeepsReadOnlyAsAnAttributeWithoutLosingItsWriteBits() throws Exception {
        Node d = mkdir("d");
        int mode = attrs(d.handle()).mode();
        fs.setattr(ROOT, d.handle(), SetAttributes.create().dosAttributes(DosAttributes.READONLY | DosAttributes.TEMPORARY));
        FileAttributes a = attrs(d.handle());
        assertEquals(DosAttributes.READONLY, a.dosAttributes() & DosAttributes.READONLY);
        assertEquals(mode, a.mode(), "on a directory READONLY protects nothing, as on Windows");
        restart();
        assertEquals(DosAttributes.READONLY, attrs(d.handle()).dosAttributes() & DosAttributes.READONLY);
    }

    // ------------------------------------------------------------------ security descriptors

    @Test
    void aSecurityDescriptorIsKeptWhileTheModeAndOwnersItWasStoredWithStay() throws Exception {
        Node f = mkfile("f");
        byte[] sd = bytes("descriptor bytes");
        assertNull(fs.securityDescriptor(f.handle()), "none until one is stored");
        fs.securityDescriptor(ROOT, f.handle(), sd, mode(0640));
        assertEquals(0640, attrs(f.handle()).mode() & 07777, "the POSIX picture is set with it");
        assertArrayEquals(sd, fs.securityDescriptor(f.handle()));
        restart();
        assertArrayEquals(sd, fs.securityDescriptor(f.handle()), "kept across a restart");

        fs.setattr(ROOT, f.handle(), SetAttributes.create().dosAttributes(DosAttributes.READONLY));
        assertArrayEquals(sd, fs.securityDescriptor(f.handle()), "the READONLY attribute's write bits leave it describing the file");
        fs.setattr(ROOT, f.handle(), SetAttributes.create().dosAttributes(0));
        assertArrayEquals(sd, fs.securityDescriptor(f.handle()));

        fs.setattr(ROOT, f.handle(), mode(0604));
        assertNull(fs.securityDescriptor(f.handle()), "a chmod since says more recently who may do what");
        fs.securityDescriptor(ROOT, f.handle(), sd, SetAttributes.create());
        fs.setattr(ROOT, f.handle(), SetAttributes.create().owner(1000));
        assertNull(fs.securityDescriptor(f.handle()), "and so does a chown");

        Node d = mkdir("d");
        fs.securityDescriptor(ROOT, d.handle(), sd, SetAttributes.create());
        assertArrayEquals(sd, fs.securityDescriptor(d.handle()));
        fs.securityDescriptor(ROOT, d.handle(), null, SetAttributes.create());
        assertNull(fs.securityDescriptor(d.handle()));
    }

    @Test
    void theStoreOfDescriptorsIsOutOfReachOfTheXattrOperations() throws Exception {
        Node f = mkfile("f");
        fs.securityDescriptor(ROOT, f.handle(), bytes("sd"), SetAttributes.create());
        fs.setxattr(ROOT, f.handle(), "colour", bytes("red"), XattrMode.EITHER);
        assertEquals(List.of("colour"), fs.listxattr(ROOT, f.handle()));
        assertError(VfsError.ACCESS, () -> fs.getxattr(ROOT, f.handle(), "rdmagate.ntacl"));
        assertError(VfsError.ACCESS, () -> fs.setxattr(ROOT, f.handle(), "rdmagate.ntacl", bytes("forged"), XattrMode.EITHER));
        assertError(VfsError.ACCESS, () -> fs.setxattr(ROOT, f.handle(), "RDMAGATE.other", bytes("x"), XattrMode.EITHER));
        assertError(VfsError.ACCESS, () -> fs.removexattr(ROOT, f.handle(), "rdmagate.ntacl"));
        assertArrayEquals(bytes("sd"), fs.securityDescriptor(f.handle()));
    }

    @Test
    void aSecurityDescriptorsPosixPictureIsCheckedAsASetattrIs() throws Exception {
        Node f = mkfile("f");
        fs.setattr(ROOT, f.handle(), SetAttributes.create().owner(ALICE.uid()).group(ALICE.gid()).mode(0644));
        assertError(VfsError.NOT_OWNER, () -> fs.securityDescriptor(BOB, f.handle(), bytes("sd"), mode(0600)));
        assertNull(fs.securityDescriptor(f.handle()));
        assertEquals(0644, attrs(f.handle()).mode() & 07777);
        fs.securityDescriptor(ALICE, f.handle(), bytes("sd"), mode(0600));
        assertArrayEquals(bytes("sd"), fs.securityDescriptor(f.handle()));
    }

    // ------------------------------------------------------------------ times

    @Test
    void writingAdvancesMtimeCtimeAndTheChangeId() throws Exception {
        Node f = mkfile("f", bytes("x"));
        fs.setattr(ROOT, f.handle(), SetAttributes.create().mtime(1_000_000_000_000_000_000L));
        FileAttributes before = attrs(f.handle());
        Thread.sleep(50);
        long now = nowNanos();
        WriteResult w = write(f.handle(), 1, bytes("yz"));
        FileAttributes after = attrs(f.handle());
        assertTrue(after.mtimeNanos() > before.mtimeNanos(), "mtime moves on write");
        assertTrue(Math.abs(after.mtimeNanos() - now) < Duration.ofSeconds(5).toNanos(), "mtime is about now");
        assertTrue(after.ctimeNanos() > before.ctimeNanos(), "ctime moves on write");
        assertNotEquals(before.changeId(), after.changeId());
        assertEquals(3, w.after().size());
        assertEquals(after.mtimeNanos(), w.after().mtimeNanos());
    }

    @Test
    void changingAttributesAdvancesCtimeAndTheChangeId() throws Exception {
        Node f = mkfile("f");
        FileAttributes before = attrs(f.handle());
        Thread.sleep(50);
        fs.setattr(ROOT, f.handle(), mode(0600));
        FileAttributes after = attrs(f.handle());
        assertTrue(after.ctimeNanos() > before.ctimeNanos());
        assertNotEquals(before.changeId(), after.changeId());
    }

    @Test
    void addingAnEntryAdvancesTheDirectorysMtime() throws Exception {
        Node d = mkdir("d");
        fs.setattr(ROOT, d.handle(), SetAttributes.create().mtime(1_000_000_000_000_000_000L));
        mkfile(d.handle(), "f");
        assertTrue(attrs(d.handle()).mtimeNanos() > 1_000_000_000_000_000_000L);
    }

    // ------------------------------------------------------------------ statfs

    @Test
    void statfsIsSane() throws Exception {
        FsStat s = fs.statfs(root());
        assertTrue(s.totalBytes() > 0);
        assertTrue(s.freeBytes() >= 0 && s.freeBytes() <= s.totalBytes());
        assertTrue(s.availableBytes() >= 0 && s.availableBytes() <= s.totalBytes());
        assertTrue(s.freeFiles() <= s.totalFiles());
        assertTrue(s.blockSize() > 0);
        assertEquals(VirtualFileSystem.MAX_NAME_BYTES, s.maxNameBytes());
        assertTrue(s.maxFileSize() > 5 * GiB, "files beyond 5 GiB are possible");
        Node f = mkfile("f");
        assertEquals(s.totalBytes(), fs.statfs(f.handle()).totalBytes(), "one volume, whichever handle");
    }

    // ------------------------------------------------------------------ read, write, commit

    @Test
    void bytesWrittenInPiecesReadBackExactly() throws Exception {
        Node f = mkfile("f");
        byte[] content = random(300_001, 3);
        List<int[]> pieces = new ArrayList<>();
        Random rnd = new Random(4);
        for (int off = 0; off < content.length; ) {
            int n = Math.min(content.length - off, 1 + rnd.nextInt(40_000));
            pieces.add(new int[] {off, n});
            off += n;
        }
        Collections.shuffle(pieces, rnd);
        for (int[] p : pieces) {
            write(f.handle(), p[0], Arrays.copyOfRange(content, p[0], p[0] + p[1]));
        }
        assertEquals(content.length, attrs(f.handle()).size());
        assertArrayEquals(content, readAll(f.handle()));
        for (int i = 0; i < 50; i++) {
            int off = rnd.nextInt(content.length);
            int len = 1 + rnd.nextInt(70_000);
            int expect = Math.min(len, content.length - off);
            assertArrayEquals(Arrays.copyOfRange(content, off, off + expect), read(f.handle(), off, len),
                    "read of " + len + " at " + off);
        }
    }

    @Test
    void readingAtOrPastTheEndReturnsNoBytesAndAtTheEndAShortRead() throws Exception {
        byte[] content = random(1000, 5);
        Node f = mkfile("f", content);
        assertEquals(0, read(f.handle(), 1000, 10).length);
        assertEquals(0, read(f.handle(), 1_000_000, 10).length);
        assertEquals(0, read(f.handle(), 10 * GiB, 10).length);
        assertArrayEquals(Arrays.copyOfRange(content, 990, 1000), read(f.handle(), 990, 100));
        assertEquals(0, read(mkfile("empty").handle(), 0, 4096).length);
    }

    @Test
    void writingPastTheEndLeavesAZeroFilledHole() throws Exception {
        Node f = mkfile("f", bytes("head"));
        WriteResult w = write(f.handle(), 10_000, bytes("tail"));
        assertEquals(10_004, w.after().size());
        byte[] all = readAll(f.handle());
        assertArrayEquals(bytes("head"), Arrays.copyOf(all, 4));
        assertArrayEquals(new byte[10_000 - 4], Arrays.copyOfRange(all, 4, 10_000));
        assertArrayEquals(bytes("tail"), Arrays.copyOfRange(all, 10_000, 10_004));
    }

    @Test
    void writesReachAtLeastTheStabilityAsked() throws Exception {
        Node f = mkfile("f");
        long offset = 0;
        for (Stability s : Stability.values()) {
            byte[] data = random(5000, s.ordinal());
            WriteResult w = write(ROOT, f.handle(), offset, data, s);
            assertTrue(w.committed().compareTo(s) >= 0, s + " reported as " + w.committed());
            assertEquals(offset + 5000, w.after().size());
            offset += 5000;
        }
        fs.commit(f.handle());
        assertEquals(15_000, attrs(f.handle()).size());
    }

    @Test
    void commitOfARemovedFileIsStale() throws Exception {
        Node f = mkfile("f", bytes("x"));
        fs.commit(f.handle());
        fs.remove(ROOT, root(), "f");
        assertError(VfsError.STALE, () -> fs.commit(f.handle()));
    }

    @Test
    void commitOfADirectoryFlushesItsEntriesAndOfARemovedOneIsStale() throws Exception {
        Node d = fs.mkdir(ROOT, root(), "d", SetAttributes.NONE);
        fs.create(ROOT, d.handle(), "new", CreateMode.UNCHECKED, SetAttributes.NONE, 0);
        fs.commit(d.handle()); // what an NFS create, remove or rename waits for on a sync export
        fs.commit(root());
        fs.remove(ROOT, d.handle(), "new");
        fs.rmdir(ROOT, root(), "d");
        assertError(VfsError.STALE, () -> fs.commit(d.handle()));
    }

    @Test
    void writingFromLentMemoryWorksLikePooledMemory() throws Exception {
        Node f = mkfile("f");
        byte[] data = random(10_000, 6);
        try (Arena arena = Arena.ofConfined()) {
            IoMemory lent = IoMemory.lend(arena.allocateFrom(JAVA_BYTE, data));
            WriteResult w = fs.write(ROOT, f.handle(), 0, lent, Stability.FILE_SYNC);
            assertEquals(10_000, w.count());
        }
        assertArrayEquals(data, readAll(f.handle()));
    }

    @Test
    void aGatheringWriteLandsItsPartsBackToBack() throws Exception {
        Node f = mkfile("f", bytes("0123456789"));
        byte[] data = random(3 * 70_000, 7);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment all = arena.allocateFrom(JAVA_BYTE, data);
            // unequal parts, one of them empty, as a TCP receive path delivers them
            MemorySegment[] parts = {all.asSlice(0, 1), all.asSlice(1, 0), all.asSlice(1, 69_999),
                all.asSlice(70_000, 140_000)};
            WriteResult w = fs.write(ROOT, f.handle(), 5, parts, Stability.FILE_SYNC);
            assertEquals(data.length, w.count());
            assertEquals(5 + data.length, w.after().size());
        }
        byte[] back = readAll(f.handle());
        assertArrayEquals(bytes("01234"), Arrays.copyOf(back, 5));
        assertArrayEquals(data, Arrays.copyOfRange(back, 5, back.length));
    }

    @Test
    void readAndWriteOfADirectoryAreIsDirectory() throws Exception {
        Node d = mkdir("d");
        assertError(VfsError.IS_DIRECTORY, () -> read(d.handle(), 0, 10));
        assertError(VfsError.IS_DIRECTORY, () -> write(d.handle(), 0, bytes("x")));
    }

    @Test
    void theWriteVerifierIsStableUntilARestartAndChangesWithIt() throws Exception {
        long v = fs.writeVerifier();
        mkfile("f", bytes("x"));
        assertEquals(v, fs.writeVerifier());
        restart();
        assertNotEquals(v, fs.writeVerifier(), "clients must learn that unstable writes may be lost");
    }

    @Test
    void readsFailWithNoResourcesWhenTheClientsMemoryIsSpentAndLeakNothing() throws Exception {
        Node f = mkfile("f", random(2 << 20, 7));
        try (IoMemoryPool small = new IoMemoryPool(
                new PoolLimits(4L << 20, 1L << 20, 1 << 20, 4096, 1 << 20, Duration.ofMillis(100)),
                MemoryRegistrar.NONE)) {
            IoMemoryPool.Account client = small.account("client");
            IoMemory held = fs.read(ROOT, f.handle(), 0, 1 << 20, client);
            assertEquals(1 << 20, held.length());
            assertError(VfsError.NO_RESOURCES, () -> fs.read(ROOT, f.handle(), 1 << 20, 4096, client));
            assertEquals(1 << 20, client.leasedBytes(), "the failed read holds nothing");
            held.release();
            IoMemory again = fs.read(ROOT, f.handle(), 1 << 20, 4096, client);
            assertArrayEquals(Arrays.copyOfRange(random(2 << 20, 7), 1 << 20, (1 << 20) + 4096),
                    again.segment().toArray(JAVA_BYTE));
            again.release();
            IoMemory atEnd = fs.read(ROOT, f.handle(), 2 << 20, 4096, client);
            assertEquals(0, atEnd.length());
            atEnd.release();
            fs.remove(ROOT, root(), "f");
            assertError(VfsError.STALE, () -> fs.read(ROOT, f.handle(), 0, 4096, client));
            assertEquals(0, client.leasedBytes());
            assertEquals(0, small.leasedBytes(), "every lease came back, failures included");
        }
    }

    @Test
    void aDefaultExportNeverMapsAndAMappingHoldsExactlyTheFilesBytes() throws Exception {
        byte[] content = random(100_000, 9);
        Node f = mkfile("f", content);
        assertNull(fs.map(ROOT, f.handle(), 0, 65536), "mapping is off unless the export enables it");
        reopenWith(new ExportOptions(false, false, 8192));
        Node g = mkfile("g", content);
        assertNull(fs.map(ROOT, g.handle(), 0, 4096), "a region below the threshold is read, not mapped");
        IoMemory m = fs.map(ROOT, g.handle(), 12_345, 65_536);
        if (m != null) { // a backend without files to map may always decline
            try {
                assertEquals(IoMemory.Kind.MAPPED, m.kind());
                assertArrayEquals(Arrays.copyOfRange(content, 12_345, 12_345 + 65_536), m.segment().toArray(JAVA_BYTE));
            } finally {
                m.release();
            }
            IoMemory tail = fs.map(ROOT, g.handle(), 90_000, 65_536);
            try {
                assertEquals(10_000, tail.length(), "a mapping is clipped at the end of the file");
                assertArrayEquals(Arrays.copyOfRange(content, 90_000, 100_000), tail.segment().toArray(JAVA_BYTE));
            } finally {
                tail.release();
            }
        }
        Node d = mkdir("d");
        assertErrorIn(EnumSet.of(VfsError.IS_DIRECTORY, VfsError.INVALID), () -> fs.map(ROOT, d.handle(), 0, 65_536));
    }

    // ------------------------------------------------------------------ xattrs

    @Test
    void extendedAttributesAreSetReadListedAndRemoved() throws Exception {
        Node f = mkfile("f");
        byte[] binary = {0, 1, 2, (byte) 0xff, 0};
        fs.setxattr(ROOT, f.handle(), "colour", bytes("blue"), XattrMode.EITHER);
        fs.setxattr(ROOT, f.handle(), "binary", binary, XattrMode.CREATE);
        fs.setxattr(ROOT, f.handle(), "empty", new byte[0], XattrMode.EITHER);
        assertArrayEquals(bytes("blue"), fs.getxattr(ROOT, f.handle(), "colour"));
        assertArrayEquals(binary, fs.getxattr(ROOT, f.handle(), "binary"));
        assertArrayEquals(new byte[0], fs.getxattr(ROOT, f.handle(), "empty"));
        assertTrue(fs.listxattr(ROOT, f.handle()).containsAll(List.of("colour", "binary", "empty")));
        fs.setxattr(ROOT, f.handle(), "colour", bytes("green"), XattrMode.REPLACE);
        assertArrayEquals(bytes("green"), fs.getxattr(ROOT, f.handle(), "colour"));
        fs.setxattr(ROOT, f.handle(), "colour", bytes("red"), XattrMode.EITHER);
        assertArrayEquals(bytes("red"), fs.getxattr(ROOT, f.handle(), "colour"));
        fs.removexattr(ROOT, f.handle(), "colour");
        assertFalse(fs.listxattr(ROOT, f.handle()).contains("colour"));
        assertError(VfsError.NO_XATTR, () -> fs.getxattr(ROOT, f.handle(), "colour"));
    }

    @Test
    void extendedAttributeModesAndMissingNamesFail() throws Exception {
        Node f = mkfile("f");
        fs.setxattr(ROOT, f.handle(), "a", bytes("1"), XattrMode.CREATE);
        assertError(VfsError.EXISTS, () -> fs.setxattr(ROOT, f.handle(), "a", bytes("2"), XattrMode.CREATE));
        assertArrayEquals(bytes("1"), fs.getxattr(ROOT, f.handle(), "a"));
        assertError(VfsError.NO_XATTR, () -> fs.setxattr(ROOT, f.handle(), "b", bytes("2"), XattrMode.REPLACE));
        assertError(VfsError.NO_XATTR, () -> fs.getxattr(ROOT, f.handle(), "b"));
        assertError(VfsError.NO_XATTR, () -> fs.removexattr(ROOT, f.handle(), "b"));
        assertFalse(fs.listxattr(ROOT, f.handle()).contains("b"));
    }

    @Test
    void extendedAttributesLiveOnDirectoriesAndSurviveARestart() throws Exception {
        Node d = mkdir("d");
        Node f = mkfile("f");
        fs.setxattr(ROOT, d.handle(), "tag", bytes("dir"), XattrMode.EITHER);
        fs.setxattr(ROOT, f.handle(), "tag", bytes("file"), XattrMode.EITHER);
        restart();
        assertArrayEquals(bytes("dir"), fs.getxattr(ROOT, d.handle(), "tag"));
        assertArrayEquals(bytes("file"), fs.getxattr(ROOT, f.handle(), "tag"));
    }

    @Test
    void changingAnotherUsersExtendedAttributesNeedsWritePermission() throws Exception {
        Node f = mkfile(ALICE, home(), "f", 0644);
        fs.setxattr(ALICE, f.handle(), "mine", bytes("1"), XattrMode.EITHER);
        assertArrayEquals(bytes("1"), fs.getxattr(EVE, f.handle(), "mine"), "readable like the file");
        assertError(VfsError.ACCESS, () -> fs.setxattr(EVE, f.handle(), "theirs", bytes("2"), XattrMode.EITHER));
        assertError(VfsError.ACCESS, () -> fs.removexattr(EVE, f.handle(), "mine"));
        assertArrayEquals(bytes("1"), fs.getxattr(ALICE, f.handle(), "mine"));
    }

    // ------------------------------------------------------------------ permissions

    @Test
    void aUserCannotChangeADirectoryHeMayNotWrite() throws Exception {
        fs.setattr(ROOT, root(), SetAttributes.create().mode(0755).owner(0).group(0));
        Node f = mkfile("rootfile");
        mkdir("rootdir");
        assertError(VfsError.ACCESS, () -> mkfile(ALICE, root(), "x", 0644));
        assertError(VfsError.ACCESS, () -> mkdir(ALICE, root(), "x", 0755));
        assertError(VfsError.ACCESS, () -> fs.symlink(ALICE, root(), "x", "t", SetAttributes.NONE));
        assertError(VfsError.ACCESS, () -> fs.remove(ALICE, root(), "rootfile"));
        assertError(VfsError.ACCESS, () -> fs.rmdir(ALICE, root(), "rootdir"));
        assertError(VfsError.ACCESS, () -> fs.rename(ALICE, root(), "rootfile", root(), "y", false));
        assertError(VfsError.ACCESS, () -> fs.link(ALICE, f.handle(), root(), "y"));
        assertEquals(sorted("rootdir", "rootfile"), names(root()));
    }

    @Test
    void aUserCreatesInHisOwnDirectoryAndOwnsWhatHeCreates() throws Exception {
        Node f = mkfile(ALICE, home(), "f", 0644);
        Node d = mkdir(ALICE, home(), "d", 0700);
        Node l = fs.symlink(ALICE, home(), "l", "f", SetAttributes.NONE);
        for (Node n : List.of(f, d, l)) {
            FileAttributes a = attrs(n.handle());
            assertEquals(1000, a.uid(), a.type().toString());
            assertEquals(1000, a.gid(), a.type().toString());
        }
        write(ALICE, f.handle(), 0, bytes("mine"), Stability.UNSTABLE);
        assertArrayEquals(bytes("mine"), read(ALICE, f.handle(), 0, 100));
        fs.rename(ALICE, home(), "f", d.handle(), "g", false);
        fs.remove(ALICE, d.handle(), "g");
    }

    @Test
    void othersCannotReadAPrivateFile() throws Exception {
        Node f = mkfile(ALICE, home(), "secret", 0600);
        write(ALICE, f.handle(), 0, bytes("s3cr3t"), Stability.UNSTABLE);
        assertError(VfsError.ACCESS, () -> read(EVE, f.handle(), 0, 100));
        assertError(VfsError.ACCESS, () -> read(BOB, f.handle(), 0, 100));
        assertArrayEquals(bytes("s3cr3t"), read(ALICE, f.handle(), 0, 100));
        assertArrayEquals(bytes("s3cr3t"), read(ROOT, f.handle(), 0, 100));
        fs.setattr(ALICE, f.handle(), mode(0640));
        assertArrayEquals(bytes("s3cr3t"), read(BOB, f.handle(), 0, 100), "BOB is in ALICE's group");
        assertError(VfsError.ACCESS, () -> read(EVE, f.handle(), 0, 100));
    }

    @Test
    void othersCannotWriteOrTruncateAFileWithoutWritePermission() throws Exception {
        Node f = mkfile(ALICE, home(), "f", 0644);
        write(ALICE, f.handle(), 0, bytes("original"), Stability.UNSTABLE);
        assertError(VfsError.ACCESS, () -> write(EVE, f.handle(), 0, bytes("X"), Stability.UNSTABLE));
        assertError(VfsError.ACCESS, () -> fs.setattr(EVE, f.handle(), SetAttributes.create().size(0)));
        assertArrayEquals(bytes("original"), readAll(f.handle()));
    }

    @Test
    void searchPermissionIsNeededToLookInsideADirectory() throws Exception {
        fs.setattr(ROOT, root(), mode(0755));
        Node priv = mkdir(ROOT, root(), "private", 0700);
        mkfile(priv.handle(), "inside");
        assertError(VfsError.ACCESS, () -> fs.lookup(ALICE, priv.handle(), "inside"));
        assertError(VfsError.ACCESS, () -> fs.readdir(ALICE, priv.handle(), 0, 0, 10, false));
        assertError(VfsError.ACCESS, () -> fs.resolve(ALICE, root(), "private/inside", true));
        assertEquals(priv.handle(), fs.lookup(ALICE, root(), "private").handle(), "the directory itself is visible");
    }

    @Test
    void aStickyDirectoryLetsOnlyOwnersRemoveOrRename() throws Exception {
        fs.setattr(ROOT, root(), mode(0755));
        Node tmp = mkdir(ROOT, root(), "tmp", 01777);
        fs.setattr(ROOT, tmp.handle(), mode(01777));
        mkfile(ALICE, tmp.handle(), "alices", 0666);
        mkfile(BOB, tmp.handle(), "bobs", 0666);
        assertError(VfsError.ACCESS, () -> fs.remove(BOB, tmp.handle(), "alices"));
        assertError(VfsError.ACCESS, () -> fs.rename(BOB, tmp.handle(), "alices", tmp.handle(), "stolen", false));
        assertError(VfsError.ACCESS, () -> fs.rename(ALICE, tmp.handle(), "alices", tmp.handle(), "bobs", true));
        fs.remove(ALICE, tmp.handle(), "alices");
        fs.remove(ROOT, tmp.handle(), "bobs");
        assertEquals(List.of(), names(tmp.handle()));

        Node open = mkdir(ROOT, root(), "open", 0777);
        fs.setattr(ROOT, open.handle(), mode(0777));
        mkfile(ALICE, open.handle(), "alices", 0644);
        fs.remove(BOB, open.handle(), "alices"); // without the sticky bit, writing the directory suffices
    }

    @Test
    void accessReportsTheBitsTheCallerHas() throws Exception {
        int all = VirtualFileSystem.ACCESS_READ | VirtualFileSystem.ACCESS_LOOKUP | VirtualFileSystem.ACCESS_MODIFY
                | VirtualFileSystem.ACCESS_EXTEND | VirtualFileSystem.ACCESS_DELETE | VirtualFileSystem.ACCESS_EXECUTE;
        Node f = mkfile(ALICE, home(), "f", 0640);
        int rw = VirtualFileSystem.ACCESS_READ | VirtualFileSystem.ACCESS_MODIFY | VirtualFileSystem.ACCESS_EXTEND;
        assertEquals(rw, fs.access(ALICE, f.handle(), all) & ~VirtualFileSystem.ACCESS_DELETE);
        assertEquals(VirtualFileSystem.ACCESS_READ, fs.access(BOB, f.handle(), all) & ~VirtualFileSystem.ACCESS_DELETE);
        assertEquals(0, fs.access(EVE, f.handle(), all) & ~VirtualFileSystem.ACCESS_DELETE);
        assertEquals(VirtualFileSystem.ACCESS_READ, fs.access(ALICE, f.handle(), VirtualFileSystem.ACCESS_READ),
                "only requested bits are reported");
        fs.setattr(ALICE, f.handle(), mode(0750));
        assertTrue((fs.access(ALICE, f.handle(), all) & VirtualFileSystem.ACCESS_EXECUTE) != 0);
        assertTrue((fs.access(BOB, f.handle(), all) & VirtualFileSystem.ACCESS_EXECUTE) != 0);
        int dirBits = fs.access(EVE, home(), all);
        assertTrue((dirBits & VirtualFileSystem.ACCESS_LOOKUP) != 0);
        assertTrue((dirBits & VirtualFileSystem.ACCESS_READ) != 0);
        assertEquals(0, dirBits & (VirtualFileSystem.ACCESS_MODIFY | VirtualFileSystem.ACCESS_EXTEND
                | VirtualFileSystem.ACCESS_DELETE), "EVE cannot change ALICE's 0755 directory");
        int aliceDir = fs.access(ALICE, home(), all);
        assertTrue((aliceDir & VirtualFileSystem.ACCESS_MODIFY) != 0 && (aliceDir & VirtualFileSystem.ACCESS_DELETE) != 0);
    }

    // ------------------------------------------------------------------ names

    @Test
    void nfcAndNfdFormsAreDistinctNames() throws Exception {
        String nfc = "caf\u00e9";
        String nfd = "cafe\u0301";
        Node a = mkfile(nfc, bytes("composed"));
        Node b = mkfile(nfd, bytes("decomposed"));
        assertNotEquals(a.attributes().fileId(), b.attributes().fileId());
        assertEquals(sorted(nfc, nfd), names(root()));
        assertArrayEquals(bytes("composed"), readAll(lookup(root(), nfc).handle()));
        assertArrayEquals(bytes("decomposed"), readAll(lookup(root(), nfd).handle()));
    }

    @Test
    void unicodeAndUnusualNamesRoundTripExactly() throws Exception {
        List<String> names = List.of("\u6587\u4ef6\u540d.txt", "\uD83D\uDE00\uD83D\uDCC1", "\u0395\u03bb\u03bb\u03b7\u03bd\u03b9\u03ba\u03ac",
                "\u05e2\u05d1\u05e8\u05d9\u05ea", "back\\slash", " leading", "trailing ", "new\nline", "tab\there",
                "star*?<>|:", "...", ".hidden");
        for (String n : names) {
            mkfile(n, bytes(n));
        }
        Node d = mkdir("\ud55c\uad6d\uc5b4 \uB514\uB809\uD1A0\uB9AC");
        assertEquals(names.stream().sorted().toList(),
                names(root()).stream().filter(x -> !x.equals("\ud55c\uad6d\uc5b4 \uB514\uB809\uD1A0\uB9AC")).toList());
        for (String n : names) {
            assertArrayEquals(bytes(n), readAll(lookup(root(), n).handle()), n);
        }
        fs.rename(ROOT, root(), "\uD83D\uDE00\uD83D\uDCC1", d.handle(), "\uD83C\uDF89", false);
        assertEquals(List.of("\uD83C\uDF89"), names(d.handle()));
    }

    @Test
    void namesOfExactly255BytesWorkEverywhere() throws Exception {
        List<String> names = List.of("a".repeat(255), "\u20ac".repeat(85), "\u00e9\u20ac".repeat(51),
                "\uD83D\uDE00".repeat(63) + "abc");
        for (String n : names) {
            assertEquals(255, bytes(n).length);
        }
        mkfile(names.get(0), bytes("ascii"));
        mkdir(names.get(1));
        symlink(root(), names.get(2), names.get(0));
        Node f = lookup(root(), names.get(0));
        fs.link(ROOT, f.handle(), lookup(root(), names.get(1)).handle(), names.get(3));
        assertEquals(names.subList(0, 3).stream().sorted().toList(), names(root()));
        assertEquals(List.of(names.get(3)), names(lookup(root(), names.get(1)).handle()));
        assertArrayEquals(bytes("ascii"), readAll(lookup(lookup(root(), names.get(1)).handle(), names.get(3)).handle()));
        fs.rename(ROOT, root(), names.get(0), root(), "\u00e9".repeat(127) + "z", false);
        assertEquals(f.handle(), lookup(root(), "\u00e9".repeat(127) + "z").handle());
        String tooLong = "\u20ac".repeat(85) + "a";
        assertError(VfsError.NAME_TOO_LONG, () -> mkfile(tooLong));
        assertError(VfsError.NAME_TOO_LONG, () -> fs.link(ROOT, f.handle(), root(), tooLong));
        assertError(VfsError.NAME_TOO_LONG,
                () -> fs.rename(ROOT, root(), "\u00e9".repeat(127) + "z", root(), tooLong, false));
    }

    // ------------------------------------------------------------------ big, sparse, concurrent

    @Test
    void sparseFilesBeyond4GiBReadZeroesInTheHoleAndUseLittleSpace() throws Exception {
        Node f = mkfile("sparse");
        write(f.handle(), 5 * GiB, new byte[] {42});
        FileAttributes a = attrs(f.handle());
        assertEquals(5 * GiB + 1, a.size());
        assertArrayEquals(new byte[4096], read(f.handle(), 4 * GiB, 4096));
        assertArrayEquals(new byte[4096], read(f.handle(), (4 * GiB) - 2048, 4096), "across the 4 GiB line");
        assertArrayEquals(new byte[] {0, 0, 42}, read(f.handle(), 5 * GiB - 2, 100));
        assertTrue(a.spaceUsed() < 64L << 20, "a 5 GiB hole uses " + a.spaceUsed() + " bytes");
        write(f.handle(), 4 * GiB + 7, bytes("mid"));
        assertArrayEquals(bytes("\0mid\0"), read(f.handle(), 4 * GiB + 6, 5));
    }

    @Test
    void concurrentWritersOfDisjointBlocksAllLand() throws Exception {
        Node f = mkfile("shared");
        int block = 64 * KiB;
        int blocks = 64;
        int writers = 8;
        List<Future<?>> done = new ArrayList<>();
        try (ExecutorService ex = Executors.newVirtualThreadPerTaskExecutor()) {
            for (int t = 0; t < writers; t++) {
                int me = t;
                done.add(ex.submit(() -> {
                    List<Integer> mine = new ArrayList<>();
                    for (int b = me; b < blocks; b += writers) {
                        mine.add(b);
                    }
                    Collections.shuffle(mine, new Random(me));
                    for (int b : mine) {
                        write(ROOT, f.handle(), (long) b * block, random(block, b), Stability.UNSTABLE);
                    }
                    return null;
                }));
            }
        }
        for (Future<?> d : done) {
            d.get();
        }
        assertEquals((long) block * blocks, attrs(f.handle()).size());
        for (int b = 0; b < blocks; b++) {
            assertArrayEquals(random(block, b), read(f.handle(), (long) b * block, block), "block " + b);
        }
    }

    // ------------------------------------------------------------------ handles and restarts

    @Test
    void handlesGivenOutBeforeARestartResolveToTheSameFilesAfter() throws Exception {
        FileHandle root = root();
        Node a = mkfile("a", bytes("alpha"));
        Node d1 = mkdir("d1");
        Node d2 = mkdir(d1.handle(), "d2");
        Node d3 = mkdir(d2.handle(), "d3");
        Node deep = mkfile(d3.handle(), "deep");
        write(deep.handle(), 0, bytes("deep data"));
        Node moved = mkfile("old-name", bytes("moved"));
        fs.rename(ROOT, root(), "old-name", d1.handle(), "new-name", false);
        Node link = symlink(d2.handle(), "link", "d3/deep");
        Node gone = mkfile("gone");
        fs.remove(ROOT, root(), "gone");
        int volume = fs.volumeId();
        List<Node> kept = List.of(a, d1, d2, d3, deep, moved, link);
        List<byte[]> wire = kept.stream().map(n -> n.handle().toBytes()).toList();

        restart();

        assertEquals(volume, fs.volumeId());
        assertEquals(root, fs.root());
        for (int i = 0; i < kept.size(); i++) {
            FileHandle h = FileHandle.decode(wire.get(i));
            FileAttributes after = attrs(h);
            assertEquals(kept.get(i).attributes().fileId(), after.fileId(), "file id of " + kept.get(i));
            assertEquals(kept.get(i).attributes().type(), after.type());
        }
        assertEquals(a.handle(), lookup(root(), "a").handle());
        assertArrayEquals(bytes("alpha"), readAll(a.handle()));
        assertEquals(d3.handle(), lookup(lookup(lookup(root(), "d1").handle(), "d2").handle(), "d3").handle());
        assertArrayEquals(bytes("deep data"), readAll(deep.handle()));
        assertEquals(moved.handle(), lookup(d1.handle(), "new-name").handle());
        assertArrayEquals(bytes("moved"), readAll(moved.handle()));
        assertEquals("d3/deep", fs.readlink(ROOT, link.handle()));
        assertError(VfsError.STALE, () -> attrs(gone.handle()));
        assertEquals(d1.handle(), fs.parent(ROOT, d2.handle()).handle());
    }

    @Test
    void attributesSurviveARestart() throws Exception {
        Node f = mkfile("f", random(12345, 8));
        long mtime = 1_234_567_890_123_456_789L;
        fs.setattr(ROOT, f.handle(), SetAttributes.create().mode(0604).owner(1000).group(1001).mtime(mtime));
        Node d = mkdir(ROOT, root(), "d", 0711);
        FileAttributes before = attrs(f.handle());
        restart();
        FileAttributes after = attrs(f.handle());
        assertEquals(0604, after.mode());
        assertEquals(1000, after.uid());
        assertEquals(1001, after.gid());
        assertEquals(12345, after.size());
        assertEquals(mtime, after.mtimeNanos());
        assertEquals(before.fileId(), after.fileId());
        assertEquals(0711, attrs(d.handle()).mode());
        assertArrayEquals(random(12345, 8), readAll(f.handle()));
    }

    @Test
    void aRemovedFilesHandleStaysStaleWhenANewFileMayReuseItsId() throws Exception {
        List<FileHandle> dead = new ArrayList<>();
        for (int i = 0; i < 30; i++) {
            Node n = mkfile("tmp", bytes("old " + i));
            dead.add(n.handle());
            fs.remove(ROOT, root(), "tmp");
        }
        List<Node> alive = new ArrayList<>();
        for (int i = 0; i < 30; i++) {
            alive.add(mkfile("new-" + i, bytes("new " + i)));
        }
        for (FileHandle h : dead) {
            assertError(VfsError.STALE, () -> attrs(h));
            assertError(VfsError.STALE, () -> read(h, 0, 100));
        }
        for (int i = 0; i < alive.size(); i++) {
            assertArrayEquals(bytes("new " + i), readAll(alive.get(i).handle()));
        }
        restart();
        for (FileHandle h : dead) {
            assertError(VfsError.STALE, () -> attrs(h));
        }
    }

    @Test
    void aHandleWithAnotherGenerationIsStale() throws Exception {
        Node f = mkfile("f");
        Node d = mkdir("d");
        for (Node n : List.of(f, d)) {
            FileHandle h = n.handle();
            FileHandle forged = FileHandle.of(h.volumeId(), h.fileId(), h.generation() ^ 1, h.type());
            assertError(VfsError.STALE, () -> attrs(forged));
            assertError(VfsError.STALE, () -> fs.lookup(ROOT, forged, "x"));
        }
        FileHandle forged = FileHandle.of(f.handle().volumeId(), f.handle().fileId(), f.handle().generation() + 1000,
                FileType.REGULAR);
        restart();
        assertError(VfsError.STALE, () -> attrs(forged));
    }

    @Test
    void aHandleWhoseTypeWasChangedIsRefused() throws Exception {
        Node f = mkfile("f");
        Node d = mkdir("d");
        for (Node n : List.of(f, d, new Node(fs.root(), attrs(fs.root())))) {
            FileHandle h = n.handle();
            for (FileType t : FileType.values()) {
                if (t != h.type()) {
                    FileHandle forged = FileHandle.of(h.volumeId(), h.fileId(), h.generation(), t);
                    assertError(VfsError.BAD_HANDLE, () -> attrs(forged));
                }
            }
        }
    }

    @Test
    void aHandleOfAnotherVolumeOrAnUnknownFileIsRefused() throws Exception {
        Node f = mkfile("f");
        FileHandle foreign = FileHandle.of(fs.volumeId() + 1, f.handle().fileId(), f.handle().generation(),
                FileType.REGULAR);
        FileHandle foreignRoot = FileHandle.of(fs.volumeId() ^ 0x5a5a, root().fileId(), root().generation(),
                FileType.DIRECTORY);
        Set<VfsError> refused = EnumSet.of(VfsError.STALE, VfsError.BAD_HANDLE);
        assertErrorIn(refused, () -> attrs(foreign));
        assertErrorIn(refused, () -> read(foreign, 0, 10));
        assertErrorIn(refused, () -> fs.lookup(ROOT, foreignRoot, "f"));
        FileHandle unknown = FileHandle.of(fs.volumeId(), 0x7fff_0000_1234L, 1, FileType.REGULAR);
        assertErrorIn(refused, () -> attrs(unknown));
    }

    // ------------------------------------------------------------------ resolve

    /** root/a/b/file plus links that stay inside, leave, or loop. */
    private Node resolveTree() throws VfsException {
        Node a = mkdir("a");
        Node b = mkdir(a.handle(), "b");
        Node file = mkfile(b.handle(), "file");
        write(file.handle(), 0, bytes("in b"));
        symlink(a.handle(), "rel", "b/file");
        symlink(a.handle(), "up", "../a/b");
        symlink(b.handle(), "toroot", "../..");
        symlink(b.handle(), "dot", "./file");
        symlink(a.handle(), "abs", "/etc/passwd");
        symlink(a.handle(), "absdir", "/etc");
        symlink(a.handle(), "out", "../../outside");
        symlink(root(), "loop1", "loop2");
        symlink(root(), "loop2", "loop1");
        symlink(root(), "self", "self");
        return file;
    }

    @Test
    void resolveWalksPathsAndRelativeSymlinksInsideTheExport() throws Exception {
        Node file = resolveTree();
        Node a = lookup(root(), "a");
        for (String path : List.of("a/b/file", "a/./b/../b/file", "./a/b/file", "a/rel", "a/up/file",
                "a/b/toroot/a/b/file", "a/b/dot", "a/b/toroot/a/rel")) {
            assertEquals(file.handle(), fs.resolve(ROOT, root(), path, true).handle(), path);
        }
        assertEquals(file.handle(), fs.resolve(ROOT, a.handle(), "b/file", true).handle(), "relative to a");
        assertEquals(file.handle(), fs.resolve(ROOT, a.handle(), "../a/rel", true).handle());
        assertEquals(a.handle(), fs.resolve(ROOT, root(), "a/b/..", true).handle());
        assertEquals(a.handle(), fs.resolve(ROOT, a.handle(), ".", true).handle());
        Node link = fs.resolve(ROOT, root(), "a/rel", false);
        assertEquals(FileType.SYMLINK, link.attributes().type(), "followLast=false returns the link");
        assertEquals(lookup(a.handle(), "rel").handle(), link.handle());
    }

    @Test
    void resolveRefusesToLeaveTheExport() throws Exception {
        resolveTree();
        Node a = lookup(root(), "a");
        for (String path : List.of("..", "a/../..", "a/b/../../..", "a/abs", "a/absdir/passwd", "a/out", "a/out/x",
                "a/b/toroot/..")) {
            assertError(VfsError.ESCAPE, () -> fs.resolve(ROOT, root(), path, true));
        }
        assertError(VfsError.ESCAPE, () -> fs.resolve(ROOT, a.handle(), "../..", true));
        assertError(VfsError.ESCAPE, () -> fs.resolve(ROOT, root(), "a/absdir/passwd", false),
                "a link in the middle is always followed");
        Node abs = fs.resolve(ROOT, root(), "a/abs", false);
        assertEquals(FileType.SYMLINK, abs.attributes().type(), "the link itself may be named");
    }

    @Test
    void resolveDetectsSymlinkLoopsAndCountsHops() throws Exception {
        Node file = resolveTree();
        assertError(VfsError.LOOP, () -> fs.resolve(ROOT, root(), "loop1", true));
        assertError(VfsError.LOOP, () -> fs.resolve(ROOT, root(), "self/x", false));
        Node chain = mkdir("chain");
        // c0 -> c1 -> ... -> c39 -> ../a/b/file: 40 hops, the most allowed
        int hops = VirtualFileSystem.MAX_SYMLINK_HOPS;
        for (int i = 0; i < hops; i++) {
            symlink(chain.handle(), "c" + i, i == hops - 1 ? "../a/b/file" : "c" + (i + 1));
        }
        assertEquals(file.handle(), fs.resolve(ROOT, root(), "chain/c0", true).handle());
        symlink(chain.handle(), "start", "c0"); // one hop more
        assertError(VfsError.LOOP, () -> fs.resolve(ROOT, root(), "chain/start", true));
    }

    @Test
    void resolveReportsMissingNamesAndFilesInThePath() throws Exception {
        resolveTree();
        assertError(VfsError.NOT_FOUND, () -> fs.resolve(ROOT, root(), "a/missing", true));
        assertError(VfsError.NOT_FOUND, () -> fs.resolve(ROOT, root(), "missing/x", true));
        assertError(VfsError.NOT_DIRECTORY, () -> fs.resolve(ROOT, root(), "a/b/file/x", true));
    }

    // ------------------------------------------------------------------ export options

    @Test
    void aCaseInsensitiveExportFindsNamesInAnyCase() throws Exception {
        reopenWith(new ExportOptions(false, true, 0));
        assertTrue(fs.options().caseInsensitive());
        Node readme = mkfile("readme.txt");
        Node dir = mkdir("Docs");
        Node inside = mkfile(dir.handle(), "Guide.md");
        assertEquals(readme.handle(), lookup(root(), "README.TXT").handle());
        assertEquals(readme.handle(), lookup(root(), "ReadMe.Txt").handle());
        assertEquals(inside.handle(), fs.resolve(ROOT, root(), "DOCS/guide.MD", true).handle());
        assertEquals(List.of("Guide.md"), names(dir.handle()), "names keep the case they were created with");
        Node ete = mkfile("\u00e9t\u00e9.txt");
        assertEquals(ete.handle(), lookup(root(), "\u00c9T\u00c9.TXT").handle(), "case folding beyond ASCII");
        assertError(VfsError.NOT_FOUND, () -> lookup(root(), "readme.txt.bak"));
    }

    @Test
    void aDefaultExportIsCaseSensitive() throws Exception {
        mkfile("readme.txt");
        assertError(VfsError.NOT_FOUND, () -> lookup(root(), "README.TXT"));
        mkfile("README.TXT");
        assertEquals(sorted("README.TXT", "readme.txt"), names(root()));
    }

    @Test
    void aReadOnlyExportRefusesEveryChange() throws Exception {
        reopenWith(new ExportOptions(true, false, 0));
        assertTrue(fs.options().readOnly());
        assertError(VfsError.READ_ONLY, () -> mkfile("f"));
        assertError(VfsError.READ_ONLY, () -> fs.create(ROOT, root(), "f", CreateMode.UNCHECKED, SetAttributes.NONE, 0));
        assertError(VfsError.READ_ONLY, () -> mkdir("d"));
        assertError(VfsError.READ_ONLY, () -> symlink(root(), "l", "x"));
        assertError(VfsError.READ_ONLY, () -> fs.setattr(ROOT, root(), mode(0777)));
        assertError(VfsError.READ_ONLY, () -> fs.setxattr(ROOT, root(), "a", bytes("1"), XattrMode.EITHER));
        assertEquals(List.of(), names(root()));
        assertEquals(FileType.DIRECTORY, attrs(root()).type());
        assertTrue(fs.statfs(root()).totalBytes() > 0);
    }

    // ------------------------------------------------------------------ locks

    @Test
    void locksAreReachableAndSharedByEveryHandleOfAFile() throws Exception {
        Node f = mkfile("f");
        Node other = mkfile("other");
        Node link = fs.link(ROOT, f.handle(), root(), "link");
        LockManager locks = fs.locks();
        assertSame(locks, fs.locks(), "one lock table per volume");
        LockOwner nfs = new LockOwner("nlm:client:1", "client", 1, new byte[0]);
        LockOwner smb = new LockOwner("smb:open:2", "windows", 0, new byte[0]);
        locks.lock(f.handle().fileId(), new ByteRangeLock(nfs, 0, 100, true, LockSemantics.POSIX));
        long viaLink = lookup(root(), "link").handle().fileId();
        assertEquals(f.handle().fileId(), viaLink);
        assertEquals(f.attributes().fileId(), link.attributes().fileId());
        LockConflictException e = assertThrows(LockConflictException.class,
                () -> locks.lock(viaLink, new ByteRangeLock(smb, 50, 10, false, LockSemantics.WINDOWS)));
        assertEquals(nfs, e.holder().owner());
        locks.lock(other.handle().fileId(), new ByteRangeLock(smb, 50, 10, true, LockSemantics.WINDOWS));
        assertTrue(locks.ioConflicts(attrs(link.handle()).fileId(), smb, 0, 10, false));
    }

    // ---- directory change feed ----

    /** Collects the changes of a watched directory, for the tests of {@link VirtualFileSystem#watch}. */
    public static final class ChangeLog implements DirectoryListener {
        private final java.util.concurrent.BlockingQueue<String> seen = new java.util.concurrent.LinkedBlockingQueue<>();

        @Override
        public void changed(DirectoryChange change, String name) {
            seen.add(change + " " + name);
        }

        /** Waits for {@code expected}, skipping other changes (a backend may report more, e.g. two MODIFIED). */
        public void await(String expected) throws InterruptedException {
            long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            java.util.List<String> skipped = new java.util.ArrayList<>();
            while (System.nanoTime() < end) {
                String s = seen.poll(100, TimeUnit.MILLISECONDS);
                if (expected.equals(s)) {
                    return;
                }
                if (s != null) {
                    skipped.add(s);
                }
            }
            fail("no " + expected + " within 10 s; saw " + skipped);
        }

        public String next(long millis) throws InterruptedException {
            return seen.poll(millis, TimeUnit.MILLISECONDS);
        }
    }

    @Test
    void aWatchedDirectoryReportsEntriesAddedModifiedRenamedAndRemoved() throws Exception {
        Node dir = mkdir("watched");
        ChangeLog log = new ChangeLog();
        try (DirectoryWatch w = fs.watch(dir.handle(), log)) {
            Node f = mkfile(dir.handle(), "a.txt");
            log.await("ADDED a.txt");
            write(f.handle(), 0, "data".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
            log.await("MODIFIED a.txt");
            fs.rename(ROOT, dir.handle(), "a.txt", dir.handle(), "b.txt", false);
            log.await("RENAMED_FROM a.txt");
            log.await("RENAMED_TO b.txt");
            Node elsewhere = mkdir("elsewhere");
            fs.rename(ROOT, dir.handle(), "b.txt", elsewhere.handle(), "b.txt", false);
            log.await("REMOVED b.txt"); // out of the directory
            fs.rename(ROOT, elsewhere.handle(), "b.txt", dir.handle(), "b.txt", false);
            log.await("ADDED b.txt");
            mkdir(dir.handle(), "sub");
            log.await("ADDED sub");
            fs.remove(ROOT, dir.handle(), "b.txt");
            log.await("REMOVED b.txt");
        }
        Thread.sleep(200); // changes already in flight may still arrive
        while (log.next(0) != null) {
            // drain
        }
        mkfile(dir.handle(), "after-close.txt");
        assertNull(log.next(500), "no changes once the watch is closed");
    }

    /** DOS attributes live beside the file, where the kernel sees no change: the watch must hear of it all the same. */
    @Test
    void aDosAttributeChangeReachesAWatchOfTheDirectory() throws Exception {
        Node dir = mkdir("dosattrs");
        Node f = mkfile(dir.handle(), "hidden.txt");
        ChangeLog log = new ChangeLog();
        try (DirectoryWatch w = fs.watch(dir.handle(), log)) {
            fs.setattr(ROOT, f.handle(), SetAttributes.create().dosAttributes(DosAttributes.HIDDEN));
            log.await("MODIFIED hidden.txt");
        }
    }

    /** What a protocol needs to answer "what changed" right after its own operation (SMB CHANGE_NOTIFY). */
    @Test
    void aSettledWatchHasHandedOnEveryChangeMadeBefore() throws Exception {
        Node dir = mkdir("settled");
        ChangeLog log = new ChangeLog();
        try (DirectoryWatch w = fs.watch(dir.handle(), log)) {
            for (int i = 0; i < 20; i++) {
                mkfile(dir.handle(), "f" + i);
                w.settle();
                java.util.List<String> delivered = new java.util.ArrayList<>();
                for (String c = log.next(0); c != null; c = log.next(0)) {
                    delivered.add(c);
                }
                assertTrue(delivered.contains("ADDED f" + i), "delivered before settle returned: " + delivered);
            }
        }
    }

    @Test
    void onlyTheWatchedDirectoryIsReportedAndAFileCannotBeWatched() throws Exception {
        Node dir = mkdir("watched2");
        Node other = mkdir("other");
        Node file = mkfile("plain.txt");
        VfsException e = assertThrows(VfsException.class, () -> fs.watch(file.handle(), (c, n) -> { }));
        assertEquals(VfsError.NOT_DIRECTORY, e.error());
        ChangeLog log = new ChangeLog();
        try (DirectoryWatch w = fs.watch(dir.handle(), log)) {
            mkfile(other.handle(), "elsewhere.txt");
            mkfile(dir.handle(), "here.txt");
            log.await("ADDED here.txt");
            for (String c = log.next(300); c != null; c = log.next(300)) {
                assertTrue(c.endsWith(" here.txt"), "nothing from another directory: " + c);
            }
        }
    }

    // ---- sparse files, server-side copy and clone (NFSv4.2 SEEK, ALLOCATE, DEALLOCATE, COPY, CLONE; SMB FSCTLs)

    private static final int SEG = 64 * KiB;

    /** 1 MiB: data in [0, 64K) and [512K, 576K), holes elsewhere. */
    private Node sparseFile(String name) throws VfsException {
        Node f = mkfile(name);
        byte[] a = new byte[SEG];
        Arrays.fill(a, (byte) 'a');
        byte[] b = new byte[SEG];
        Arrays.fill(b, (byte) 'b');
        write(f.handle(), 0, a);
        write(f.handle(), 8L * SEG, b);
        fs.setattr(ROOT, f.handle(), SetAttributes.create().size(16L * SEG));
        return f;
    }

    @Test
    void seekFindsDataAndHolesAsLseekDoes() throws Exception {
        FileHandle f = sparseFile("sparse").handle();
        assertEquals(0, fs.seek(ROOT, f, 0, true));
        assertEquals(SEG, fs.seek(ROOT, f, 0, false));
        assertEquals(8L * SEG, fs.seek(ROOT, f, SEG, true), "the next data after the first hole");
        assertEquals(9L * SEG, fs.seek(ROOT, f, 8L * SEG, false));
        assertEquals(-1, fs.seek(ROOT, f, 9L * SEG, true), "no data after the last extent");
        assertEquals(9L * SEG, fs.seek(ROOT, f, 9L * SEG, false), "in a hole, the hole is here");
        assertEquals(-1, fs.seek(ROOT, f, 16L * SEG, false), "past the end is ENXIO for holes too");
        assertEquals(16L * SEG, attrs(f).size());
    }

    @Test
    void deallocatePunchesAHoleAndKeepsTheSize() throws Exception {
        FileHandle f = sparseFile("punch").handle();
        fs.deallocate(ROOT, f, 0, SEG);
        assertArrayEquals(new byte[SEG], read(f, 0, SEG), "a punched range reads as zeroes");
        assertEquals(8L * SEG, fs.seek(ROOT, f, 0, true), "and is a hole");
        assertEquals(16L * SEG, attrs(f).size());
        assertThrows(VfsException.class, () -> fs.deallocate(EVE, f, 0, SEG), "EVE may not write the file");
    }

    @Test
    void allocateReservesAndGrowsTheFile() throws Exception {
        FileHandle f = mkfile("prealloc").handle();
        fs.allocate(ROOT, f, 0, 4L * SEG);
        assertEquals(4L * SEG, attrs(f).size());
        assertArrayEquals(new byte[SEG], read(f, 3L * SEG, SEG));
        VfsException e = assertThrows(VfsException.class, () -> fs.allocate(ROOT, f, 0, 0));
        assertEquals(VfsError.INVALID, e.error());
        VfsException huge = assertThrows(VfsException.class, () -> fs.allocate(ROOT, f, 0, 1L << 50),
                "a petabyte is refused before anything is taken");
        assertTrue(huge.error() == VfsError.NO_SPACE || huge.error() == VfsError.FILE_TOO_BIG, huge.getMessage());
        assertEquals(4L * SEG, attrs(f).size());
    }

    @Test
    void aHugeSparseFileIsCopiedAndPunchedWithoutWalkingItsHoles() throws Exception {
        FileHandle src = sparseFile("vast").handle();
        fs.setattr(ROOT, src, SetAttributes.create().size(1L << 40));
        FileHandle dst = mkfile("vast-copy").handle();
        fs.deallocate(ROOT, src, 16L * SEG, (1L << 40) - 16L * SEG);
        assertEquals(1L << 40, fs.copy(ROOT, src, 0, dst, 0, 0), "a terabyte, nearly all hole");
        assertEquals(1L << 40, attrs(dst).size());
        assertArrayEquals(read(src, 8L * SEG, SEG), read(dst, 8L * SEG, SEG));
    }

    @Test
    void copyCopiesInsideTheBackendUpToTheEndOfTheSource() throws Exception {
        FileHandle src = sparseFile("src").handle();
        FileHandle dst = mkfile("dst", "xxxxxxxxxx".getBytes(StandardCharsets.UTF_8)).handle();
        assertEquals(16L * SEG, fs.copy(ROOT, src, 0, dst, 0, 0), "length 0 copies to the end of the source");
        assertEquals(16L * SEG, attrs(dst).size());
        assertArrayEquals(read(src, 0, 16 * SEG), read(dst, 0, 16 * SEG));
        assertEquals(SEG, fs.copy(ROOT, src, 15L * SEG, dst, 20L * SEG, 4L * SEG), "a copy stops at the source's end");
        assertEquals(21L * SEG, attrs(dst).size());
        FileHandle theirs = mkfile(ROOT, root(), "theirs", 0644).handle();
        VfsException e = assertThrows(VfsException.class, () -> fs.copy(EVE, src, 0, theirs, 0, SEG));
        assertEquals(VfsError.ACCESS, e.error());
    }

    @Test
    void cloneSharesTheBytesOrSaysTheBackendCannot() throws Exception {
        FileHandle src = sparseFile("clsrc").handle();
        FileHandle dst = mkfile("cldst").handle();
        try {
            fs.clone(ROOT, src, 0, dst, 0, 0);
        } catch (VfsException e) {
            assertEquals(VfsError.NOT_SUPPORTED, e.error(), e.getMessage());
            assertEquals(0, attrs(dst).size(), "a refused clone changes nothing");
            return;
        }
        assertArrayEquals(read(src, 0, 16 * SEG), read(dst, 0, 16 * SEG));
    }
}
