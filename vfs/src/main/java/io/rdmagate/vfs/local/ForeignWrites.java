package io.rdmagate.vfs.local;

import io.rdmagate.vfs.FileHandle;
import io.rdmagate.vfs.VfsException;
import io.rdmagate.vfs.state.Conflict;
import io.rdmagate.vfs.state.ForeignChanges;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Changes other processes make to the files of a local export, from fanotify(7): an inode mark on
 * each watched file (FAN_MODIFY, FAN_ATTRIB, FAN_MOVE_SELF, FAN_DELETE_SELF), events naming files
 * by file handle, and the event's pid telling the gateway's own changes (its pid) from everyone
 * else's (another pid, or 0 where an unprivileged listener is not told). Exact where a change
 * feed of directories can only guess: a write by the gateway never looks foreign.
 *
 * <p>Operation: {@link #watch} keeps an O_PATH descriptor of the file (through which its mark is
 * removed again, wherever the file has been renamed to) and its handle; one platform thread per
 * volume polls the group and hands each foreign change to the file's sinks, which do not block.
 * A lost queue (FAN_Q_OVERFLOW) is reported to every sink. Latency: the kernel queues the event
 * as the write returns; the thread is woken at once.
 *
 * <p>Where fanotify is unavailable (a kernel before 5.13 without CAP_SYS_ADMIN, a seccomp profile
 * that forbids it, a filesystem without file handles), watches are accepted and report nothing,
 * and the volume logs once why. A shortage that can pass (the user's fanotify groups, set by
 * {@code fs.fanotify.max_user_groups}, all taken; no memory) is tried again at the next watch.
 * {@link #status} says which, and what the group has seen.
 */
final class ForeignWrites implements ForeignChanges, AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ForeignWrites.class);
    private static final long MASK = Fanotify.FAN_MODIFY | Fanotify.FAN_ATTRIB | Fanotify.FAN_MOVE_SELF
            | Fanotify.FAN_DELETE_SELF;
    private static final Watch NOTHING = () -> { };
    private static final int SELF = Fanotify.getpid();

    /** Opens an O_PATH descriptor of a file by handle (STALE when it is gone). */
    interface Resolver {
        Fd open(FileHandle file) throws VfsException;
    }

    private final int volumeId;
    private final Resolver resolver;
    /** Watched files by handle (handle type and bytes), guarded by this. */
    private final Map<ByteBuffer, Watched> files = new HashMap<>();
    private int group = -1;
    private int wake = -1;
    private boolean closed;
    /** Why fanotify cannot be had here for good, or null. */
    private String unavailable;
    /** Why the last attempt to create the group failed, when it may work later, or null. */
    private String shortage;
    private long watchFailures;
    private String lastWatchFailure;
    /** Events read, written by the polling thread only. */
    private volatile long events;
    private volatile long ownEvents;
    private volatile long unmatchedEvents;
    private volatile long overflows;
    /** Why the polling thread ended before the volume closed, or null. */
    private volatile String ended;

    private static final class Watched {
        final Fd fd;
        final ByteBuffer key;
        final List<Consumer<Conflict>> sinks = new ArrayList<>(1);

        Watched(Fd fd, ByteBuffer key) {
            this.fd = fd;
            this.key = key;
        }
    }

    ForeignWrites(int volumeId, Resolver resolver) {
        this.volumeId = volumeId;
        this.resolver = resolver;
    }

    @Override
    public Watch watch(FileHandle file, Consumer<Conflict> sink) throws VfsException {
        synchronized (this) {
            if (closed || unavailable != null) {
                return NOTHING;
            }
        }
        Fd f;
        try {
            f = resolver.open(file);
        } catch (VfsException e) {
            watchFailed(file, e.getMessage());
            throw e;
        }
        try (Arena a = Arena.ofConfined()) {
            String path = Libc.procPath(f.fd());
            ByteBuffer key = ByteBuffer.wrap(Fanotify.handle(a, path));
            synchronized (this) {
                if (closed || !started(a)) {
                    return NOTHING;
                }
                Watched w = files.get(key);
                if (w == null) {
                    Fanotify.mark(a, group, Fanotify.FAN_MARK_ADD, MASK, path);
                    w = new Watched(f, key);
                    files.put(key, w);
                    f = null; // the watch keeps it
                }
                w.sinks.add(sink);
                Watched watched = w;
                return () -> unwatch(watched, sink);
            }
        } catch (Libc.Errno e) {
            watchFailed(file, e.getMessage());
            return NOTHING;
        } finally {
            if (f != null) {
                f.close();
            }
        }
    }

    private void watchFailed(FileHandle file, String why) {
        boolean first;
        synchronized (this) {
            first = watchFailures++ == 0;
            lastWatchFailure = why;
        }
        if (first) {
            LOG.warn("volume {}: changes of file {} by other processes not watched: {} (further failures are logged"
                    + " at debug)", volumeId, file, why);
        } else {
            LOG.debug("volume {}: changes of file {} by other processes not watched: {}", volumeId, file, why);
        }
    }

    private synchronized void unwatch(Watched w, Consumer<Conflict> sink) {
        if (!w.sinks.remove(sink) || !w.sinks.isEmpty() || files.get(w.key) != w) {
            return;
        }
        files.remove(w.key);
        if (!closed) {
            try (Arena a = Arena.ofConfined()) {
                Fanotify.mark(a, group, Fanotify.FAN_MARK_REMOVE, MASK, Libc.procPath(w.fd.fd()));
            } catch (Libc.Errno gone) {
                // the inode's mark went with it
            }
        }
        w.fd.close();
    }

    /**
     * Creates the group and its thread on first use; false where fanotify cannot be had, for good
     * (logged once) or for now (a shortage, logged when it begins and tried again next time).
     */
    private boolean started(Arena a) {
        if (group >= 0) {
            return true;
        }
        int g = -1;
        try {
            g = Fanotify.init(a, Fanotify.FAN_CLOEXEC | Fanotify.FAN_NONBLOCK | Fanotify.FAN_REPORT_FID);
            wake = Fanotify.eventfd(a);
            group = g;
        } catch (Libc.Errno e) {
            Libc.close(g);
            if (e.errno == Libc.EMFILE || e.errno == Libc.ENFILE || e.errno == Libc.ENOMEM) {
                if (shortage == null) {
                    LOG.warn("volume {}: changes that other processes make to files are not watched for now ({});"
                            + " the user's fanotify groups are limited by fs.fanotify.max_user_groups; tried again"
                            + " at the next file a client caches", volumeId, e.getMessage());
                }
                shortage = e.getMessage();
                return false;
            }
            return unavailable(e.getMessage());
        } catch (IllegalStateException e) {
            Libc.close(g);
            return unavailable(e.getMessage());
        }
        shortage = null;
        int fanotify = group;
        int w = wake;
        Thread.ofPlatform().daemon().name("vfs-fanotify-" + volumeId).start(() -> poll(fanotify, w));
        return true;
    }

    private boolean unavailable(String why) {
        unavailable = why;
        LOG.info("volume {}: changes that other processes make to files are not watched ({}); SMB clients"
                + " learn of them when they reopen the file", volumeId, why);
        return false;
    }

    @Override
    public synchronized String status() {
        if (unavailable != null) {
            return "fanotify unavailable: " + unavailable;
        }
        StringBuilder b = new StringBuilder();
        String e = ended;
        b.append(e != null ? "fanotify thread ended: " + e : group >= 0 ? "fanotify group open"
                : shortage != null ? "fanotify group not created: " + shortage : "fanotify group not created yet");
        b.append("; files watched ").append(files.size())
                .append("; events read ").append(events)
                .append(" (own ").append(ownEvents)
                .append(", of unwatched files ").append(unmatchedEvents)
                .append(", overflows ").append(overflows).append(')');
        if (watchFailures > 0) {
            b.append("; watches failed ").append(watchFailures).append(", last: ").append(lastWatchFailure);
        }
        return b.toString();
    }

    private void poll(int g, int w) {
        try (Arena buffers = Arena.ofConfined()) {
            MemorySegment buf = buffers.allocate(64 * 1024, 8);
            while (true) {
                long n;
                try (Arena a = Arena.ofConfined()) {
                    int ready = Fanotify.pollIn(a, g, w);
                    if ((ready & Fanotify.POLL_INVALID) != 0) {
                        ended = "a descriptor of the group was closed under it";
                        LOG.error("volume {}: {}; changes of other processes are no longer seen", volumeId, ended);
                        return;
                    }
                    if ((ready & 2) != 0) {
                        return;
                    }
                    if ((ready & 1) == 0) {
                        continue;
                    }
                    n = Fanotify.read(a, g, buf);
                } catch (Libc.Errno e) {
                    if (e.errno == Libc.EINTR || e.errno == Libc.EAGAIN) {
                        continue;
                    }
                    ended = e.getMessage();
                    LOG.warn("volume {}: the fanotify group failed; changes of other processes are no longer seen: {}",
                            volumeId, ended);
                    return;
                }
                events(buf, n);
            }
        } catch (RuntimeException | Error e) {
            ended = e.toString();
            LOG.error("volume {}: the fanotify thread ended", volumeId, e);
        } finally {
            Libc.close(g);
            Libc.close(w);
        }
    }

    /** Parses {@code n} bytes of struct fanotify_event_metadata records with their FID information. */
    private void events(MemorySegment buf, long n) {
        long off = 0;
        while (off + Fanotify.METADATA_LEN <= n) {
            int len = buf.get(ValueLayout.JAVA_INT_UNALIGNED, off);
            int vers = buf.get(ValueLayout.JAVA_BYTE, off + 4);
            int metaLen = Short.toUnsignedInt(buf.get(ValueLayout.JAVA_SHORT_UNALIGNED, off + 6));
            long mask = buf.get(ValueLayout.JAVA_LONG_UNALIGNED, off + 8);
            int fd = buf.get(ValueLayout.JAVA_INT_UNALIGNED, off + 16);
            int pid = buf.get(ValueLayout.JAVA_INT_UNALIGNED, off + 20);
            if (vers != Fanotify.FANOTIFY_METADATA_VERSION || len < metaLen || metaLen < Fanotify.METADATA_LEN
                    || off + len > n) {
                LOG.warn("volume {}: unexpected fanotify record (version {}, length {})", volumeId, vers, len);
                return;
            }
            if (fd >= 0) {
                Libc.close(fd);
            }
            events++;
            if ((mask & Fanotify.FAN_Q_OVERFLOW) != 0) {
                overflows++;
                everyone();
            } else if (pid == SELF) {
                ownEvents++;
            } else {
                ByteBuffer key = handle(buf, off + metaLen, off + len);
                if (key == null || !report(key, mask)) {
                    unmatchedEvents++;
                }
            }
            off += len;
        }
    }

    /** The handle (type and bytes) of the first FID record in [from, to), or null. */
    private static ByteBuffer handle(MemorySegment buf, long from, long to) {
        long p = from;
        while (p + 4 <= to) {
            int type = buf.get(ValueLayout.JAVA_BYTE, p);
            int len = Short.toUnsignedInt(buf.get(ValueLayout.JAVA_SHORT_UNALIGNED, p + 2));
            if (len < 4 || p + len > to) {
                return null;
            }
            // struct fanotify_event_info_fid: header (4), fsid (8), struct file_handle (bytes u32, type s32, f_handle)
            if (type == Fanotify.FAN_EVENT_INFO_TYPE_FID && len >= 20) {
                long bytes = Integer.toUnsignedLong(buf.get(ValueLayout.JAVA_INT_UNALIGNED, p + 12));
                if (20 + bytes > len) {
                    return null;
                }
                return ByteBuffer.wrap(buf.asSlice(p + 16, 4 + bytes).toArray(ValueLayout.JAVA_BYTE));
            }
            p += len;
        }
        return null;
    }

    /** Hands the change to the sinks of the file {@code key} names; false when no file is watched by it. */
    private boolean report(ByteBuffer key, long mask) {
        List<Consumer<Conflict>> sinks;
        synchronized (this) {
            Watched w = files.get(key);
            if (w == null) {
                return false;
            }
            sinks = List.copyOf(w.sinks);
        }
        for (Consumer<Conflict> s : sinks) {
            if ((mask & (Fanotify.FAN_MODIFY | Fanotify.FAN_ATTRIB)) != 0) {
                s.accept(Conflict.WRITE);
            }
            if ((mask & (Fanotify.FAN_MOVE_SELF | Fanotify.FAN_DELETE_SELF)) != 0) {
                s.accept(Conflict.NAMESPACE);
            }
        }
        return true;
    }

    private void everyone() {
        List<Consumer<Conflict>> sinks = new ArrayList<>();
        synchronized (this) {
            files.values().forEach(w -> sinks.addAll(w.sinks));
        }
        LOG.info("volume {}: the fanotify queue overflowed; every watched file counts as changed", volumeId);
        for (Consumer<Conflict> s : sinks) {
            s.accept(Conflict.WRITE);
            s.accept(Conflict.NAMESPACE);
        }
    }

    @Override
    public void close() {
        List<Watched> all;
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            all = new ArrayList<>(files.values());
            files.clear();
            if (wake >= 0) {
                try (Arena a = Arena.ofConfined()) {
                    Fanotify.signal(a, wake); // the thread closes the group and the eventfd
                }
            }
        }
        all.forEach(w -> w.fd.close());
    }
}
