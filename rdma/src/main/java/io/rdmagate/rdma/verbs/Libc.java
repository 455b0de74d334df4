package io.rdmagate.rdma.verbs;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;

/**
 * The few C library calls the provider's event threads need to wait on a completion channel or an
 * rdma_cm event channel and still be woken for shutdown: {@code poll(2)} on the channel's fd and an
 * {@code eventfd(2)}, and the reads, writes and closes of that eventfd. From the linker's default
 * lookup (the process's libc); errno is captured where the caller looks at it. {@code fcntl(2)}
 * makes the channels' fds non-blocking.
 */
final class Libc {
    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT;
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG;
    private static final ValueLayout PTR = ValueLayout.ADDRESS;
    private static Libc instance;

    // struct pollfd (8 bytes): fd, events, revents; nfds_t is unsigned long (checked with sizeof)
    static final long POLLFD_BYTES = 8;
    static final long POLLFD_FD = 0;
    static final long POLLFD_EVENTS = 4;
    static final long POLLFD_REVENTS = 6;
    static final short POLLIN = 1;
    static final int EFD_NONBLOCK = 0x800;
    static final int EFD_CLOEXEC = 0x80000;
    static final int EINTR = 4;
    static final int EAGAIN = 11;
    static final int F_GETFL = 3;
    static final int F_SETFL = 4;
    static final int O_NONBLOCK = 0x800;

    /** {@code int poll(struct pollfd *fds, nfds_t nfds, int timeout)}; errno captured. */
    final MethodHandle poll;
    /** {@code int eventfd(unsigned int initval, int flags)}; errno captured. */
    final MethodHandle eventfd;
    /** {@code ssize_t read(int fd, void *buf, size_t count)}. */
    final MethodHandle read;
    /** {@code ssize_t write(int fd, const void *buf, size_t count)}. */
    final MethodHandle write;
    /** {@code int close(int fd)}. */
    final MethodHandle close;
    /** {@code int fcntl(int fd, int cmd, ...)} with one int argument (variadic from the third). */
    final MethodHandle fcntl;

    private Libc(SymbolLookup lib) throws VerbsUnavailableException {
        Linker.Option errno = Linker.Option.captureCallState("errno");
        poll = Linker.nativeLinker().downcallHandle(find(lib, "poll"), FunctionDescriptor.of(INT, PTR, LONG, INT), errno);
        eventfd = Linker.nativeLinker().downcallHandle(find(lib, "eventfd"), FunctionDescriptor.of(INT, INT, INT), errno);
        read = Linker.nativeLinker().downcallHandle(find(lib, "read"), FunctionDescriptor.of(LONG, INT, PTR, LONG));
        write = Linker.nativeLinker().downcallHandle(find(lib, "write"), FunctionDescriptor.of(LONG, INT, PTR, LONG));
        close = Linker.nativeLinker().downcallHandle(find(lib, "close"), FunctionDescriptor.of(INT, INT));
        fcntl = Linker.nativeLinker().downcallHandle(find(lib, "fcntl"), FunctionDescriptor.of(INT, INT, INT, INT),
                Linker.Option.firstVariadicArg(2));
    }

    /**
     * Puts {@code fd} in non-blocking mode, so that {@code ibv_get_cq_event} and {@code rdma_get_cm_event}
     * return EAGAIN instead of blocking when there is nothing (the non-blocking use man ibv_get_cq_event
     * shows; man rdma_get_cm_event: "The default synchronous behavior of this routine can be changed by
     * modifying the file descriptor associated with the given channel").
     */
    void nonBlocking(int fd) throws VerbsUnavailableException {
        try {
            int flags = (int) fcntl.invokeExact(fd, F_GETFL, 0);
            if (flags < 0 || (int) fcntl.invokeExact(fd, F_SETFL, flags | O_NONBLOCK) < 0) {
                throw new VerbsUnavailableException("fcntl(" + fd + ", O_NONBLOCK) failed");
            }
        } catch (VerbsUnavailableException e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException("fcntl", t);
        }
    }

    static synchronized Libc get() throws VerbsUnavailableException {
        if (instance == null) {
            instance = new Libc(Linker.nativeLinker().defaultLookup());
        }
        return instance;
    }

    private static MemorySegment find(SymbolLookup lib, String name) throws VerbsUnavailableException {
        return lib.find(name).orElseThrow(() -> new VerbsUnavailableException("the C library has no " + name));
    }
}
