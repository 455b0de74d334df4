package io.rdmagate.rpcrdma.server;

import io.rdmagate.rdma.QueuePair;
import io.rdmagate.rdma.RdmaException;
import io.rdmagate.rdma.SendWr;
import io.rdmagate.rdma.WorkCompletion;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A connection's Send Queue accounting, as svcrdma's {@code sc_sq_avail}.
 *
 * <p>Operation: work goes to the Send Queue as chains: the RDMA Writes of a reply followed by its
 * Send, or the RDMA Reads of a call's read chunks. Only the last work request of a chain is
 * signaled; the Send Queue runs in order, so its completion means the whole chain is done and
 * gives back every entry the chain took. A chain that fits is posted at once from the thread
 * that submits it; one that does not waits here, in submission order, and is posted by the
 * completion that frees its room. Posting only queues; the doorbell is rung after this queue's
 * lock is released, by a worker with leave to transmit its chain on its own thread (soft iWARP
 * then writes the reply to the socket from the worker), by a completion handler without. No thread ever waits for Send Queue space, so the completion
 * handlers that submit (the RDMA Reads of a call that just arrived) never block.
 *
 * <p>Thread-safe. The chain's context hears of its end exactly once: {@code completed} when the
 * last work request completes, {@code abandoned} when the chain fails, is flushed, or the queue
 * is closed first.
 */
final class SendQueue {
    /** A chain: its work requests in posting order, the last one signaled, and who hears of its end. */
    record Chain(List<SendWr> wrs, ServerConnection.WorkContext ctx) {
        long lastWrId() {
            return wrs.getLast().wrId();
        }
    }

    private final int depth;
    private final Runnable onFailure;
    private final ArrayDeque<Chain> waiting = new ArrayDeque<>();
    private final Map<Long, Chain> posted = new HashMap<>();
    /** Chains whose post failed, told at {@link #close}. */
    private final List<Chain> unposted = new ArrayList<>(0);
    private QueuePair qp;
    private int available;
    private boolean closed;

    /**
     * @param onFailure disconnects: run when a chain cannot be posted; the chain's context is told
     *                  at {@link #close}, which the connection calls once its queue pair is down, so
     *                  nothing the chain names is released while the pair may still use it
     */
    SendQueue(int depth, Runnable onFailure) {
        if (depth < 1) {
            throw new IllegalArgumentException("send queue depth " + depth);
        }
        this.depth = depth;
        this.onFailure = onFailure;
        this.available = depth;
    }

    synchronized void attach(QueuePair qp) {
        this.qp = qp;
    }

    /** Entries free now (for metrics and tests). */
    synchronized int available() {
        return available;
    }

    /** Chains waiting for room. */
    synchronized int waiting() {
        return waiting.size();
    }

    int depth() {
        return depth;
    }

    /**
     * Posts {@code chain} now if it fits and nothing waits before it, else queues it. False when the
     * chain can never be posted (closed, longer than the queue, or the post failed): the connection
     * is closed and the chain's context told.
     */
    boolean submit(Chain chain, boolean fromWorker) {
        List<Chain> failed = new ArrayList<>(1);
        boolean ok;
        QueuePair ring;
        synchronized (this) {
            ring = qp;
            if (closed || chain.wrs().size() > depth) {
                failed.add(chain);
                ok = false;
            } else if (waiting.isEmpty() && chain.wrs().size() <= available) {
                ok = post(chain, failed);
            } else {
                waiting.addLast(chain);
                ok = true;
            }
        }
        fail(failed);
        if (ring != null) {
            ring.doorbell(fromWorker); // no lock held: a worker may transmit its chain itself
        }
        return ok;
    }

    /**
     * A send completion: the chain it ends gives back its entries (a completion of an unsignaled
     * work request, which only a flush produces, ends none), then chains that now fit are posted.
     */
    void completed(WorkCompletion wc) {
        Chain done;
        List<Chain> failed = new ArrayList<>(0);
        boolean postedAny = false;
        synchronized (this) {
            done = posted.remove(wc.wrId());
            if (done != null) {
                available += done.wrs().size();
            }
            while (!closed && !waiting.isEmpty() && waiting.peekFirst().wrs().size() <= available) {
                if (!post(waiting.pollFirst(), failed)) {
                    break;
                }
                postedAny = true;
            }
        }
        if (postedAny) {
            qp.doorbell(false); // a completion handler never transmits: the provider's thread does
        }
        if (done != null) {
            if (wc.ok()) {
                done.ctx().completed(wc);
            } else {
                done.ctx().abandoned();
            }
        }
        fail(failed);
    }

    /**
     * Chains that could not be posted: while the queue is open they wait for {@link #close}, which
     * the connection calls once its queue pair is down (a failed post may have queued part of a
     * chain), and the connection is told to close; on a closed queue they are abandoned at once.
     */
    private void fail(List<Chain> failed) {
        if (failed.isEmpty()) {
            return;
        }
        boolean wasOpen;
        synchronized (this) {
            wasOpen = !closed;
            if (wasOpen) {
                unposted.addAll(failed);
            }
        }
        if (wasOpen) {
            onFailure.run();
        } else {
            failed.forEach(c -> c.ctx().abandoned());
        }
    }

    /** Abandons every chain posted, waiting or whose post failed; later submissions are refused. */
    void close() {
        List<Chain> gone;
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            gone = new ArrayList<>(posted.values());
            gone.addAll(waiting);
            gone.addAll(unposted);
            posted.clear();
            waiting.clear();
            unposted.clear();
        }
        gone.forEach(c -> c.ctx().abandoned());
    }

    /**
     * Queues every work request of {@code chain} on the queue pair, holding the lock so chains never
     * interleave; the caller rings the doorbell once it holds no lock.
     */
    private boolean post(Chain chain, List<Chain> failed) {
        available -= chain.wrs().size();
        posted.put(chain.lastWrId(), chain);
        try {
            for (SendWr wr : chain.wrs()) {
                qp.postSendDeferred(wr);
            }
            return true;
        } catch (RdmaException | RuntimeException e) {
            // what was posted before the failure flushes with the queue pair; the chain ends here
            posted.remove(chain.lastWrId());
            available += chain.wrs().size();
            failed.add(chain);
            return false;
        }
    }
}
