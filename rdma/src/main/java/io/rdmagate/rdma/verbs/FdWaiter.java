package io.rdmagate.rdma.verbs;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Waits until a file descriptor is readable or another thread wakes the waiter: {@code poll(2)} on
 * the fd and on an {@code eventfd(2)} of its own. The completion poller waits on its completion
 * channel's fd (man ibv_get_cq_event shows polling that fd), an rdma_cm event loop on its event
 * channel's fd (man rdma_get_cm_event: the channel's fd may be used as any other); both are
 * woken to run queued work or to stop, which a thread blocked inside {@code ibv_get_cq_event} or
 * {@code rdma_get_cm_event} could not be.
 *
 * <p>Operation: one thread calls {@link #await} (it owns the poll set and the read buffer); any
 * thread calls {@link #wake} (it writes a constant 1 to the eventfd: the counter makes concurrent
 * wakes one). The owner closes it after its thread has stopped; a wake after that is ignored.
 */
final class FdWaiter implements AutoCloseable {
    /** {@link #await} result bit: the watched fd is readable (or in error: the next read says which). */
    static final int READABLE = 1;
    /** {@link #await} result bit: {@link #wake} was called since the last wait. */
    static final int WOKEN = 2;

    private final Libc libc;
    private final Arena arena = Arena.ofShared();
    private final MemorySegment pollfds;
    private final MemorySegment counter;
    private final MemorySegment one;
    private final MemorySegment errno;
    private final int eventFd;
    /** Guarded by this: a closed eventfd's number may already be another file's. */
    private boolean closed;

    FdWaiter(int fd) throws VerbsUnavailableException {
        this.libc = Libc.get();
        this.pollfds = arena.allocate(2 * Libc.POLLFD_BYTES, 8);
        this.counter = arena.allocate(8, 8);
        this.one = arena.allocate(8, 8);
        this.one.set(ValueLayout.JAVA_LONG, 0, 1L);
        this.errno = Libibverbs.errnoBuffer(arena);
        int efd;
        try {
            efd = (int) libc.eventfd.invokeExact(errno, 0, Libc.EFD_NONBLOCK | Libc.EFD_CLOEXEC);
        } catch (Throwable t) {
            throw new IllegalStateException("eventfd", t);
        }
        if (efd < 0) {
            arena.close();
            throw new VerbsUnavailableException("eventfd failed: errno " + Libibverbs.errno(errno));
        }
        this.eventFd = efd;
        pollfds.set(ValueLayout.JAVA_INT, Libc.POLLFD_FD, fd);
        pollfds.set(ValueLayout.JAVA_SHORT, Libc.POLLFD_EVENTS, Libc.POLLIN);
        pollfds.set(ValueLayout.JAVA_INT, Libc.POLLFD_BYTES + Libc.POLLFD_FD, efd);
        pollfds.set(ValueLayout.JAVA_SHORT, Libc.POLLFD_BYTES + Libc.POLLFD_EVENTS, Libc.POLLIN);
    }

    /** Blocks until the fd is readable or a wake; {@link #READABLE} and/or {@link #WOKEN}. Owner thread only. */
    int await() {
        try {
            while (true) {
                pollfds.set(ValueLayout.JAVA_SHORT, Libc.POLLFD_REVENTS, (short) 0);
                pollfds.set(ValueLayout.JAVA_SHORT, Libc.POLLFD_BYTES + Libc.POLLFD_REVENTS, (short) 0);
                int rc = (int) libc.poll.invokeExact(errno, pollfds, 2L, -1);
                if (rc < 0) {
                    int e = Libibverbs.errno(errno);
                    if (e == Libc.EINTR) {
                        continue;
                    }
                    throw new IllegalStateException("poll failed: errno " + e);
                }
                int result = 0;
                if (pollfds.get(ValueLayout.JAVA_SHORT, Libc.POLLFD_REVENTS) != 0) {
                    result |= READABLE;
                }
                if (pollfds.get(ValueLayout.JAVA_SHORT, Libc.POLLFD_BYTES + Libc.POLLFD_REVENTS) != 0) {
                    long n = (long) libc.read.invokeExact(eventFd, counter, 8L); // resets the counter
                    assert n == 8 || n < 0;
                    result |= WOKEN;
                }
                if (result != 0) {
                    return result;
                }
            }
        } catch (IllegalStateException e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException("poll", t);
        }
    }

    /**
     * Stops watching the fd (poll(2) skips a negative fd): for a channel whose reads fail for good,
     * so that its owner neither spins on an fd that stays readable nor sleeps to avoid it, and still
     * wakes for {@link #wake}. Owner thread only.
     */
    void ignoreFd() {
        pollfds.set(ValueLayout.JAVA_INT, Libc.POLLFD_FD, -1);
    }

    /** Makes the owner's current or next {@link #await} return with {@link #WOKEN}. Any thread. */
    synchronized void wake() {
        if (closed) {
            return;
        }
        try {
            long n = (long) libc.write.invokeExact(eventFd, one, 8L);
            assert n == 8 || n < 0; // EAGAIN only when the counter is at its maximum: it is awake anyway
        } catch (Throwable t) {
            throw new IllegalStateException("eventfd write", t);
        }
    }

    /** Closes the eventfd; only once the owner thread no longer waits. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        try {
            int rc = (int) libc.close.invokeExact(eventFd);
            assert rc == 0;
        } catch (Throwable t) {
            throw new IllegalStateException("close", t);
        } finally {
            arena.close();
        }
    }
}
