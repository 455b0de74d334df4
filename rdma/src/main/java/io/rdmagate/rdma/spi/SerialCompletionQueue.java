package io.rdmagate.rdma.spi;

import io.rdmagate.rdma.CompletionHandler;
import io.rdmagate.rdma.CompletionQueue;
import io.rdmagate.rdma.WorkCompletion;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A completion queue for software providers: completions are delivered one at a time, in order.
 *
 * <p>Operation: {@link #offer} queues a completion and, unless a delivery is under way, starts a
 * virtual thread that delivers while any are pending. {@link #offerInline} is for a provider's
 * own transmit and receive threads at points where they hold no lock: when no delivery is under
 * way it delivers on the calling thread (the completion, then whatever queued meanwhile, at most
 * {@link #INLINE_BUDGET} before the rest goes to a virtual thread), which saves a thread hop per
 * completion; handlers never block, so the provider thread is back to its socket at once. A
 * queue that overflows its capacity stops accepting (the producer's queue pair goes to error),
 * as a CQ overrun does on hardware.
 */
public final class SerialCompletionQueue implements CompletionQueue {
    private static final Logger log = LoggerFactory.getLogger(SerialCompletionQueue.class);

    private final int capacity;
    private final CompletionHandler handler;
    private final ConcurrentLinkedQueue<WorkCompletion> queue = new ConcurrentLinkedQueue<>();
    private final AtomicInteger size = new AtomicInteger();
    private final AtomicBoolean draining = new AtomicBoolean();
    private volatile boolean closed;

    public SerialCompletionQueue(int capacity, CompletionHandler handler) {
        if (capacity <= 0) {
            throw new IllegalArgumentException("capacity " + capacity);
        }
        this.capacity = capacity;
        this.handler = handler;
    }

    /** Queues a completion; false when the queue is closed or full (an overrun). */
    public boolean offer(WorkCompletion wc) {
        if (!enqueue(wc)) {
            return false;
        }
        scheduleDrain();
        return true;
    }

    /**
     * Queues a completion and delivers it on the calling thread when no delivery is under way;
     * false when the queue is closed or full. Only for threads that hold no lock a handler could
     * need.
     */
    public boolean offerInline(WorkCompletion wc) {
        if (!enqueue(wc)) {
            return false;
        }
        if (draining.compareAndSet(false, true)) {
            drain(INLINE_BUDGET);
        }
        return true;
    }

    /** Takes a place and queues {@code wc}; false when the queue is closed or full. */
    private boolean enqueue(WorkCompletion wc) {
        if (closed) {
            return false;
        }
        if (size.incrementAndGet() > capacity) {
            size.decrementAndGet();
            return false;
        }
        queue.add(wc);
        return true;
    }

    /** Completions one inline delivery hands over at most before a virtual thread takes the rest. */
    static final int INLINE_BUDGET = 16;

    private void scheduleDrain() {
        if (draining.compareAndSet(false, true)) {
            startDrainThread();
        }
    }

    private void startDrainThread() {
        Thread.ofVirtual().name("cq-delivery").start(() -> drain(Integer.MAX_VALUE));
    }

    /** Delivers while completions are queued; the caller holds the draining flag. */
    private void drain(int budget) {
        int left = budget;
        while (true) {
            WorkCompletion wc;
            while ((wc = queue.poll()) != null) {
                size.decrementAndGet();
                if (closed) {
                    continue;
                }
                try {
                    handler.onCompletion(wc);
                } catch (RuntimeException e) {
                    log.error("completion handler failed for wr {}", wc.wrId(), e);
                }
                if (--left == 0 && !queue.isEmpty()) {
                    startDrainThread(); // still holding the flag: the thread goes on from here
                    return;
                }
            }
            draining.set(false);
            if (queue.isEmpty() || !draining.compareAndSet(false, true)) {
                return;
            }
        }
    }

    @Override
    public int capacity() {
        return capacity;
    }

    @Override
    public int pending() {
        return size.get();
    }

    public boolean isClosed() {
        return closed;
    }

    @Override
    public void close() {
        closed = true;
    }
}
