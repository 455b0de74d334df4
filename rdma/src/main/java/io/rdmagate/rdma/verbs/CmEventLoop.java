package io.rdmagate.rdma.verbs;

import io.rdmagate.rdma.RdmaException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One rdma_cm event channel and the one thread that reads it (rdma_cm(7): every id reports its
 * events on its channel; man rdma_get_cm_event). A listener has its own loop (its listening id and
 * every connection it accepts: a connect request's new id is on the listener's channel); the
 * device has one for the connections it initiates.
 *
 * <p>Operation: the thread waits until the channel's fd is readable ({@link FdWaiter}; the fd is
 * non-blocking), then takes every pending event: it copies the event ({@link CmEvent}, private data
 * included), acks it at once (so that {@code rdma_destroy_id}, which waits for the acks of an id's
 * events, never waits on this thread), and hands the copy to the {@link Endpoint} registered for
 * the event's id: for a connect request, the listening id's. Endpoints run on this thread and never
 * wait for another thread that makes rdma_cm calls.
 *
 * <p>Lifetime: the channel must outlive its ids ({@code rdma_destroy_id} writes to it), so the loop
 * counts the ids living on it and, once {@link #closeWhenIdle} was called, stops and destroys the
 * channel when the last is destroyed.
 */
final class CmEventLoop {
    private static final Logger log = LoggerFactory.getLogger(CmEventLoop.class);

    /** Who handles the events of one rdma_cm_id. */
    interface Endpoint {
        void onCmEvent(CmEvent event);
    }

    private final Librdmacm cm;
    private final String name;
    private final MemorySegment channel;
    private final FdWaiter waiter;
    private final Map<Long, Endpoint> endpoints = new ConcurrentHashMap<>();
    private final AtomicInteger liveIds = new AtomicInteger();
    private final Thread thread;
    private volatile boolean closing;

    private CmEventLoop(Librdmacm cm, String name, MemorySegment channel, FdWaiter waiter) {
        this.cm = cm;
        this.name = name;
        this.channel = channel;
        this.waiter = waiter;
        this.thread = Thread.ofPlatform().daemon().name("rdma-cm-" + name).unstarted(this::run);
    }

    /** A new channel and its thread. */
    static CmEventLoop open(String name) throws VerbsUnavailableException {
        Librdmacm cm = Librdmacm.get();
        MemorySegment channel;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment errno = Libibverbs.errnoBuffer(arena);
            channel = (MemorySegment) cm.createEventChannel.invokeExact(errno);
            if (channel.equals(MemorySegment.NULL)) {
                int e = Libibverbs.errno(errno);
                throw new VerbsUnavailableException("rdma_create_event_channel failed: errno " + e
                        + " (is rdma_ucm loaded and /dev/infiniband/rdma_cm accessible?)");
            }
        } catch (VerbsUnavailableException e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException("rdma_create_event_channel", t);
        }
        channel = channel.reinterpret(RdmaCmAbi.CHANNEL_BYTES);
        int fd = channel.get(ValueLayout.JAVA_INT, RdmaCmAbi.CHANNEL_FD);
        FdWaiter waiter = null;
        try {
            Libc.get().nonBlocking(fd);
            waiter = new FdWaiter(fd);
        } catch (VerbsUnavailableException e) {
            destroyChannel(cm, channel);
            throw e;
        }
        CmEventLoop loop = new CmEventLoop(cm, name, channel, waiter);
        loop.thread.start();
        return loop;
    }

    boolean onLoopThread() {
        return Thread.currentThread() == thread;
    }

    /** A new RDMA_PS_TCP id on this channel, its events going to {@code endpoint}. Any thread. */
    MemorySegment createId(Endpoint endpoint) throws RdmaException {
        if (closing) {
            throw new RdmaException("rdma_cm channel " + name + " is closing");
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment errno = Libibverbs.errnoBuffer(arena);
            MemorySegment out = arena.allocate(ValueLayout.ADDRESS);
            int rc = (int) cm.createId.invokeExact(errno, channel, out, MemorySegment.NULL, RdmaCmAbi.PS_TCP);
            if (rc != 0) {
                throw new RdmaException("rdma_create_id failed: errno " + Libibverbs.errno(errno));
            }
            MemorySegment id = out.get(ValueLayout.ADDRESS, 0).reinterpret(RdmaCmAbi.ID_BYTES);
            liveIds.incrementAndGet();
            endpoints.put(id.address(), endpoint);
            return id;
        } catch (RdmaException e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException("rdma_create_id", t);
        }
    }

    /** Routes the events of {@code id} (already counted on this channel) to {@code endpoint}. */
    void register(MemorySegment id, Endpoint endpoint) {
        endpoints.put(id.address(), endpoint);
    }

    /**
     * Destroys {@code id} (its QP must be destroyed already: man rdma_destroy_id). Blocks until this
     * loop has acked the id's reported events, which it does at once: never call from an endpoint
     * that holds an event unacked (none does).
     */
    void destroyId(MemorySegment id) {
        endpoints.remove(id.address());
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment errno = Libibverbs.errnoBuffer(arena);
            int rc = (int) cm.destroyId.invokeExact(errno, id);
            if (rc != 0) {
                log.warn("rdma_destroy_id on {} failed: errno {}", name, Libibverbs.errno(errno));
            }
        } catch (Throwable t) {
            throw new IllegalStateException("rdma_destroy_id", t);
        } finally {
            if (liveIds.decrementAndGet() == 0 && closing) {
                waiter.wake();
            }
        }
    }

    /** Stops the loop once every id on its channel is destroyed (now, if none is left). */
    void closeWhenIdle() {
        closing = true;
        waiter.wake();
    }

    private void run() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment errno = Libibverbs.errnoBuffer(arena);
            MemorySegment out = arena.allocate(ValueLayout.ADDRESS);
            while (!(closing && liveIds.get() == 0)) {
                if ((waiter.await() & FdWaiter.READABLE) != 0) {
                    drain(errno, out);
                }
            }
        } catch (RuntimeException | Error e) {
            log.error("rdma_cm event loop {} failed; its connections get no more events", name, e);
            return; // the channel stays: ids may still use it
        }
        destroyChannel(cm, channel);
        waiter.close();
    }

    /** Reads, copies, acks and dispatches every pending event. */
    private void drain(MemorySegment errno, MemorySegment out) {
        while (true) {
            int rc;
            try {
                rc = (int) cm.getCmEvent.invokeExact(errno, channel, out);
            } catch (Throwable t) {
                throw new IllegalStateException("rdma_get_cm_event", t);
            }
            if (rc != 0) {
                int e = Libibverbs.errno(errno);
                if (e != Libc.EAGAIN && e != Libc.EINTR) {
                    log.error("rdma_get_cm_event on {} failed: errno {}; its connections get no more events", name, e);
                    waiter.ignoreFd(); // a channel stuck in error must neither spin this thread nor put it to sleep
                }
                return;
            }
            MemorySegment raw = out.get(ValueLayout.ADDRESS, 0);
            CmEvent event = CmEvent.read(raw);
            try {
                int ack = (int) cm.ackCmEvent.invokeExact(errno, raw);
                assert ack == 0;
            } catch (Throwable t) {
                throw new IllegalStateException("rdma_ack_cm_event", t);
            }
            dispatch(event);
        }
    }

    private void dispatch(CmEvent event) {
        Endpoint endpoint;
        if (event.type() == RdmaCmAbi.CONNECT_REQUEST) {
            liveIds.incrementAndGet(); // the request's new id lives on this channel
            endpoint = endpoints.get(event.listenId());
            if (endpoint == null) {
                log.debug("{}: connect request for a listener already closed; refused", name);
                rejectAndDestroy(event.idSegment());
                return;
            }
        } else {
            endpoint = endpoints.get(event.id());
            if (endpoint == null) {
                log.debug("{}: {} for an id no longer served", name, event.describe());
                return;
            }
        }
        try {
            endpoint.onCmEvent(event);
        } catch (RuntimeException e) {
            log.error("{}: handling {} failed", name, event.describe(), e);
        }
    }

    /** Refuses a connect request nobody takes and destroys its id (it has no events to wait for). */
    void rejectAndDestroy(MemorySegment id) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment errno = Libibverbs.errnoBuffer(arena);
            int rc = (int) cm.reject.invokeExact(errno, id, MemorySegment.NULL, (byte) 0);
            if (rc != 0) {
                log.debug("rdma_reject failed: errno {}", Libibverbs.errno(errno));
            }
        } catch (Throwable t) {
            throw new IllegalStateException("rdma_reject", t);
        }
        destroyId(id);
    }

    private static void destroyChannel(Librdmacm cm, MemorySegment channel) {
        try (Arena arena = Arena.ofConfined()) {
            cm.destroyEventChannel.invokeExact(Libibverbs.errnoBuffer(arena), channel);
        } catch (Throwable t) {
            throw new IllegalStateException("rdma_destroy_event_channel", t);
        }
    }
}
