package io.rdmagate.smb.server;

import io.rdmagate.vfs.Caller;
import io.rdmagate.vfs.DirectoryChange;
import io.rdmagate.vfs.DirectoryWatch;
import io.rdmagate.vfs.FileAttributes;
import io.rdmagate.vfs.FileHandle;
import io.rdmagate.vfs.Node;
import io.rdmagate.vfs.VfsException;
import io.rdmagate.vfs.VirtualFileSystem;
import io.rdmagate.vfs.state.Conflict;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Changes made on the host break what SMB clients cache (MS-FSA 2.1.4.12, a write by another
 * open): the directory of every file an SMB client caches is watched through the volume's change
 * feed; when a file there is modified and its change time is not the one the SMB server's own
 * last change left (nor is an SMB change under way), the change came from elsewhere (a host
 * process; an NFS operation has recalled already) and every lease and oplock of the file is
 * broken, without waiting for acknowledgments. A client is served stale data no longer than the
 * feed's latency (inotify's delivery plus one lookup).
 */
final class HostChangeBreaks implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(HostChangeBreaks.class);

    private final OpenTable table;
    /** Lookups and breaks run here: the feed's thread must not block or call into the vfs. */
    private final ExecutorService executor = Executors.newThreadPerTaskExecutor(
            Thread.ofVirtual().name("smb-host-change-", 0).factory());
    /** Watched directories by volume and file id, with the files of each that are watched for. */
    private final Map<String, Watched> dirs = new HashMap<>();

    private record Watched(DirectoryWatch watch, List<FileState> files) {
    }

    HostChangeBreaks(OpenTable table) {
        this.table = table;
    }

    /** An open of {@code f} was granted caching: its directory is watched from now until its last close. */
    void cached(FileState f, VirtualFileSystem fs, FileAttributes now) {
        FileHandle dir;
        synchronized (table) {
            if (f.watchedDir != null) {
                return;
            }
            dir = f.parent;
            f.ownMtime = now.mtimeNanos();
            f.ownSize = now.size();
        }
        if (dir == null) {
            return;
        }
        String key = dir.volumeId() + ":" + dir.fileId();
        synchronized (this) {
            Watched w = dirs.get(key);
            if (w == null) {
                try {
                    w = new Watched(fs.watch(dir, (change, name) -> {
                        if (change == DirectoryChange.MODIFIED) {
                            executor.execute(() -> changed(fs, dir, name));
                        }
                    }), new ArrayList<>());
                } catch (VfsException e) {
                    LOG.debug("no change feed for directory {}: {}", key, e.getMessage());
                    return;
                }
                dirs.put(key, w);
            }
            w.files().add(f);
        }
        synchronized (table) {
            f.watchedDir = key;
        }
    }

    /** The last open of {@code f} closed. */
    void closed(FileState f) {
        String key;
        synchronized (table) {
            key = f.watchedDir;
            f.watchedDir = null;
        }
        if (key == null) {
            return;
        }
        synchronized (this) {
            Watched w = dirs.get(key);
            if (w != null && w.files().remove(f) && w.files().isEmpty()) {
                dirs.remove(key);
                w.watch().close();
            }
        }
    }

    private void changed(VirtualFileSystem fs, FileHandle dir, String name) {
        Node n;
        try {
            n = fs.lookup(Caller.ROOT, dir, name);
        } catch (VfsException gone) {
            return;
        }
        long mtime = n.attributes().mtimeNanos();
        long size = n.attributes().size();
        List<Oplocks.Notice> out = new ArrayList<>(2);
        synchronized (table) {
            FileState f = table.file(n.handle().volumeId(), n.handle().fileId());
            if (f == null || f.watchedDir == null || f.ownChanges > 0 || f.ownMtime == mtime && f.ownSize == size) {
                return; // not cached (yet: an open still being set up), the SMB server's own change, or no data change
            }
            f.ownMtime = mtime;
            f.ownSize = size;
            table.oplocks().breakFor(f, Conflict.WRITE, out);
        }
        if (!out.isEmpty()) {
            LOG.debug("{} changed outside SMB: {} break(s)", name, out.size());
        }
        table.oplocks().send(out);
    }

    @Override
    public synchronized void close() {
        dirs.values().forEach(w -> w.watch().close());
        dirs.clear();
        executor.shutdownNow();
    }
}
