package io.rdmagate.smb.server;

import java.util.concurrent.atomic.AtomicLong;

/**
 * The order in which a connection's messages arrived, kept for the requests whose outcome depends
 * on it. Messages are processed concurrently, each on its own virtual thread, so two requests sent
 * back to back may start in either order. Each message waits for its turn only until every
 * message that arrived before it has taken its turn: a message takes it as it starts, but one
 * holding a CHANGE_NOTIFY takes it once the request has been put with its directory open. So
 * CHANGE_NOTIFYs sent one after the other wait in the order sent, and a change completes the first
 * one, as Windows answers them (smbtorture smb2.notify.double), and a CANCEL finds the request it
 * follows.
 */
final class ArrivalOrder {
    private final AtomicLong next = new AtomicLong();
    private long turn; // guarded by this

    /** The next message's place; called as messages arrive, in the order they arrive. */
    long ticket() {
        return next.getAndIncrement();
    }

    /** Waits until every message that arrived before {@code ticket} has taken its turn. */
    synchronized void await(long ticket) {
        boolean interrupted = false;
        while (turn < ticket) {
            try {
                wait();
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    /** Message {@code ticket} took its turn (once; later calls do nothing): the next may go. */
    synchronized void taken(long ticket) {
        if (turn == ticket) {
            turn = ticket + 1;
            notifyAll();
        }
    }
}
