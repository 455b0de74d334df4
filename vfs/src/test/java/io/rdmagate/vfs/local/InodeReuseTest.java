package io.rdmagate.vfs.local;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.rdmagate.vfs.Caller;
import io.rdmagate.vfs.CreateMode;
import io.rdmagate.vfs.DirectoryEntry;
import io.rdmagate.vfs.ExportOptions;
import io.rdmagate.vfs.FileHandle;
import io.rdmagate.vfs.Node;
import io.rdmagate.vfs.SetAttributes;
import io.rdmagate.vfs.VfsException;
import io.rdmagate.vfs.support.DirectoryCookies;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Many clients making and removing files in one tree at once: the filesystem hands a removed file's
 * inode number to the next file created (ext4 does at once), and the handle of that new file must
 * work. Before the fix, removing one file dropped the record of another created meanwhile, whose
 * handle then answered STALE (an SMB client saw STATUS_FILE_CLOSED on its first write).
 */
class InodeReuseTest {
    @TempDir
    Path tmp;

    @Test
    void filesCreatedWhileOthersAreRemovedKeepWorkingHandles() throws Exception {
        Path root = Files.createDirectories(tmp.resolve("export"));
        ConcurrentLinkedQueue<String> failures = new ConcurrentLinkedQueue<>();
        AtomicBoolean done = new AtomicBoolean();
        try (LocalFileSystem fs = LocalFileSystem.open(root, tmp.resolve("state"), ExportOptions.DEFAULT)) {
            FileHandle shared = fs.mkdir(Caller.ROOT, fs.root(), "soak", SetAttributes.NONE).handle();
            List<Thread> writers = new ArrayList<>();
            for (int t = 0; t < 6; t++) {
                String dir = "dir-" + t;
                writers.add(Thread.ofPlatform().start(() -> {
                    for (int round = 0; round < 150 && failures.isEmpty(); round++) {
                        try {
                            Node d = fs.mkdir(Caller.ROOT, shared, dir, SetAttributes.NONE);
                            List<FileHandle> made = new ArrayList<>();
                            for (int k = 0; k < 8; k++) {
                                made.add(fs.create(Caller.ROOT, d.handle(), "f" + k, CreateMode.GUARDED, SetAttributes.NONE, 0)
                                        .handle());
                            }
                            List<FileHandle> listed = new ArrayList<>();
                            for (DirectoryEntry e : fs.readdir(Caller.ROOT, d.handle(), 0, DirectoryCookies.VERIFIER, 100, true)
                                    .entries()) {
                                listed.add(e.node().handle());
                            }
                            for (FileHandle h : made) {
                                fs.getattr(h);
                                if (!listed.contains(h)) {
                                    failures.add(dir + " round " + round + ": the listing names " + h + " otherwise");
                                }
                            }
                            for (int k = 0; k < 8; k++) {
                                fs.remove(Caller.ROOT, d.handle(), "f" + k);
                            }
                            fs.rmdir(Caller.ROOT, shared, dir);
                        } catch (VfsException e) {
                            failures.add(dir + " round " + round + ": " + e);
                        }
                    }
                }));
            }
            // a client listing the shared directory with attributes meanwhile (READDIRPLUS): it records
            // entries it saw just before they went
            Thread lister = Thread.ofPlatform().start(() -> {
                while (!done.get()) {
                    try {
                        fs.readdir(Caller.ROOT, shared, 0, DirectoryCookies.VERIFIER, 100, true);
                    } catch (VfsException e) {
                        failures.add("listing: " + e);
                    }
                }
            });
            for (Thread t : writers) {
                t.join();
            }
            done.set(true);
            lister.join();
        }
        assertEquals(List.of(), List.copyOf(failures));
        try (var left = Files.list(root.resolve("soak"))) {
            assertEquals(List.of(), left.toList());
        }
    }
}
