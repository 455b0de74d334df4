package io.rdmagate.vfs.local;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;

/**
 * The fanotify(7) calls of {@link ForeignWrites}, through {@code java.lang.foreign}: a
 * notification group reporting file identifiers (FAN_REPORT_FID, Linux 5.1; allowed without
 * CAP_SYS_ADMIN since 5.13 for inode marks), inode marks, and the file handles
 * ({@code name_to_handle_at}) that events name files by.
 */
final class Fanotify {
    static final int FAN_CLOEXEC = 0x1;
    static final int FAN_NONBLOCK = 0x2;
    static final int FAN_REPORT_FID = 0x200;
    static final int FAN_MARK_ADD = 0x1;
    static final int FAN_MARK_REMOVE = 0x2;
    static final long FAN_MODIFY = 0x2;
    static final long FAN_ATTRIB = 0x4;
    static final long FAN_DELETE_SELF = 0x400;
    static final long FAN_MOVE_SELF = 0x800;
    static final long FAN_Q_OVERFLOW = 0x4000;
    static final int FAN_EVENT_INFO_TYPE_FID = 1;
    /** struct fanotify_event_metadata: event_len u32, vers u8, reserved u8, metadata_len u16, mask u64, fd s32, pid s32. */
    static final int METADATA_LEN = 24;
    static final int FANOTIFY_METADATA_VERSION = 3;
    static final int AT_HANDLE_FID = 0x200;
    static final int MAX_HANDLE_SZ = 128;
    static final short POLLIN = 1;
    static final short POLLERR = 0x8;
    static final short POLLNVAL = 0x20;
    /** A bit of {@link #pollIn}'s answer: one of the descriptors is not open (POLLNVAL) or failed (POLLERR). */
    static final int POLL_INVALID = 1 << 30;
    static final int EFD_CLOEXEC = 02000000;

    private static final ValueLayout.OfInt I = ValueLayout.JAVA_INT;
    private static final ValueLayout.OfLong L = ValueLayout.JAVA_LONG;
    private static final ValueLayout A = ValueLayout.ADDRESS;
    private static final MethodHandle INIT = Libc.fn("fanotify_init", FunctionDescriptor.of(I, I, I), -1);
    private static final MethodHandle MARK = Libc.fn("fanotify_mark", FunctionDescriptor.of(I, I, I, L, I, A), -1);
    private static final MethodHandle NAME_TO_HANDLE_AT = Libc.fn("name_to_handle_at",
            FunctionDescriptor.of(I, I, A, A, A, I), -1);
    private static final MethodHandle READ = Libc.fn("read", FunctionDescriptor.of(L, I, A, L), -1);
    private static final MethodHandle WRITE = Libc.fn("write", FunctionDescriptor.of(L, I, A, L), -1);
    private static final MethodHandle POLL = Libc.fn("poll", FunctionDescriptor.of(I, A, L, I), -1);
    private static final MethodHandle EVENTFD = Libc.fn("eventfd", FunctionDescriptor.of(I, I, I), -1);
    private static final MethodHandle GETPID = Libc.fn("getpid", FunctionDescriptor.of(I), -1);

    private Fanotify() {
    }

    static int init(Arena a, int flags) throws Libc.Errno {
        MemorySegment st = a.allocate(Libc.CAPTURE);
        try {
            return (int) Libc.check((int) INIT.invokeExact(st, flags, Libc.O_RDONLY | Libc.O_CLOEXEC), st, "fanotify_init");
        } catch (Libc.Errno e) {
            throw e;
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }

    /** Adds or removes ({@code flags}) the {@code mask} events of the inode {@code path} names. */
    static void mark(Arena a, int group, int flags, long mask, String path) throws Libc.Errno {
        MemorySegment st = a.allocate(Libc.CAPTURE);
        try {
            Libc.check((int) MARK.invokeExact(st, group, flags, mask, Libc.AT_FDCWD, Libc.cstr(a, path)), st,
                    "fanotify_mark " + path);
        } catch (Libc.Errno e) {
            throw e;
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }

    /**
     * The file handle of the inode {@code path} names, as fanotify reports it: handle type (4
     * bytes, little-endian as the kernel lays it out) followed by the handle's bytes.
     */
    static byte[] handle(Arena a, String path) throws Libc.Errno {
        try {
            return handle(a, path, 0);
        } catch (Libc.Errno e) {
            if (e.errno != Libc.EOPNOTSUPP) {
                throw e;
            }
            return handle(a, path, AT_HANDLE_FID); // Linux 6.5: a handle that only identifies
        }
    }

    private static byte[] handle(Arena a, String path, int flags) throws Libc.Errno {
        MemorySegment st = a.allocate(Libc.CAPTURE);
        MemorySegment fh = a.allocate(8 + MAX_HANDLE_SZ, 4);
        fh.set(I, 0, MAX_HANDLE_SZ);
        MemorySegment mountId = a.allocate(I);
        try {
            Libc.check((int) NAME_TO_HANDLE_AT.invokeExact(st, Libc.AT_FDCWD, Libc.cstr(a, path), fh, mountId,
                    flags | Libc.AT_SYMLINK_FOLLOW), st, "name_to_handle_at " + path);
        } catch (Libc.Errno e) {
            throw e;
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
        int bytes = fh.get(I, 0);
        return fh.asSlice(4, 4 + bytes).toArray(ValueLayout.JAVA_BYTE);
    }

    static long read(Arena a, int fd, MemorySegment buf) throws Libc.Errno {
        MemorySegment st = a.allocate(Libc.CAPTURE);
        try {
            return Libc.check((long) READ.invokeExact(st, fd, buf, buf.byteSize()), st, "read fanotify");
        } catch (Libc.Errno e) {
            throw e;
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }

    /**
     * Waits until one of {@code fds} is readable; returns a bit per readable descriptor, and
     * {@link #POLL_INVALID} when one of them is closed or failed.
     */
    static int pollIn(Arena a, int... fds) throws Libc.Errno {
        MemorySegment st = a.allocate(Libc.CAPTURE);
        MemorySegment pfds = a.allocate(8L * fds.length, 4);
        for (int i = 0; i < fds.length; i++) {
            pfds.set(I, 8L * i, fds[i]);
            pfds.set(ValueLayout.JAVA_SHORT, 8L * i + 4, POLLIN);
        }
        try {
            Libc.check((int) POLL.invokeExact(st, pfds, (long) fds.length, -1), st, "poll");
        } catch (Libc.Errno e) {
            throw e;
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
        int ready = 0;
        for (int i = 0; i < fds.length; i++) {
            short revents = pfds.get(ValueLayout.JAVA_SHORT, 8L * i + 6);
            if ((revents & (POLLNVAL | POLLERR)) != 0) {
                ready |= POLL_INVALID;
            } else if ((revents & POLLIN) != 0) {
                ready |= 1 << i;
            }
        }
        return ready;
    }

    static int eventfd(Arena a) throws Libc.Errno {
        MemorySegment st = a.allocate(Libc.CAPTURE);
        try {
            return (int) Libc.check((int) EVENTFD.invokeExact(st, 0, EFD_CLOEXEC), st, "eventfd");
        } catch (Libc.Errno e) {
            throw e;
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }

    /** Adds one to an eventfd counter, waking its poller. */
    static void signal(Arena a, int eventfd) {
        MemorySegment one = a.allocate(L);
        one.set(L, 0, 1L);
        try {
            long r = (long) WRITE.invokeExact(a.allocate(Libc.CAPTURE), eventfd, one, 8L);
            assert r == 8 || r == -1;
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }

    static int getpid() {
        try (Arena a = Arena.ofConfined()) {
            return (int) GETPID.invokeExact(a.allocate(Libc.CAPTURE));
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }
}
