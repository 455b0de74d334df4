package io.rdmagate.vfs.local;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;

/**
 * The inotify(7) calls of {@link HostChanges}, through {@code java.lang.foreign}. Events are read
 * by the caller from a non-blocking descriptor, so a reader can take every event the kernel has
 * queued so far at a moment of its choosing (the kernel queues an event inside the system call
 * that caused it).
 */
final class Inotify {
    static final int IN_NONBLOCK = 04000;
    static final int IN_CLOEXEC = 02000000;
    static final int IN_ATTRIB = 0x4;
    static final int IN_MODIFY = 0x2;
    static final int IN_MOVED_FROM = 0x40;
    static final int IN_MOVED_TO = 0x80;
    static final int IN_CREATE = 0x100;
    static final int IN_DELETE = 0x200;
    static final int IN_DELETE_SELF = 0x400;
    static final int IN_MOVE_SELF = 0x800;
    static final int IN_Q_OVERFLOW = 0x4000;
    static final int IN_IGNORED = 0x8000;
    static final int IN_ONLYDIR = 0x01000000;
    static final int IN_EXCL_UNLINK = 0x04000000;
    /** struct inotify_event: wd s32, mask u32, cookie u32, len u32, then len bytes of NUL-padded name. */
    static final int EVENT_HEADER = 16;

    private static final ValueLayout.OfInt I = ValueLayout.JAVA_INT;
    private static final ValueLayout A = ValueLayout.ADDRESS;
    private static final MethodHandle INIT1 = Libc.fn("inotify_init1", FunctionDescriptor.of(I, I), -1);
    private static final MethodHandle ADD_WATCH = Libc.fn("inotify_add_watch", FunctionDescriptor.of(I, I, A, I), -1);
    private static final MethodHandle RM_WATCH = Libc.fn("inotify_rm_watch", FunctionDescriptor.of(I, I, I), -1);

    private Inotify() {
    }

    static int init(Arena a) throws Libc.Errno {
        MemorySegment st = a.allocate(Libc.CAPTURE);
        try {
            return (int) Libc.check((int) INIT1.invokeExact(st, IN_NONBLOCK | IN_CLOEXEC), st, "inotify_init1");
        } catch (Libc.Errno e) {
            throw e;
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }

    /** Watches the directory {@code path} names for {@code mask}; returns the watch descriptor. */
    static int addWatch(Arena a, int fd, String path, int mask) throws Libc.Errno {
        MemorySegment st = a.allocate(Libc.CAPTURE);
        try {
            return (int) Libc.check((int) ADD_WATCH.invokeExact(st, fd, Libc.cstr(a, path), mask), st,
                    "inotify_add_watch " + path);
        } catch (Libc.Errno e) {
            throw e;
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }

    /** Ends a watch; the kernel then queues IN_IGNORED for it. A watch already gone is no error. */
    static void rmWatch(Arena a, int fd, int wd) {
        try {
            int r = (int) RM_WATCH.invokeExact(a.allocate(Libc.CAPTURE), fd, wd);
            assert r == 0 || r == -1;
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }
}
