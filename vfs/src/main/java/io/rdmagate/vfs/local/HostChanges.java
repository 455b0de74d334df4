package io.rdmagate.vfs.local;

import io.rdmagate.vfs.DirectoryChange;
import io.rdmagate.vfs.DirectoryListener;
import io.rdmagate.vfs.DirectoryWatch;
import io.rdmagate.vfs.VfsError;
import io.rdmagate.vfs.VfsException;
import io.rdmagate.vfs.support.Watches;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The change feed of a local export: the kernel's directory notifications (inotify(7)), so
 * changes made on the host or by other protocols are reported as well as the gateway's own. A
 * directory is watched by its inode: it is registered through {@code /proc/self/fd/N} of the
 * O_PATH descriptor the export resolved safely, never by a path that could lead outside the
 * export. A rename within a directory is reported as one (its two names), between directories as
 * a removal and an addition; changes to a watched directory itself are not reported (only its
 * entries').
 *
 * <p>The kernel queues an event inside the system call that caused it, so reading the queue
 * empty ({@link DirectoryWatch#settle}) hands on every change made before: a CHANGE_NOTIFY
 * answered after the client's own CREATE sees that CREATE, as on Windows. A thread reads the
 * queue as events arrive; a settle reads it too, one reader at a time, so events reach the
 * listeners in the kernel's order.
 */
final class HostChanges implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(HostChanges.class);
    private static final int MASK = Inotify.IN_CREATE | Inotify.IN_DELETE | Inotify.IN_MOVED_FROM | Inotify.IN_MOVED_TO
            | Inotify.IN_MODIFY | Inotify.IN_ATTRIB | Inotify.IN_ONLYDIR | Inotify.IN_EXCL_UNLINK;
    /** Bytes read from the queue at once: room for several hundred events with names. */
    private static final int READ_BUFFER = 64 * 1024;
    private final Watches watches;
    private final Map<Long, Integer> wdByDir = new HashMap<>();
    private final Map<Integer, Long> dirByWd = new HashMap<>();
    /** One reader of the queue at a time; held while the events read are handed on. */
    private final ReentrantLock reading = new ReentrantLock();
    private int fd = -1;
    private int wake = -1;
    private boolean closed;
    /** A rename's IN_MOVED_FROM waiting for its IN_MOVED_TO (guarded by {@link #reading}). */
    private int movedCookie;
    private long movedDir = -1;
    private String movedName;

    HostChanges(int volumeId) {
        this.watches = new Watches("vol-" + volumeId, this::unwatched);
    }

    /** Watches the directory open as {@code dir} (inode {@code ino}) for {@code listener}. */
    synchronized DirectoryWatch watch(Fd dir, long ino, DirectoryListener listener) throws VfsException {
        if (closed) {
            throw new VfsException(VfsError.IO, "export closed");
        }
        try (Arena a = Arena.ofConfined()) {
            if (fd < 0) {
                fd = Inotify.init(a);
                wake = Fanotify.eventfd(a);
                Thread.ofPlatform().daemon().name("vfs-inotify").start(this::poll);
            }
            // asked every time: the kernel answers the watch this inode already has, or a new one
            // when the directory we watched went (its IN_IGNORED perhaps not read yet) and its
            // inode number came back for a new directory
            int wd = Inotify.addWatch(a, fd, "/proc/self/fd/" + dir.fd(), MASK);
            Integer stale = wdByDir.put(ino, wd);
            if (stale != null && stale != wd) {
                dirByWd.remove(stale);
            }
            dirByWd.put(wd, ino);
        } catch (Libc.Errno e) {
            if (e.errno == Libc.ENOTDIR) {
                throw new VfsException(VfsError.NOT_DIRECTORY, "watch of a file");
            }
            // ENOSPC: fs.inotify.max_user_watches reached; EMFILE: fs.inotify.max_user_instances
            throw new VfsException(VfsError.NO_RESOURCES, "directory watch: " + e.getMessage());
        }
        DirectoryWatch w = watches.add(ino, listener);
        return new DirectoryWatch() {
            @Override
            public void close() {
                w.close();
            }

            @Override
            public void settle() {
                HostChanges.this.settle();
            }
        };
    }

    private synchronized void unwatched(long ino) {
        Integer wd = wdByDir.remove(ino);
        if (wd != null) {
            dirByWd.remove(wd);
            try (Arena a = Arena.ofConfined()) {
                Inotify.rmWatch(a, fd, wd);
            }
        }
    }

    private synchronized Long dirOf(int wd) {
        return dirByWd.get(wd);
    }

    /** The kernel ended watch {@code wd} (the directory went, or {@link #unwatched} removed it). */
    private synchronized void ended(int wd) {
        Long ino = dirByWd.remove(wd);
        if (ino != null) {
            wdByDir.remove(ino, wd);
        }
    }

    private void settle() {
        read();
        watches.flush();
    }

    /**
     * Entry {@code name} of directory {@code dir} changed in what the gateway keeps itself (DOS
     * attributes, a creation or change time a client set): the kernel queues no event for that,
     * so it is reported here, after the events the kernel has queued so far.
     */
    void changedByGateway(long dir, String name) {
        if (!watches.directories().contains(dir)) {
            return;
        }
        reading.lock();
        try {
            read();
            watches.fire(dir, DirectoryChange.MODIFIED, name);
        } finally {
            reading.unlock();
        }
    }

    private void poll() {
        try (Arena a = Arena.ofConfined()) {
            while (true) {
                int f;
                int w;
                synchronized (this) {
                    if (closed) {
                        return;
                    }
                    f = fd;
                    w = wake;
                }
                int ready = Fanotify.pollIn(a, f, w);
                if ((ready & Fanotify.POLL_INVALID) != 0 || (ready & 2) != 0) {
                    return; // closed
                }
                read();
            }
        } catch (Libc.Errno e) {
            log.warn("directory change feed ends: {}", e.getMessage());
        } finally {
            reading.lock(); // no reader holds the descriptor's number when it is closed
            try {
                synchronized (this) {
                    if (fd >= 0) {
                        Libc.close(fd);
                        Libc.close(wake);
                        fd = -1;
                    }
                }
            } finally {
                reading.unlock();
            }
        }
    }

    /** Reads the queue until it is empty and hands the events on, in order. */
    private void read() {
        reading.lock();
        try (Arena a = Arena.ofConfined()) {
            int f;
            synchronized (this) {
                f = fd;
            }
            if (f < 0) {
                return;
            }
            MemorySegment buf = a.allocate(READ_BUFFER, 8);
            while (true) {
                long n;
                try {
                    n = Fanotify.read(a, f, buf);
                } catch (Libc.Errno e) {
                    if (e.errno == Libc.EINTR) {
                        continue;
                    }
                    if (e.errno != Libc.EAGAIN) {
                        log.debug("reading directory changes: {}", e.getMessage());
                    }
                    return;
                }
                if (n <= 0) {
                    return;
                }
                handOn(buf, n);
            }
        } finally {
            movedOut(); // the kernel queues a rename's two events together: none is still to come
            reading.unlock();
        }
    }

    /** A IN_MOVED_FROM without its IN_MOVED_TO: the entry went to a directory not watched. */
    private void movedOut() {
        if (movedName != null) {
            watches.fire(movedDir, DirectoryChange.REMOVED, movedName);
            movedName = null;
        }
    }

    private void handOn(MemorySegment buf, long n) {
        for (long off = 0; off + Inotify.EVENT_HEADER <= n; ) {
            int wd = buf.get(ValueLayout.JAVA_INT, off);
            int mask = buf.get(ValueLayout.JAVA_INT, off + 4);
            int cookie = buf.get(ValueLayout.JAVA_INT, off + 8);
            int len = buf.get(ValueLayout.JAVA_INT, off + 12);
            String name = name(buf, off + Inotify.EVENT_HEADER, len);
            off += Inotify.EVENT_HEADER + len;
            if ((mask & Inotify.IN_Q_OVERFLOW) != 0) {
                for (long dir : watches.directories()) {
                    watches.fire(dir, DirectoryChange.OVERFLOW, "");
                }
                continue;
            }
            if ((mask & Inotify.IN_IGNORED) != 0) {
                ended(wd);
                continue;
            }
            Long dir = dirOf(wd);
            if (dir == null || name.isEmpty()) {
                continue; // a watch being removed, or the directory itself
            }
            if ((mask & Inotify.IN_MOVED_TO) != 0 && movedName != null && movedCookie == cookie) {
                boolean within = movedDir == dir;
                watches.fire(movedDir, within ? DirectoryChange.RENAMED_FROM : DirectoryChange.REMOVED, movedName);
                watches.fire(dir, within ? DirectoryChange.RENAMED_TO : DirectoryChange.ADDED, name);
                movedName = null;
                continue;
            }
            movedOut();
            if ((mask & Inotify.IN_MOVED_FROM) != 0) {
                movedCookie = cookie;
                movedDir = dir;
                movedName = name;
                continue;
            }
            DirectoryChange c;
            if ((mask & (Inotify.IN_CREATE | Inotify.IN_MOVED_TO)) != 0) {
                c = DirectoryChange.ADDED;
            } else if ((mask & (Inotify.IN_DELETE | Inotify.IN_MOVED_FROM)) != 0) {
                c = DirectoryChange.REMOVED;
            } else {
                c = DirectoryChange.MODIFIED;
            }
            watches.fire(dir, c, name);
        }
    }

    private static String name(MemorySegment buf, long at, int len) {
        int end = 0;
        while (end < len && buf.get(ValueLayout.JAVA_BYTE, at + end) != 0) {
            end++;
        }
        return new String(buf.asSlice(at, end).toArray(ValueLayout.JAVA_BYTE), StandardCharsets.UTF_8);
    }

    @Override
    public void close() {
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            if (wake >= 0) {
                try (Arena a = Arena.ofConfined()) {
                    Fanotify.signal(a, wake); // the poll thread closes the descriptors
                }
            }
        }
        watches.close();
    }
}
