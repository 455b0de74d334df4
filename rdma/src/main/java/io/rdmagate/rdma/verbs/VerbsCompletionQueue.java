package io.rdmagate.rdma.verbs;

import io.rdmagate.rdma.CompletionHandler;
import io.rdmagate.rdma.CompletionQueue;
import io.rdmagate.rdma.RdmaException;
import io.rdmagate.rdma.WorkCompletion;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A completion queue: an {@code ibv_cq} on the device's completion channel, and its handler.
 *
 * <p>Operation: the device's {@link CompletionPoller} is the only thread that polls it and the only
 * one that calls its handler: one completion at a time, in the order the device produced them,
 * never inside a post (as {@link io.rdmagate.rdma.spi.SerialCompletionQueue} guarantees the software
 * providers' users). Completions the provider makes itself (flushes of requests posted after the
 * queue pair failed, or that never reached the device) are queued here with {@link #offerSynthetic}
 * and delivered by the same thread, after the device's completions of the same queue pair.
 *
 * <p>{@link #close} stops delivery and moves the queue pairs using it to error; the {@code ibv_cq}
 * is destroyed when the last of them is ({@code ibv_destroy_cq} refuses with EBUSY before).
 */
final class VerbsCompletionQueue implements CompletionQueue {
    private static final Logger log = LoggerFactory.getLogger(VerbsCompletionQueue.class);

    final VerbsDevice device;
    final MemorySegment cq;
    private final int capacity;
    private final int entries;
    private final CompletionHandler handler;
    private final ConcurrentLinkedQueue<WorkCompletion> synthetic = new ConcurrentLinkedQueue<>();
    private final AtomicInteger pendingSynthetic = new AtomicInteger();
    private volatile boolean closed;
    /** Guarded by this. */
    private final Set<VerbsQueuePair> queuePairs = new HashSet<>();
    private int depth;
    private boolean warned;
    private boolean destroyRequested;

    VerbsCompletionQueue(VerbsDevice device, MemorySegment cq, int capacity, int entries, CompletionHandler handler) {
        this.device = device;
        this.cq = cq;
        this.capacity = capacity;
        this.entries = entries;
        this.handler = handler;
    }

    @Override
    public int capacity() {
        return capacity;
    }

    @Override
    public int pending() {
        return pendingSynthetic.get();
    }

    boolean isClosed() {
        return closed;
    }

    /**
     * A queue pair of {@code queueDepth} requests completes here. Every request is signaled, so the
     * requests outstanding on all its queue pairs bound what the CQ must hold; more than its entries
     * risks an overrun (man ibv_poll_cq: the CQ then "cannot be used"), which is logged once.
     */
    void attach(VerbsQueuePair qp, int queueDepth) throws RdmaException {
        synchronized (this) {
            if (closed) {
                throw new RdmaException("completion queue closed");
            }
            depth += queueDepth;
            if (depth > entries && !warned) {
                warned = true;
                log.warn("a completion queue of {} entries on {} serves queues of {} requests: if they are ever all"
                        + " outstanding the CQ overruns and its connections fail", entries, device.name(), depth);
            }
            queuePairs.add(qp);
        }
    }

    /** A queue pair using this queue was destroyed. */
    void detach(VerbsQueuePair qp, int queueDepth) {
        boolean destroy;
        synchronized (this) {
            queuePairs.remove(qp);
            depth -= queueDepth;
            destroy = closed && queuePairs.isEmpty() && !destroyRequested;
            destroyRequested |= destroy;
        }
        if (destroy) {
            device.poller().destroy(this);
        }
    }

    /** Completions the provider made (flushes); delivered by the poller after what it has polled. */
    void offerSynthetic(List<WorkCompletion> wcs) {
        if (closed || wcs.isEmpty()) {
            return;
        }
        synthetic.addAll(wcs);
        pendingSynthetic.addAndGet(wcs.size());
        device.poller().deliverSynthetic(this);
    }

    /** Poller thread: hands one completion to the handler. */
    void deliver(WorkCompletion wc) {
        if (closed) {
            return;
        }
        try {
            handler.onCompletion(wc);
        } catch (RuntimeException e) {
            log.error("completion handler failed for wr {}", wc.wrId(), e);
        }
    }

    /** Poller thread: delivers the synthetic completions queued. */
    void drainSynthetic() {
        WorkCompletion wc;
        while ((wc = synthetic.poll()) != null) {
            pendingSynthetic.decrementAndGet();
            deliver(wc);
        }
    }

    @Override
    public void close() {
        boolean destroy;
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            destroy = queuePairs.isEmpty() && !destroyRequested;
            destroyRequested |= destroy;
        }
        List<VerbsQueuePair> using;
        synchronized (this) {
            using = new ArrayList<>(queuePairs);
        }
        for (VerbsQueuePair qp : using) {
            qp.fail("its completion queue was closed", false);
        }
        synthetic.clear();
        pendingSynthetic.set(0);
        if (destroy) {
            device.poller().destroy(this);
        }
    }
}
