package io.rdmagate.bench.nfs;

import java.io.IOException;
import java.util.concurrent.Semaphore;

/**
 * Keeps {@code depth} calls in flight on one connection: a sender thread issues calls while
 * permits last, the calling thread receives replies and returns a permit for each. Stops
 * issuing after {@code calls} calls or at {@code deadlineNanos}, whichever comes first, then
 * waits for every reply. Any failed reply fails the run. Neither side spins.
 */
final class Pipeline {
    /** Sends call number {@code i} (from 0) with {@code xid}. */
    @FunctionalInterface
    interface CallSource {
        void send(LoadConnection c, int xid, long i) throws IOException;
    }

    private final Object lock = new Object();
    private long issued;
    private boolean done;
    private Exception failure;

    private Pipeline() {
    }

    /** Returns the number of calls completed. */
    static long run(LoadConnection c, int depth, long calls, long deadlineNanos, int minReplyLength,
            CallSource source) throws IOException, InterruptedException {
        return new Pipeline().drive(c, depth, calls, deadlineNanos, minReplyLength, source);
    }

    private long drive(LoadConnection c, int depth, long calls, long deadlineNanos, int minReplyLength,
            CallSource source) throws IOException, InterruptedException {
        Semaphore permits = new Semaphore(depth);
        int xidBase = (int) (System.nanoTime() & 0x3fffffff);
        Thread sender = Thread.ofPlatform().name("nfs-load-send").start(() -> {
            try {
                for (long i = 0; i < calls && System.nanoTime() < deadlineNanos; i++) {
                    permits.acquire();
                    source.send(c, xidBase + (int) i, i);
                    c.flush();
                    synchronized (lock) {
                        issued = i + 1;
                        lock.notifyAll();
                    }
                }
            } catch (IOException | InterruptedException e) {
                synchronized (lock) {
                    failure = e;
                }
            } finally {
                synchronized (lock) {
                    done = true;
                    lock.notifyAll();
                }
            }
        });
        long received = 0;
        try {
            while (true) {
                synchronized (lock) {
                    while (!done && received == issued) {
                        lock.wait();
                    }
                    if (failure != null) {
                        throw new IOException("sending failed", failure);
                    }
                    if (done && received == issued) {
                        return received;
                    }
                }
                c.receive();
                if (c.lastLength() < minReplyLength) {
                    throw new IOException("short reply: " + c.lastLength() + " bytes, expected " + minReplyLength);
                }
                received++;
                permits.release();
            }
        } finally {
            sender.interrupt();
            sender.join();
        }
    }
}
