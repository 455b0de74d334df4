package io.rdmagate.vfs.local;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rdmagate.vfs.Caller;
import io.rdmagate.vfs.CreateMode;
import io.rdmagate.vfs.ExportOptions;
import io.rdmagate.vfs.FileHandle;
import io.rdmagate.vfs.SetAttributes;
import io.rdmagate.vfs.Stability;
import io.rdmagate.vfs.memory.IoMemory;
import io.rdmagate.vfs.state.CacheHolder;
import io.rdmagate.vfs.state.Conflict;
import io.rdmagate.vfs.state.Recall;
import java.lang.foreign.Arena;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A file a protocol's client caches is recalled when a process on the host changes it, and never
 * for the gateway's own changes: the volume's {@link io.rdmagate.vfs.state.FileStates} hears of
 * host writes and renames through fanotify and tells the holders.
 */
class ForeignWritesTest {
    @TempDir
    Path tmp;
    Path root;
    LocalFileSystem fs;
    final BlockingQueue<String> recalls = new LinkedBlockingQueue<>();

    /** A holder that records what it is asked to recall, as "fileId conflict". */
    final CacheHolder holder = new CacheHolder() {
        @Override
        public String protocol() {
            return "test";
        }

        @Override
        public boolean holdsAnything() {
            return true;
        }

        @Override
        public Recall recall(int volumeId, long fileId, long generation, Conflict conflict, Object breaker) {
            recalls.add(fileId + " " + conflict);
            return null;
        }
    };

    @BeforeEach
    void open() throws Exception {
        root = Files.createDirectories(tmp.resolve("export"));
        fs = LocalFileSystem.open(root, Files.createDirectories(tmp.resolve("state")), ExportOptions.DEFAULT);
        fs.states().register(holder);
    }

    @AfterEach
    void close() {
        fs.close();
    }

    private FileHandle create(String name) throws Exception {
        return fs.create(Caller.ROOT, fs.root(), name, CreateMode.GUARDED, SetAttributes.NONE, 0).handle();
    }

    /** Runs a shell command as another process on the host, as a user's program would. */
    private void host(String command) throws Exception {
        Process p = new ProcessBuilder("sh", "-c", command).directory(root.toFile()).inheritIO().start();
        assertTrue(p.waitFor(30, TimeUnit.SECONDS), command);
        assertEquals(0, p.exitValue(), command);
    }

    private String nextRecall() throws InterruptedException {
        String r = recalls.poll(30, TimeUnit.SECONDS);
        assertNotNull(r, "a recall within 30 s; " + fs.states().foreignChangesStatus());
        return r;
    }

    @Test
    void aHostWriteRecallsButTheGatewaysOwnWriteDoesNot() throws Exception {
        FileHandle f = create("cached.dat");
        fs.states().cached(f);
        try (Arena a = Arena.ofConfined()) {
            fs.write(Caller.ROOT, f, 0, IoMemory.lend(a.allocateFrom(ValueLayout.JAVA_BYTE, new byte[] {1, 2, 3})),
                    Stability.FILE_SYNC);
        }
        fs.setattr(Caller.ROOT, f, SetAttributes.create().size(1));
        host("printf 'from the host' >> cached.dat");
        assertEquals(f.fileId() + " WRITE", nextRecall());
        // events arrive in order: had the gateway's write and truncate counted, they would have come first
        assertEquals(1, fs.states().foreignChanges(Conflict.WRITE), "only the host's write was foreign");
    }

    @Test
    void aHostRenameRecallsHandleCaching() throws Exception {
        FileHandle f = create("moved.dat");
        fs.states().cached(f);
        host("mv moved.dat elsewhere.dat");
        assertEquals(f.fileId() + " NAMESPACE", nextRecall());
    }

    @Test
    void filesNoLongerCachedAreNotWatched() throws Exception {
        FileHandle before = create("before.dat");
        FileHandle still = create("still.dat");
        fs.states().cached(before);
        fs.states().cached(before); // two holders' opens: watched until both end
        fs.states().cached(still);
        fs.states().uncached(before.fileId());
        host("printf x >> before.dat");
        assertEquals(before.fileId() + " WRITE", nextRecall(), "still cached by one");
        fs.states().uncached(before.fileId());
        assertEquals(1, fs.states().cachedFiles());
        host("printf y >> before.dat; printf z >> still.dat");
        assertEquals(still.fileId() + " WRITE", nextRecall(), "the write to the uncached file was not reported before it");
    }
}
