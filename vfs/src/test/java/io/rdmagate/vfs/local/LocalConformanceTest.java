package io.rdmagate.vfs.local;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rdmagate.vfs.AbstractVfsConformanceTest;
import io.rdmagate.vfs.CreateMode;
import io.rdmagate.vfs.DirectoryWatch;
import io.rdmagate.vfs.ExportOptions;
import io.rdmagate.vfs.FileType;
import io.rdmagate.vfs.Node;
import io.rdmagate.vfs.SetAttributes;
import io.rdmagate.vfs.Stability;
import io.rdmagate.vfs.VfsError;
import io.rdmagate.vfs.VirtualFileSystem;
import io.rdmagate.vfs.XattrMode;
import io.rdmagate.vfs.memory.IoMemory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The local POSIX backend against the full vfs contract, plus what only a backend over a real
 * directory owes: its files are ordinary files on disk, and changes made on disk show through.
 */
class LocalConformanceTest extends AbstractVfsConformanceTest {
    @TempDir
    Path base;

    private record Dirs(Path root, Path state) {
    }

    private final Map<VirtualFileSystem, Dirs> dirs = new IdentityHashMap<>();
    private int opened;

    @Override
    protected VirtualFileSystem open(ExportOptions options) throws Exception {
        int n = opened++;
        Dirs d = new Dirs(Files.createDirectories(base.resolve("export-" + n)),
                Files.createDirectories(base.resolve("state-" + n)));
        return open(d, options);
    }

    private VirtualFileSystem open(Dirs d, ExportOptions options) throws Exception {
        VirtualFileSystem v = LocalFileSystem.open(d.root(), d.state(), options);
        dirs.put(v, d);
        return v;
    }

    @Override
    protected VirtualFileSystem restart(VirtualFileSystem old) throws Exception {
        return restart(old, old.options());
    }

    private VirtualFileSystem restart(VirtualFileSystem old, ExportOptions options) throws Exception {
        Dirs d = dirs.remove(old);
        old.close();
        return open(d, options);
    }

    private Path exportDir() {
        return dirs.get(fs).root();
    }

    @Test
    void filesWrittenThroughTheGatewayAreOrdinaryFilesOnDisk() throws Exception {
        Node d = mkdir("docs");
        Node f = mkfile(d.handle(), "hello.txt");
        write(f.handle(), 0, bytes("hello from nfs"));
        fs.commit(f.handle());
        fs.symlink(ROOT, d.handle(), "link", "hello.txt", SetAttributes.NONE);
        Path onDisk = exportDir().resolve("docs").resolve("hello.txt");
        assertEquals("hello from nfs", Files.readString(onDisk));
        assertEquals(Path.of("hello.txt"), Files.readSymbolicLink(exportDir().resolve("docs").resolve("link")));
        assertTrue(Files.isDirectory(exportDir().resolve("docs")));
        assertEquals(List.of("docs"), names(root()));
    }

    @Test
    void filesMadeOnDiskBehindTheGatewaysBackAreVisible() throws Exception {
        names(root()); // the gateway has seen the directory before the change
        Files.writeString(exportDir().resolve("from-host.txt"), "made on the host");
        Files.createDirectories(exportDir().resolve("host-dir").resolve("sub"));
        assertEquals(sorted("from-host.txt", "host-dir"), names(root()));
        Node f = lookup(root(), "from-host.txt");
        assertEquals(FileType.REGULAR, f.attributes().type());
        assertArrayEquals(bytes("made on the host"), readAll(f.handle()));
        assertEquals(FileType.DIRECTORY,
                fs.resolve(ROOT, root(), "host-dir/sub", true).attributes().type());
        Files.writeString(exportDir().resolve("from-host.txt"), "changed on the host");
        assertArrayEquals(bytes("changed on the host"), readAll(f.handle()), "the same handle sees the new data");
    }

    @Test
    void changesMadeOnTheHostReachAWatchOfTheDirectory() throws Exception {
        Node dir = mkdir("shared");
        ChangeLog log = new ChangeLog();
        try (DirectoryWatch w = fs.watch(dir.handle(), log)) {
            Path d = exportDir().resolve("shared");
            Files.writeString(d.resolve("by-host.txt"), "made on the host");
            log.await("ADDED by-host.txt");
            Files.writeString(d.resolve("by-host.txt"), "changed", java.nio.file.StandardOpenOption.APPEND);
            log.await("MODIFIED by-host.txt");
            Files.move(d.resolve("by-host.txt"), d.resolve("moved.txt"));
            log.await("RENAMED_FROM by-host.txt");
            log.await("RENAMED_TO moved.txt");
            Files.delete(d.resolve("moved.txt"));
            log.await("REMOVED moved.txt");
        }
    }

    @Test
    void anExportWithAThresholdMapsLargeReadsAndChecksPermission() throws Exception {
        reopenWith(new ExportOptions(false, false, 4096));
        fs.setattr(ROOT, root(), mode(0755));
        Node f = mkfile(ROOT, root(), "big", 0600);
        byte[] content = new byte[1 << 20];
        new java.util.Random(1).nextBytes(content);
        write(f.handle(), 0, content);
        IoMemory m = fs.map(ROOT, f.handle(), 4096, 512 * 1024);
        try {
            assertNotNull(m, "the local backend maps large reads: that is its zero-copy path");
            assertEquals(IoMemory.Kind.MAPPED, m.kind());
            assertArrayEquals(java.util.Arrays.copyOfRange(content, 4096, 4096 + 512 * 1024),
                    m.segment().toArray(java.lang.foreign.ValueLayout.JAVA_BYTE));
        } finally {
            m.release();
        }
        assertError(VfsError.ACCESS, () -> fs.map(ALICE, f.handle(), 0, 65536));
        assertNull(fs.map(ROOT, f.handle(), 1 << 20, 65536), "nothing to map at the end of the file");
    }

    @Test
    void aReadOnlyReopenServesTheDataButRefusesEveryChange() throws Exception {
        Node f = mkfile("f", bytes("kept"));
        Node d = mkdir("d");
        fs.setxattr(ROOT, f.handle(), "tag", bytes("v"), XattrMode.EITHER);
        VirtualFileSystem old = fs;
        fs = null;
        fs = restart(old, new ExportOptions(true, false, 0));
        assertArrayEquals(bytes("kept"), readAll(f.handle()));
        assertArrayEquals(bytes("v"), fs.getxattr(ROOT, f.handle(), "tag"));
        assertError(VfsError.READ_ONLY, () -> write(ROOT, f.handle(), 0, bytes("X"), Stability.FILE_SYNC));
        assertError(VfsError.READ_ONLY, () -> fs.setattr(ROOT, f.handle(), SetAttributes.create().size(0)));
        assertError(VfsError.READ_ONLY, () -> fs.setattr(ROOT, f.handle(), mode(0600)));
        assertError(VfsError.READ_ONLY, () -> fs.remove(ROOT, root(), "f"));
        assertError(VfsError.READ_ONLY, () -> fs.rmdir(ROOT, root(), "d"));
        assertError(VfsError.READ_ONLY, () -> fs.rename(ROOT, root(), "f", root(), "g", false));
        assertError(VfsError.READ_ONLY, () -> fs.link(ROOT, f.handle(), d.handle(), "g"));
        assertError(VfsError.READ_ONLY, () -> fs.create(ROOT, root(), "f", CreateMode.UNCHECKED,
                SetAttributes.create().size(0), 0));
        assertError(VfsError.READ_ONLY, () -> fs.removexattr(ROOT, f.handle(), "tag"));
        assertEquals("kept", Files.readString(exportDir().resolve("f")));
        assertEquals(sorted("d", "f"), names(root()));
    }
}
