package io.rdmagate.rdma.verbs;

import java.util.ArrayDeque;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * The live queue pairs of a device by serial, for the completion poller: a completion's wr_id
 * carries its queue pair's serial ({@link WorkRequestRing}), and the poller finds the queue pair
 * here without allocating. A serial is a table index (low 20 bits) and that index's generation (high
 * 12 bits), so a completion that arrives for a queue pair already destroyed (a forced teardown)
 * never reaches the next queue pair at the same index.
 *
 * <p>Operation: {@link #add} and {@link #remove} (queue pair creation and teardown) lock; {@link #get}
 * (the poller, per completion) reads a volatile array without locking.
 */
final class QueuePairTable {
    private static final int INDEX_BITS = 20;
    private static final int MAX_INDEX = (1 << INDEX_BITS) - 1;

    private volatile AtomicReferenceArray<VerbsQueuePair> table = new AtomicReferenceArray<>(64);
    private int[] generation = new int[64];
    private final ArrayDeque<Integer> free = new ArrayDeque<>();
    private int used;
    private int size;

    /** Reserves a serial for a queue pair about to be made. */
    synchronized int reserve() {
        int index;
        if (!free.isEmpty()) {
            index = free.pop();
        } else {
            if (used > MAX_INDEX) {
                throw new IllegalStateException("more than " + MAX_INDEX + " queue pairs on one device");
            }
            index = used++;
            if (index >= table.length()) {
                grow();
            }
        }
        generation[index] = (generation[index] + 1) & 0xfff;
        return generation[index] << INDEX_BITS | index;
    }

    /** Makes {@code qp} findable by its serial. */
    synchronized void add(int serial, VerbsQueuePair qp) {
        table.set(serial & MAX_INDEX, qp);
        size++;
    }

    /** Forgets a serial (reserved, or added); completions carrying it are dropped from now on. */
    synchronized void remove(int serial) {
        int index = serial & MAX_INDEX;
        if (generation[index] != serial >>> INDEX_BITS) {
            return;
        }
        if (table.get(index) != null) {
            table.set(index, null);
            if (--size == 0) {
                notifyAll(); // awaitEmpty
            }
        }
        generation[index] = (generation[index] + 1) & 0xfff; // a late completion of this serial no longer matches
        free.push(index);
    }

    /** The live queue pair with this serial, or null. */
    VerbsQueuePair get(int serial) {
        AtomicReferenceArray<VerbsQueuePair> t = table;
        int index = serial & MAX_INDEX;
        if (index >= t.length()) {
            return null;
        }
        VerbsQueuePair qp = t.get(index);
        return qp != null && qp.serial() == serial ? qp : null;
    }

    /** Queue pairs live now. */
    synchronized int size() {
        return size;
    }

    /** Waits until no queue pair is live or {@code nanos} have passed; whether none is. Not for the provider's threads. */
    synchronized boolean awaitEmpty(long nanos) throws InterruptedException {
        long end = System.nanoTime() + nanos;
        while (size > 0) {
            long left = end - System.nanoTime();
            if (left <= 0) {
                return false;
            }
            java.util.concurrent.TimeUnit.NANOSECONDS.timedWait(this, left);
        }
        return true;
    }

    /** The live queue pairs, for the device's close. */
    synchronized java.util.List<VerbsQueuePair> snapshot() {
        java.util.List<VerbsQueuePair> out = new java.util.ArrayList<>(size);
        for (int i = 0; i < table.length(); i++) {
            VerbsQueuePair qp = table.get(i);
            if (qp != null) {
                out.add(qp);
            }
        }
        return out;
    }

    private void grow() {
        AtomicReferenceArray<VerbsQueuePair> old = table;
        AtomicReferenceArray<VerbsQueuePair> bigger = new AtomicReferenceArray<>(Math.min(old.length() * 2, MAX_INDEX + 1));
        for (int i = 0; i < old.length(); i++) {
            bigger.set(i, old.get(i));
        }
        generation = java.util.Arrays.copyOf(generation, bigger.length());
        table = bigger;
    }
}
