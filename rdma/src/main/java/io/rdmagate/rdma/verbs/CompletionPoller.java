package io.rdmagate.rdma.verbs;

import io.rdmagate.rdma.CompletionHandler;
import io.rdmagate.rdma.WorkCompletion;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The device's completion channel and the one thread that serves every completion queue on it.
 *
 * <p>Operation (man ibv_get_cq_event, "Completion Handling Routine"): the thread waits until the
 * channel's fd is readable ({@link FdWaiter}; the fd is non-blocking), then for each event
 * {@code ibv_get_cq_event} names the CQ, {@code ibv_ack_cq_events} acks it, {@code req_notify_cq}
 * re-arms the CQ, and {@code poll_cq} empties it, {@value #BATCH} completions at a time, before the
 * next event: a completion that lands between arming and the last poll is polled now and its extra
 * event finds the CQ empty, as the man page allows. Each completion's wr_id names its queue pair and
 * slot ({@link WorkRequestRing}); the queue pair retires the slot and returns what to report, which
 * the CQ's handler gets on this thread. Synthetic completions ({@link VerbsCompletionQueue#offerSynthetic})
 * and CQ destruction are queued as tasks and run on this thread when it is woken, so one thread makes
 * every call on a CQ after its creation and every call of its handler.
 *
 * <p>Handlers never block (SPI); a slow one delays the device's other CQs, not their order.
 */
final class CompletionPoller {
    private static final Logger log = LoggerFactory.getLogger(CompletionPoller.class);
    /** Completions taken per poll_cq call. */
    static final int BATCH = 16;

    private final VerbsDevice device;
    private final MemorySegment channel;
    private final FdWaiter waiter;
    private final Map<Long, VerbsCompletionQueue> cqs = new ConcurrentHashMap<>();
    private final ConcurrentLinkedQueue<Runnable> tasks = new ConcurrentLinkedQueue<>();
    private final Thread thread;
    private volatile boolean stopping;

    private CompletionPoller(VerbsDevice device, MemorySegment channel, FdWaiter waiter) {
        this.device = device;
        this.channel = channel;
        this.waiter = waiter;
        this.thread = Thread.ofPlatform().daemon().name("verbs-cq-" + device.name()).unstarted(this::run);
    }

    /** A completion channel on the device's context, and its thread. */
    static CompletionPoller start(VerbsDevice device) throws VerbsUnavailableException {
        MemorySegment channel;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment errno = Libibverbs.errnoBuffer(arena);
            channel = (MemorySegment) device.ib().createCompChannel.invokeExact(errno, device.context());
            if (channel.equals(MemorySegment.NULL)) {
                throw new VerbsUnavailableException("ibv_create_comp_channel on " + device.name() + " failed: errno "
                        + Libibverbs.errno(errno));
            }
        } catch (VerbsUnavailableException e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException("ibv_create_comp_channel", t);
        }
        channel = channel.reinterpret(IbvAbi.COMP_CHANNEL_BYTES);
        FdWaiter waiter;
        try {
            int fd = channel.get(ValueLayout.JAVA_INT, IbvAbi.COMP_CHANNEL_FD);
            Libc.get().nonBlocking(fd);
            waiter = new FdWaiter(fd);
        } catch (VerbsUnavailableException e) {
            destroyChannel(device, channel);
            throw e;
        }
        CompletionPoller p = new CompletionPoller(device, channel, waiter);
        p.thread.start();
        return p;
    }

    /**
     * A CQ of at least {@code capacity} entries on this channel, armed. Any thread: creation and the
     * first arming happen before the poller can see the CQ.
     */
    VerbsCompletionQueue create(int capacity, CompletionHandler handler) {
        if (capacity <= 0 || capacity > device.maxCqe()) {
            throw new IllegalArgumentException("completion queue capacity " + capacity + " outside [1, "
                    + device.maxCqe() + "] of " + device.name());
        }
        if (stopping) {
            throw new IllegalStateException(device.name() + " is closed");
        }
        MemorySegment cq;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment errno = Libibverbs.errnoBuffer(arena);
            cq = (MemorySegment) device.ib().createCq.invokeExact(errno, device.context(), capacity, MemorySegment.NULL,
                    channel, 0);
            if (cq.equals(MemorySegment.NULL)) {
                throw new IllegalStateException("ibv_create_cq(" + capacity + ") on " + device.name() + " failed: errno "
                        + Libibverbs.errno(errno));
            }
        } catch (IllegalStateException e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException("ibv_create_cq", t);
        }
        cq = cq.reinterpret(IbvAbi.CQ_BYTES);
        VerbsCompletionQueue q = new VerbsCompletionQueue(device, cq, capacity, cq.get(ValueLayout.JAVA_INT, IbvAbi.CQ_CQE),
                handler);
        cqs.put(cq.address(), q);
        int rc = device.ops().reqNotifyCq(cq);
        if (rc != 0) {
            cqs.remove(cq.address());
            destroyNow(q);
            throw new IllegalStateException("req_notify_cq on a new CQ of " + device.name() + " failed: " + rc);
        }
        return q;
    }

    /** Destroys {@code q} on the poller thread (its queue pairs are gone). */
    void destroy(VerbsCompletionQueue q) {
        submit(() -> {
            cqs.remove(q.cq.address());
            destroyNow(q);
        });
    }

    /** Delivers {@code q}'s synthetic completions on the poller thread. */
    void deliverSynthetic(VerbsCompletionQueue q) {
        submit(q::drainSynthetic);
    }

    private void submit(Runnable task) {
        tasks.add(task);
        waiter.wake();
    }

    /** Stops the thread after the tasks queued so far; destroys the channel unless a CQ still uses it. */
    void stop() {
        stopping = true;
        waiter.wake();
        if (Thread.currentThread() != thread) {
            try {
                thread.join(java.time.Duration.ofSeconds(5));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private void run() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment errno = Libibverbs.errnoBuffer(arena);
            MemorySegment cqOut = arena.allocate(ValueLayout.ADDRESS);
            MemorySegment contextOut = arena.allocate(ValueLayout.ADDRESS);
            MemorySegment wcs = arena.allocate(IbvAbi.WC_BYTES * BATCH, 8);
            while (true) {
                int ready = waiter.await();
                runTasks();
                if ((ready & FdWaiter.READABLE) != 0) {
                    events(errno, cqOut, contextOut, wcs);
                }
                if (stopping) {
                    runTasks();
                    break;
                }
            }
        } catch (Throwable e) {
            log.error("completion poller of {} failed: no more completions are delivered", device.name(), e);
            return;
        }
        if (cqs.isEmpty()) {
            destroyChannel(device, channel);
            waiter.close();
        } else {
            log.warn("{} closed with {} completion queues still in use: its completion channel is left open",
                    device.name(), cqs.size());
        }
    }

    private void runTasks() {
        Runnable task;
        while ((task = tasks.poll()) != null) {
            try {
                task.run();
            } catch (RuntimeException e) {
                log.error("completion poller task of {} failed", device.name(), e);
            }
        }
    }

    /** Serves every pending channel event: ack, re-arm, poll until empty. */
    private void events(MemorySegment errno, MemorySegment cqOut, MemorySegment contextOut, MemorySegment wcs)
            throws Throwable {
        Libibverbs ib = device.ib();
        while (true) {
            int rc = (int) ib.getCqEvent.invokeExact(errno, channel, cqOut, contextOut);
            if (rc != 0) {
                int e = Libibverbs.errno(errno);
                if (e != Libc.EAGAIN && e != Libc.EINTR) {
                    log.error("ibv_get_cq_event on {} failed: errno {}; its completions are no longer delivered",
                            device.name(), e);
                    waiter.ignoreFd(); // a channel stuck in error must neither spin this thread nor put it to sleep
                }
                return;
            }
            MemorySegment cq = cqOut.get(ValueLayout.ADDRESS, 0);
            ib.ackCqEvents.invokeExact(errno, cq, 1);
            VerbsCompletionQueue q = cqs.get(cq.address());
            if (q == null) {
                continue; // destroyed meanwhile: cannot happen, destruction runs on this thread
            }
            int armed = device.ops().reqNotifyCq(q.cq);
            if (armed != 0) {
                log.warn("req_notify_cq on {} failed: {}; its completions are no longer announced", device.name(), armed);
            }
            poll(q, wcs);
        }
    }

    /** Empties {@code q}: each completion goes to its queue pair, then to the handler. */
    private void poll(VerbsCompletionQueue q, MemorySegment wcs) {
        ContextOps ops = device.ops();
        QueuePairTable table = device.queuePairs();
        while (true) {
            int n = ops.pollCq(q.cq, BATCH, wcs);
            if (n < 0) {
                log.warn("poll_cq on {} failed: {}", device.name(), n);
                return;
            }
            for (int i = 0; i < n; i++) {
                long base = i * IbvAbi.WC_BYTES;
                long wrId = wcs.get(ValueLayout.JAVA_LONG, base + IbvAbi.WC_WR_ID);
                VerbsQueuePair qp = table.get((int) (wrId >>> 32));
                if (qp == null) {
                    log.debug("{}: completion for a queue pair already destroyed (wr_id {})", device.name(),
                            Long.toHexString(wrId));
                    continue;
                }
                WorkCompletion wc = qp.completed((wrId & (1L << 31)) != 0, (int) (wrId & 0x7fffffff),
                        wcs.get(ValueLayout.JAVA_INT, base + IbvAbi.WC_STATUS),
                        Integer.toUnsignedLong(wcs.get(ValueLayout.JAVA_INT, base + IbvAbi.WC_BYTE_LEN)),
                        wcs.get(ValueLayout.JAVA_INT, base + IbvAbi.WC_WC_FLAGS),
                        wcs.get(ValueLayout.JAVA_INT, base + IbvAbi.WC_INVALIDATED_RKEY),
                        wcs.get(ValueLayout.JAVA_INT, base + IbvAbi.WC_VENDOR_ERR));
                if (wc != null) {
                    q.deliver(wc);
                }
            }
            if (n < BATCH) {
                return;
            }
        }
    }

    private void destroyNow(VerbsCompletionQueue q) {
        try (Arena arena = Arena.ofConfined()) {
            int rc = (int) device.ib().destroyCq.invokeExact(Libibverbs.errnoBuffer(arena), q.cq);
            if (rc != 0) {
                log.warn("ibv_destroy_cq on {} failed: {}", device.name(), rc);
            }
        } catch (Throwable t) {
            throw new IllegalStateException("ibv_destroy_cq", t);
        }
    }

    private static void destroyChannel(VerbsDevice device, MemorySegment channel) {
        try (Arena arena = Arena.ofConfined()) {
            int rc = (int) device.ib().destroyCompChannel.invokeExact(Libibverbs.errnoBuffer(arena), channel);
            if (rc != 0) {
                log.warn("ibv_destroy_comp_channel on {} failed: {}", device.name(), rc);
            }
        } catch (Throwable t) {
            throw new IllegalStateException("ibv_destroy_comp_channel", t);
        }
    }
}
