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
 * A completion queue for software providers: completions are queued by the device and delivered
 * one at a time, in order, by a virtual thread that runs while any are pending. A queue that
 * overflows its capacity stops accepting (the producer's queue pair goes to error), as a CQ
 * overrun does on hardware.
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
        if (closed) {
            return false;
        }
        if (size.incrementAndGet() > capacity) {
            size.decrementAndGet();
            return false;
        }
        queue.add(wc);
        scheduleDrain();
        return true;
    }

    private void scheduleDrain() {
        if (draining.compareAndSet(false, true)) {
            Thread.ofVirtual().name("cq-delivery").start(this::drain);
        }
    }

    private void drain() {
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
