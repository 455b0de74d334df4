package io.rdmagate.vfs.local;

import io.rdmagate.vfs.DirectoryChange;
import io.rdmagate.vfs.DirectoryListener;
import io.rdmagate.vfs.DirectoryWatch;
import io.rdmagate.vfs.VfsError;
import io.rdmagate.vfs.VfsException;
import io.rdmagate.vfs.support.Watches;
import java.io.IOException;
import java.nio.file.ClosedWatchServiceException;
import java.nio.file.FileSystems;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import java.nio.file.StandardWatchEventKinds;
import java.nio.file.WatchEvent;
import java.nio.file.WatchKey;
import java.nio.file.WatchService;
import java.util.HashMap;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The change feed of a local export: the kernel's directory notifications (inotify, through the
 * JDK's {@link WatchService}), so changes made on the host or by other protocols are reported as
 * well as the gateway's own. A directory is watched by its inode: it is registered through
 * {@code /proc/self/fd/N} of the O_PATH descriptor the export resolved safely, never by a path
 * that could lead outside the export. Renames arrive as a removal and an addition.
 */
final class HostChanges implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(HostChanges.class);
    private final Watches watches;
    private final Map<Long, WatchKey> keysByDir = new HashMap<>();
    private final Map<WatchKey, Long> dirsByKey = new HashMap<>();
    private WatchService service;
    private boolean closed;

    HostChanges(int volumeId) {
        this.watches = new Watches("vol-" + volumeId, this::unwatched);
    }

    /** Watches the directory open as {@code dir} (inode {@code ino}) for {@code listener}. */
    synchronized DirectoryWatch watch(Fd dir, long ino, DirectoryListener listener) throws VfsException {
        if (closed) {
            throw new VfsException(VfsError.IO, "export closed");
        }
        if (!keysByDir.containsKey(ino)) {
            try {
                if (service == null) {
                    service = FileSystems.getDefault().newWatchService();
                    Thread.ofPlatform().daemon().name("vfs-inotify").start(this::poll);
                }
                WatchKey k = Path.of("/proc/self/fd/" + dir.fd()).register(service, StandardWatchEventKinds.ENTRY_CREATE,
                        StandardWatchEventKinds.ENTRY_DELETE, StandardWatchEventKinds.ENTRY_MODIFY);
                keysByDir.put(ino, k);
                dirsByKey.put(k, ino);
            } catch (NotDirectoryException e) {
                throw new VfsException(VfsError.NOT_DIRECTORY, "watch of a file");
            } catch (IOException e) {
                // e.g. fs.inotify.max_user_watches reached
                throw new VfsException(VfsError.NO_RESOURCES, "directory watch: " + e.getMessage());
            }
        }
        return watches.add(ino, listener);
    }

    private synchronized void unwatched(long ino) {
        WatchKey k = keysByDir.remove(ino);
        if (k != null) {
            dirsByKey.remove(k);
            k.cancel();
        }
    }

    private void poll() {
        WatchService ws;
        synchronized (this) {
            ws = service;
        }
        try {
            while (true) {
                WatchKey k = ws.take();
                Long ino;
                synchronized (this) {
                    ino = dirsByKey.get(k);
                }
                for (WatchEvent<?> e : k.pollEvents()) {
                    if (ino == null) {
                        continue;
                    }
                    if (e.kind() == StandardWatchEventKinds.OVERFLOW) {
                        watches.fire(ino, DirectoryChange.OVERFLOW, "");
                        continue;
                    }
                    String name = e.context().toString();
                    DirectoryChange c = e.kind() == StandardWatchEventKinds.ENTRY_CREATE ? DirectoryChange.ADDED
                            : e.kind() == StandardWatchEventKinds.ENTRY_DELETE ? DirectoryChange.REMOVED
                            : DirectoryChange.MODIFIED;
                    watches.fire(ino, c, name);
                }
                if (!k.reset()) { // the directory itself went
                    synchronized (this) {
                        Long gone = dirsByKey.remove(k);
                        if (gone != null) {
                            keysByDir.remove(gone);
                        }
                    }
                }
            }
        } catch (InterruptedException | ClosedWatchServiceException e) {
            log.debug("directory watch thread ends");
        }
    }

    @Override
    public synchronized void close() {
        closed = true;
        watches.close();
        if (service != null) {
            try {
                service.close();
            } catch (IOException e) {
                log.debug("closing the watch service", e);
            }
        }
    }
}
