package io.rdmagate.vfs.local;

import io.rdmagate.vfs.lock.BackingLocks;
import io.rdmagate.vfs.lock.ByteRangeLock;
import io.rdmagate.vfs.lock.LockOwner;
import java.lang.foreign.Arena;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.function.LongToIntFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The gateway's granted byte-range locks as open file description locks on the backing files
 * (fcntl(2) F_OFD_SETLK): one open file description per lock owner and file, so owners stay
 * apart, and OFD locks conflict with every other process's fcntl and OFD locks. Called under the
 * {@link io.rdmagate.vfs.lock.LockManager}'s monitor; never blocks.
 *
 * <p>Operation: the owner's locks are flattened into segments (exclusive where any exclusive lock
 * covers a byte, else shared, else unlocked) and each segment is set as one F_OFD_SETLK, so a
 * range held before is never released on the way. When a segment is refused (EAGAIN: a process
 * outside holds it), the owner's previous segments are set again and the change is refused.
 * Offsets past 2^63-1 (SMB's unsigned range) cannot be expressed in off_t and stay the lock
 * table's alone; a range reaching past it is taken to the end of the file.
 */
final class OfdLocks implements BackingLocks {
    private static final Logger LOG = LoggerFactory.getLogger(OfdLocks.class);

    /** Opens a file for locking by its id: a descriptor, or -1 when it cannot be opened. */
    private final LongToIntFunction opener;
    private final Map<Long, Map<LockOwner, Held>> files = new HashMap<>();

    /** An owner's description of one file, and the segments set on it. */
    private record Held(int fd, List<Segment> segments) {
    }

    /** Bytes [start, end) (end 0: to the end of any file) with an fcntl lock type. */
    record Segment(long start, long end, int type) {
    }

    OfdLocks(LongToIntFunction opener) {
        this.opener = opener;
    }

    @Override
    public synchronized boolean sync(long fileId, LockOwner owner, List<ByteRangeLock> held) {
        Map<LockOwner, Held> owners = files.get(fileId);
        Held h = owners == null ? null : owners.get(owner);
        if (held.isEmpty()) {
            if (h != null) {
                Libc.close(h.fd()); // closing the description drops all its locks
                owners.remove(owner);
                if (owners.isEmpty()) {
                    files.remove(fileId);
                }
            }
            return true;
        }
        if (h == null) {
            int fd = opener.applyAsInt(fileId);
            if (fd < 0) {
                return true; // not a regular file we can open: the lock table alone decides
            }
            h = new Held(fd, List.of());
            files.computeIfAbsent(fileId, k -> new HashMap<>()).put(owner, h);
        }
        List<Segment> want = flatten(held);
        try (Arena a = Arena.ofConfined()) {
            if (apply(a, h.fd(), want)) {
                files.get(fileId).put(owner, new Held(h.fd(), want));
                return true;
            }
            if (h.segments().isEmpty()) {
                sync(fileId, owner, List.of()); // nothing was held: close the new description
            } else {
                apply(a, h.fd(), h.segments()); // segments cover the whole file: this undoes the new parts
            }
            return false;
        }
    }

    /** Sets each segment; false at the first one a process outside refuses. */
    private static boolean apply(Arena a, int fd, List<Segment> segments) {
        for (Segment s : segments) {
            if (s.start() < 0) {
                continue; // beyond off_t
            }
            long len = s.end() == 0 || s.end() < 0 ? 0 : s.end() - s.start();
            try {
                Libc.ofdSetlk(a, fd, s.type(), s.start(), len);
            } catch (Libc.Errno e) {
                if (e.errno == Libc.EAGAIN || e.errno == Libc.EACCES) {
                    return false;
                }
                LOG.debug("fcntl(F_OFD_SETLK) on descriptor {}: errno {}; the lock table alone decides", fd, e.errno);
            }
        }
        return true;
    }

    /**
     * The owner's locks as disjoint segments covering [0, end of any file): exclusive where an
     * exclusive lock covers a byte, shared where only shared ones do, unlocked between.
     */
    static List<Segment> flatten(List<ByteRangeLock> locks) {
        TreeSet<Long> cuts = new TreeSet<>(Long::compareUnsigned);
        cuts.add(0L);
        for (ByteRangeLock l : locks) {
            if (l.isZeroZero()) {
                continue;
            }
            cuts.add(l.offset());
            if (l.last() != -1L) {
                cuts.add(l.last() + 1);
            }
        }
        List<Segment> out = new ArrayList<>();
        Long[] points = cuts.toArray(new Long[0]);
        for (int i = 0; i < points.length; i++) {
            long start = points[i];
            long end = i + 1 < points.length ? points[i + 1] : 0; // 0: through the end
            int type = Libc.F_UNLCK;
            for (ByteRangeLock l : locks) {
                if (!l.isZeroZero() && Long.compareUnsigned(l.offset(), start) <= 0
                        && (l.last() == -1L || Long.compareUnsigned(l.last(), start) >= 0)) {
                    type = l.exclusive() ? Libc.F_WRLCK : type == Libc.F_WRLCK ? type : Libc.F_RDLCK;
                }
            }
            Segment prev = out.isEmpty() ? null : out.getLast();
            if (prev != null && prev.type() == type) {
                out.set(out.size() - 1, new Segment(prev.start(), end, type));
            } else {
                out.add(new Segment(start, end, type));
            }
        }
        return out;
    }

    @Override
    public boolean lockedOutside(long fileId, ByteRangeLock probe) {
        if (probe.isZeroZero() || probe.offset() < 0) {
            return false; // overlaps nothing, or beyond off_t
        }
        long len = probe.last() == -1L || probe.last() < 0 ? 0 : probe.last() - probe.offset() + 1;
        int type = probe.exclusive() ? Libc.F_WRLCK : Libc.F_RDLCK;
        int own;
        synchronized (this) {
            Map<LockOwner, Held> owners = files.get(fileId);
            Held h = owners == null ? null : owners.get(probe.owner());
            own = h == null ? -1 : h.fd(); // the owner's own description: its own locks never conflict
            if (own >= 0) {
                try (Arena a = Arena.ofConfined()) {
                    return Libc.ofdConflicts(a, own, type, probe.offset(), len);
                } catch (Libc.Errno e) {
                    return false;
                }
            }
        }
        int fd = opener.applyAsInt(fileId);
        if (fd < 0) {
            return false;
        }
        try (Arena a = Arena.ofConfined()) {
            return Libc.ofdConflicts(a, fd, type, probe.offset(), len);
        } catch (Libc.Errno e) {
            return false;
        } finally {
            Libc.close(fd);
        }
    }

    @Override
    public synchronized void forget(long fileId) {
        Map<LockOwner, Held> owners = files.remove(fileId);
        if (owners != null) {
            owners.values().forEach(h -> Libc.close(h.fd()));
        }
    }

    /** Closes every description (the export closes). */
    synchronized void closeAll() {
        files.values().forEach(m -> m.values().forEach(h -> Libc.close(h.fd())));
        files.clear();
    }
}
