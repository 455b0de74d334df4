package io.rdmagate.rpcrdma.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rdmagate.rdma.QueuePair;
import io.rdmagate.rdma.RdmaException;
import io.rdmagate.rdma.RecvWr;
import io.rdmagate.rdma.SendWr;
import io.rdmagate.rdma.Sge;
import io.rdmagate.rdma.WcStatus;
import io.rdmagate.rdma.WorkCompletion;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The Send Queue accounting on its own, over a queue pair that records what is posted: chains
 * that do not fit wait instead of blocking the thread that submits them, and go out in order as
 * completions free room; every chain's context hears of its end exactly once.
 */
class SendQueueTest {
    /** Posts are recorded; the queue pair refuses more than its depth outstanding, as a real one does. */
    private static final class RecordingQueuePair implements QueuePair {
        final List<SendWr> posted = new ArrayList<>();
        /** Posted but not yet transmitted: the doorbell has not rung since. */
        final List<SendWr> queued = new ArrayList<>();
        /** Each doorbell, with whether the caller may transmit on its own thread. */
        final List<Boolean> rings = new ArrayList<>();
        final int depth;
        int outstanding;
        boolean failNext;

        RecordingQueuePair(int depth) {
            this.depth = depth;
        }

        @Override
        public void postReceive(RecvWr wr) {
        }

        @Override
        public synchronized void postSend(SendWr wr) throws RdmaException {
            if (failNext) {
                throw new RdmaException("queue pair in error");
            }
            if (outstanding == depth) {
                throw new RdmaException("send queue full");
            }
            outstanding++;
            posted.add(wr);
        }

        @Override
        public synchronized void postSendDeferred(SendWr wr) throws RdmaException {
            postSend(wr);
            posted.remove(posted.size() - 1);
            queued.add(wr);
        }

        @Override
        public synchronized void doorbell(boolean transmitHere) {
            rings.add(transmitHere);
            posted.addAll(queued);
            queued.clear();
        }

        synchronized void retire(int n) {
            outstanding -= n;
        }

        @Override
        public State state() {
            return State.CONNECTED;
        }

        @Override
        public byte[] remotePrivateData() {
            return new byte[0];
        }

        @Override
        public int inboundReads() {
            return 1;
        }

        @Override
        public int outboundReads() {
            return 1;
        }

        @Override
        public InetSocketAddress localAddress() {
            return null;
        }

        @Override
        public InetSocketAddress remoteAddress() {
            return null;
        }

        @Override
        public void disconnect() {
        }
    }

    private static class Ends implements ServerConnection.WorkContext {
        final AtomicInteger completed = new AtomicInteger();
        final AtomicInteger abandoned = new AtomicInteger();

        @Override
        public void completed(WorkCompletion wc) {
            completed.incrementAndGet();
        }

        @Override
        public void abandoned() {
            abandoned.incrementAndGet();
        }
    }

    private long ids = 1;

    /** {@code writes} unsignaled RDMA Writes then a signaled Send. */
    private SendQueue.Chain reply(int writes, Ends ends) {
        List<SendWr> wrs = new ArrayList<>();
        for (int k = 0; k < writes; k++) {
            wrs.add(SendWr.write(ids++, 0x1000, 7, new Sge(0x2000, 64, 1)).unsignaled());
        }
        wrs.add(SendWr.send(ids++, new Sge(0x3000, 64, 1)));
        return new SendQueue.Chain(wrs, ends);
    }

    private static WorkCompletion done(SendQueue.Chain c, WcStatus status) {
        return WorkCompletion.forSend(c.wrs().getLast(), status, null);
    }

    @Test
    void aChainThatDoesNotFitWaitsAndGoesOutInOrderWhenACompletionFreesRoom() {
        RecordingQueuePair qp = new RecordingQueuePair(4);
        AtomicInteger failures = new AtomicInteger();
        SendQueue sq = new SendQueue(4, failures::incrementAndGet);
        sq.attach(qp);
        Ends first = new Ends();
        Ends second = new Ends();
        Ends third = new Ends();
        SendQueue.Chain a = reply(2, first);
        SendQueue.Chain b = reply(1, second);
        SendQueue.Chain c = reply(0, third);

        assertTrue(sq.submit(a, true));
        assertTrue(sq.submit(b, true), "a chain without room is accepted, not refused or waited for");
        assertTrue(sq.submit(c, true), "a chain behind a waiting one waits too, even if it would fit");
        assertEquals(3, qp.posted.size(), "only the first chain is on the queue pair");
        assertEquals(2, sq.waiting());
        assertEquals(List.of(true, true, true), qp.rings, "a worker's submission rings with leave to transmit");

        qp.retire(3);
        sq.completed(done(a, WcStatus.SUCCESS));
        assertEquals(1, first.completed.get());
        assertEquals(0, sq.waiting(), "both waiting chains fit once the first chain's three entries are back");
        assertEquals(List.of(a.wrs().get(0), a.wrs().get(1), a.wrs().get(2), b.wrs().get(0), b.wrs().get(1),
                c.wrs().get(0)), qp.posted, "chains go out whole and in submission order");
        assertEquals(1, sq.available());
        assertEquals(0, failures.get());
        assertEquals(List.of(true, true, true, false), qp.rings,
                "a completion that posts waiting chains rings once, leaving the transmission to the provider");
        assertEquals(List.of(), qp.queued);

        qp.retire(3);
        sq.completed(done(b, WcStatus.SUCCESS));
        sq.completed(done(c, WcStatus.SUCCESS));
        assertEquals(4, sq.available(), "every entry is back");
        assertEquals(1, second.completed.get());
        assertEquals(1, third.completed.get());
    }

    @Test
    void aFlushedChainIsAbandonedOnceAndItsUnsignaledFlushesEndNothing() {
        RecordingQueuePair qp = new RecordingQueuePair(8);
        SendQueue sq = new SendQueue(8, () -> { });
        sq.attach(qp);
        Ends ends = new Ends();
        SendQueue.Chain a = reply(2, ends);
        assertTrue(sq.submit(a, true));
        // a queue pair in error flushes every work request, the unsignaled ones too
        for (SendWr wr : a.wrs()) {
            sq.completed(WorkCompletion.forSend(wr, WcStatus.WR_FLUSH_ERROR, null));
        }
        assertEquals(0, ends.completed.get());
        assertEquals(1, ends.abandoned.get());
        sq.close();
        assertEquals(1, ends.abandoned.get(), "closing does not tell a chain that ended already");
    }

    @Test
    void closingAbandonsPostedAndWaitingChainsAndRefusesNewOnes() {
        RecordingQueuePair qp = new RecordingQueuePair(2);
        SendQueue sq = new SendQueue(2, () -> { });
        sq.attach(qp);
        Ends posted = new Ends();
        Ends waiting = new Ends();
        Ends late = new Ends();
        assertTrue(sq.submit(reply(1, posted), true));
        assertTrue(sq.submit(reply(1, waiting), true));
        sq.close();
        assertEquals(1, posted.abandoned.get());
        assertEquals(1, waiting.abandoned.get());
        assertFalse(sq.submit(reply(0, late), true));
        assertEquals(1, late.abandoned.get());
    }

    @Test
    void aChainLongerThanTheQueueOrAFailedPostDisconnectsBeforeItsContextIsTold() {
        RecordingQueuePair qp = new RecordingQueuePair(4);
        List<String> order = new ArrayList<>();
        SendQueue[] queue = new SendQueue[1];
        // as the connection does: the queue pair goes down, then the queue closes
        SendQueue sq = new SendQueue(4, () -> {
            order.add("disconnect");
            queue[0].close();
        });
        queue[0] = sq;
        sq.attach(qp);
        Ends tooLong = new Ends() {
            @Override
            public void abandoned() {
                order.add("abandoned");
                super.abandoned();
            }
        };
        assertFalse(sq.submit(reply(4, tooLong), true), "five work requests never fit a queue of four");
        assertEquals(List.of("disconnect", "abandoned"), order);
        assertTrue(qp.posted.isEmpty());

        // a post that fails: the connection closes later (its teardown runs on a thread of its own),
        // and only then, the queue pair down, is the chain's context told
        RecordingQueuePair failing = new RecordingQueuePair(4);
        AtomicInteger disconnects = new AtomicInteger();
        SendQueue later = new SendQueue(4, disconnects::incrementAndGet);
        later.attach(failing);
        Ends refused = new Ends();
        failing.failNext = true;
        assertFalse(later.submit(reply(1, refused), true));
        assertEquals(1, disconnects.get());
        assertEquals(0, refused.abandoned.get(), "not told while the queue pair may still hold part of the chain");
        assertEquals(4, later.available(), "a chain that was not posted holds no entries");
        later.close();
        assertEquals(1, refused.abandoned.get());
    }
}
