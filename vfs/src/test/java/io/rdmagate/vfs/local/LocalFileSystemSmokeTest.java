package io.rdmagate.vfs.local;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.rdmagate.vfs.Caller;
import io.rdmagate.vfs.CreateMode;
import io.rdmagate.vfs.ExportOptions;
import io.rdmagate.vfs.FileHandle;
import io.rdmagate.vfs.FileType;
import io.rdmagate.vfs.Node;
import io.rdmagate.vfs.SetAttributes;
import io.rdmagate.vfs.Stability;
import io.rdmagate.vfs.VfsError;
import io.rdmagate.vfs.VfsException;
import io.rdmagate.vfs.memory.IoMemory;
import io.rdmagate.vfs.memory.IoMemoryPool;
import io.rdmagate.vfs.memory.MemoryRegistrar;
import io.rdmagate.vfs.memory.PoolLimits;
import java.lang.foreign.Arena;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The path a file takes through the local backend: create, write, read back, see it on disk, restart. */
class LocalFileSystemSmokeTest {
    @TempDir
    Path tmp;

    @Test
    void createWriteReadAndSurviveRestart() throws Exception {
        Path root = Files.createDirectories(tmp.resolve("export"));
        Path state = tmp.resolve("state");
        FileHandle fileHandle;
        byte[] payload = "hello, gateway".getBytes(StandardCharsets.UTF_8);
        try (IoMemoryPool pool = new IoMemoryPool(PoolLimits.DEFAULT, MemoryRegistrar.NONE)) {
            IoMemoryPool.Account acct = pool.account("test");
            try (LocalFileSystem fs = LocalFileSystem.open(root, state, ExportOptions.DEFAULT)) {
                Node dir = fs.mkdir(Caller.ROOT, fs.root(), "sub", SetAttributes.NONE);
                Node f = fs.create(Caller.ROOT, dir.handle(), "a.txt", CreateMode.GUARDED, SetAttributes.NONE, 0);
                assertEquals(FileType.REGULAR, f.attributes().type());
                try (Arena arena = Arena.ofConfined()) {
                    IoMemory data = IoMemory.lend(arena.allocateFrom(ValueLayout.JAVA_BYTE, payload));
                    fs.write(Caller.ROOT, f.handle(), 0, data, Stability.FILE_SYNC);
                }
                fileHandle = f.handle();
                try (IoMemory m = fs.read(Caller.ROOT, fileHandle, 0, 100, acct)) {
                    assertArrayEquals(payload, m.segment().toArray(ValueLayout.JAVA_BYTE));
                }
            }
            assertArrayEquals(payload, Files.readAllBytes(root.resolve("sub/a.txt")));
            try (LocalFileSystem fs = LocalFileSystem.open(root, state, ExportOptions.DEFAULT)) {
                assertEquals(payload.length, fs.getattr(fileHandle).size());
                Node again = fs.lookup(Caller.ROOT, fs.lookup(Caller.ROOT, fs.root(), "sub").handle(), "a.txt");
                assertEquals(fileHandle, again.handle());
                fs.remove(Caller.ROOT, fs.lookup(Caller.ROOT, fs.root(), "sub").handle(), "a.txt");
                VfsException e = assertThrows(VfsException.class, () -> fs.getattr(fileHandle));
                assertEquals(VfsError.STALE, e.error());
            }
            assertEquals(0, pool.leasedBytes());
        }
    }
}
