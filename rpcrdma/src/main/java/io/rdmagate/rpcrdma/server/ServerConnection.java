package io.rdmagate.rpcrdma.server;

import io.rdmagate.oncrpc.server.Connection;
import io.rdmagate.rdma.CompletionQueue;
import io.rdmagate.rdma.MemoryRegion;
import io.rdmagate.rdma.QueuePair;
import io.rdmagate.rdma.RdmaException;
import io.rdmagate.rdma.RecvWr;
import io.rdmagate.rdma.SendWr;
import io.rdmagate.rdma.Sge;
import io.rdmagate.rdma.WorkCompletion;
import io.rdmagate.rpcrdma.header.ConnectPrivateData;
import io.rdmagate.vfs.VfsException;
import io.rdmagate.vfs.memory.IoMemory;
import io.rdmagate.vfs.memory.IoMemoryPool;
import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One accepted RPC-over-RDMA connection, as svcrdma's svc_rdma_transport.c: its queue pair, its
 * account of the one I/O pool, the receive and send buffers it leases there (the pool's slabs are
 * registered already: a connection registers nothing of its own), and the calls in flight.
 *
 * <p>Operation: {@link RpcRdmaServer} builds it when a connect request passes the connection
 * bound, posts its receives in the accept's setup (before the client can send) and attaches the
 * queue pair. A receive completion goes to {@link RecvFrom} on the provider's thread; the call is
 * dispatched on a virtual thread; its reply goes out through {@link SendTo} and the {@link SendQueue},
 * rung from that worker, which may write it to the wire itself; send completions come back to the
 * Send Queue. A failed completion, a client over its credits, or the server's eviction closes the
 * connection: the queue pair flushes, every chain still posted or waiting is abandoned (its
 * context releases what it holds), the dispatcher hears of the close, and the buffers go back to
 * the pool once no call is being dispatched any more.
 *
 * <p>Memory: the receive buffers are leased when the connect is accepted, without waiting (a
 * connect the pool cannot hold now is refused); send buffers are leased when a reply first needs
 * one, up to {@code credits + 4 + backchannel credits}, and kept until the connection ends. An idle
 * connection so holds {@code (credits + 1 + backchannel credits) x inline receive} bytes of the
 * pool (268 KiB by default) and nothing else registered; the account bounds what it can hold
 * with its calls' chunks ({@code PoolLimits.maxBytesPerAccount}). The copies of call headers a
 * reply needs are on the heap, as long as the header.
 *
 * <p>Credits (RFC 8166 §3.3.1): {@code credits + 1} receives are posted before the client learns
 * of the accept; the spare one lets a client that exceeds its credits be seen here and
 * disconnected rather than fault the queue pair. One more receive per reverse-direction credit
 * waits for the replies to the server's own calls ({@link RdmaBackchannel}, RFC 8167). The credit
 * value granted in each reply is what the posted receives cover: it drops when a receive could not
 * be re-posted.
 */
final class ServerConnection {
    private static final Logger LOG = LoggerFactory.getLogger(ServerConnection.class);
    private static final AtomicLong IDS = new AtomicLong(1L << 40);

    final RpcRdmaServer server;
    final ConnectPrivateData peer;
    final int credits;
    /** The largest inline reply: ours, bounded by what the client can receive (RFC 8797 §3.1). */
    final int inlineSend;
    final IoMemoryPool.Account account;
    final RecvFrom recvFrom;
    final SendTo sendTo;
    final RdmaBackchannel backchannel;
    final SendQueue sendQueue;
    final int maxSge;
    private final IoMemory[] receiveLeases;
    private final MemorySegment[] receiveBuffers;
    private final int[] receiveLkeys;
    private final MemorySegment[] headerCopies;
    private final BlockingQueue<Integer> freeSendBuffers;
    /** Leased on first use, under their own monitor; a buffer's index is handed on through {@link #freeSendBuffers}. */
    private final IoMemory[] sendLeases;
    private final MemorySegment[] sendBuffers;
    private final int[] sendLkeys;
    private int sendLeased;
    private final AtomicLong wrIds = new AtomicLong(1);
    private final AtomicInteger calls = new AtomicInteger();
    private final AtomicInteger busy = new AtomicInteger();
    private final AtomicInteger postedReceives = new AtomicInteger();
    private final AtomicBoolean closed = new AtomicBoolean();
    /** When a message last arrived, for choosing the connection to close at the connection bound. */
    private volatile long lastReceiveNanos = System.nanoTime();
    private final AtomicBoolean freed = new AtomicBoolean();
    /** Open until the queue pair is down and every chain abandoned ({@link #teardown}). */
    private final java.util.concurrent.CountDownLatch tornDown = new java.util.concurrent.CountDownLatch(1);
    volatile QueuePair qp;
    volatile Connection connection;
    CompletionQueue sendCq;
    CompletionQueue recvCq;

    /** The pool could not lease a new connection's receive buffers without waiting. */
    static final class PoolShortException extends RdmaException {
        PoolShortException(String message) {
            super(message);
        }
    }

    /** What a posted work request holds until it completes. */
    interface WorkContext {
        /** Its completion: ok or not; called once. */
        void completed(WorkCompletion wc);

        /** The connection went away before it completed. */
        void abandoned();
    }

    ServerConnection(RpcRdmaServer server, ConnectPrivateData peer) throws RdmaException {
        this.server = server;
        this.peer = peer;
        RpcRdmaOptions o = server.options();
        this.credits = o.credits();
        this.inlineSend = Math.min(o.inlineSend(), peer.receiveSize());
        this.maxSge = Math.min(server.device().limits().maxSge(), 16);
        // RFC 8167 §4.1: a receive for the reply of every reverse-direction call we may have out
        int receives = credits + 1 + o.backchannelCredits();
        int sends = credits + 4 + o.backchannelCredits();
        this.account = server.pool().account("rdma:" + IDS.get());
        this.receiveLeases = new IoMemory[receives];
        this.receiveBuffers = new MemorySegment[receives];
        this.receiveLkeys = new int[receives];
        this.headerCopies = new MemorySegment[receives];
        try {
            for (int k = 0; k < receives; k++) {
                IoMemory m = account.leaseNow(o.inlineReceive());
                receiveLeases[k] = m;
                receiveBuffers[k] = m.segment();
                receiveLkeys[k] = lkey(m);
            }
        } catch (VfsException e) {
            releaseAll(receiveLeases);
            throw new PoolShortException("the I/O memory pool cannot hold the receive buffers of another connection now ("
                    + receives + " x " + o.inlineReceive() + " bytes): " + e.getMessage());
        }
        this.sendLeases = new IoMemory[sends];
        this.sendBuffers = new MemorySegment[sends];
        this.sendLkeys = new int[sends];
        this.freeSendBuffers = new ArrayBlockingQueue<>(sends);
        this.sendQueue = new SendQueue(server.maxSendWr(), this::close);
        this.recvFrom = new RecvFrom(this);
        this.sendTo = new SendTo(this);
        this.backchannel = o.backchannelCredits() > 0
                ? new RdmaBackchannel(this, o.backchannelCredits(), o.backchannelTimeout())
                : null;
    }

    /** The queue pair is known: before any receive is posted (from the accept's setup), and again after. */
    void attach(QueuePair q) {
        qp = q;
        sendQueue.attach(q);
    }

    long id() {
        return connection == null ? 0 : connection.id();
    }

    static long nextId() {
        return IDS.incrementAndGet();
    }

    /** The local key of pool memory: the registration of its slab with the server's domain. */
    private static int lkey(IoMemory m) throws RdmaException {
        if (!(m.registration() instanceof MemoryRegion mr)) {
            throw new RdmaException("I/O pool memory is not registered with an RDMA device");
        }
        return mr.lkey();
    }

    private static void releaseAll(IoMemory[] leases) {
        for (int k = 0; k < leases.length; k++) {
            if (leases[k] != null) {
                leases[k].release();
                leases[k] = null;
            }
        }
    }

    int receiveCount() {
        return receiveBuffers.length;
    }

    MemorySegment receiveBuffer(int k) {
        return receiveBuffers[k];
    }

    /** Posts the receive of buffer {@code k} (RFC 8166 §3.3.1: credits need posted receives). */
    void postReceive(int k) {
        if (closed.get()) {
            return;
        }
        try {
            MemorySegment b = receiveBuffers[k];
            qp.postReceive(RecvWr.of(k, new Sge(b.address(), (int) b.byteSize(), receiveLkeys[k])));
            postedReceives.incrementAndGet();
        } catch (RdmaException e) {
            LOG.debug("connection {}: receive not re-posted: {}", id(), e.getMessage());
        }
    }

    /** A receive completed: it is not posted any more. */
    void receiveTaken() {
        postedReceives.decrementAndGet();
    }

    /**
     * The credit value to grant now (RFC 8166 §3.3.1): the configured credits while every receive
     * is posted or in use by a call that will re-post it, fewer when re-posting failed.
     */
    int grantedCredits() {
        int covered = postedReceives.get() + calls.get() - 1;
        return Math.max(1, Math.min(credits, covered));
    }

    /**
     * A call arrived; false (and the connection is closing) when it exceeds the credits granted.
     * It holds a credit until {@link #creditReturned} (just before its reply is posted) and keeps
     * the connection's buffers alive until {@link #callFinished}.
     */
    boolean callStarted() {
        busy.incrementAndGet();
        int n = calls.incrementAndGet();
        if (n > credits) {
            LOG.info("connection {} from {}: {} calls outstanding, more than the {} credits granted; disconnecting",
                    id(), connection == null ? "?" : connection.peer(), n, credits);
            calls.decrementAndGet();
            close();
            callFinished();
            return false;
        }
        return true;
    }

    /** Keeps the buffers alive while a receive is looked at; paired with {@link #releaseBuffers}. */
    void holdBuffers() {
        busy.incrementAndGet();
    }

    void releaseBuffers() {
        busy.decrementAndGet();
        freeIfDone();
    }

    void creditReturned() {
        calls.decrementAndGet();
    }

    void callFinished() {
        busy.decrementAndGet();
        freeIfDone();
    }

    long lastReceiveNanos() {
        return lastReceiveNanos;
    }

    int callsInFlight() {
        return calls.get();
    }

    /**
     * A send buffer for one message, from a worker: a free one, else a new lease (waiting for the
     * pool as any lease does) while the connection has fewer than its send buffers, else the next
     * one freed.
     */
    int sendBufferIndex() throws InterruptedException {
        Integer k = freeSendBuffers.poll();
        if (k != null) {
            return k;
        }
        synchronized (sendLeases) {
            if (freed.get()) {
                throw new IllegalStateException("connection " + id() + " is closed");
            }
            if (sendLeased < sendLeases.length) {
                try {
                    IoMemory m = account.lease(inlineSendBuffer());
                    int n = sendLeased;
                    sendLkeys[n] = lkey(m);
                    sendBuffers[n] = m.segment();
                    sendLeases[n] = m;
                    sendLeased++;
                    return n;
                } catch (VfsException | RdmaException e) {
                    if (sendLeased == 0) {
                        throw new IllegalStateException("no send buffer: " + e.getMessage(), e);
                    }
                    // else wait for one of those the connection has
                }
            }
        }
        k = freeSendBuffers.poll(30, TimeUnit.SECONDS);
        if (k == null) {
            throw new IllegalStateException("no send buffer within 30 s");
        }
        return k;
    }

    /** The size of a send buffer: the server's inline send size (the peer may take less). */
    private int inlineSendBuffer() {
        return server.options().inlineSend();
    }

    /** The heap copy of receive {@code k}'s header for the reply, at least {@code length} bytes. */
    MemorySegment headerCopy(int k, int length) {
        MemorySegment c = headerCopies[k];
        if (c == null || c.byteSize() < length) {
            c = MemorySegment.ofArray(new byte[Math.max(256, Integer.highestOneBit(Math.max(1, length - 1)) << 1)]);
            headerCopies[k] = c;
        }
        return c;
    }

    MemorySegment sendBuffer(int k) {
        return sendBuffers[k];
    }

    long sendBufferAddress(int k) {
        return sendBuffers[k].address();
    }

    int sendLkey(int k) {
        return sendLkeys[k];
    }

    void returnSendBuffer(int k) {
        freeSendBuffers.add(k);
    }

    /** Posts one signaled work request whose end goes to {@code ctx}; false when the connection is gone. */
    boolean post(SendWr wr, WorkContext ctx) {
        return postChain(List.of(wr), ctx);
    }

    /**
     * Posts a chain (only its last work request signaled) whose end goes to {@code ctx}, now or
     * when the Send Queue has room ({@link SendQueue}); never waits for room. From a worker, which
     * may transmit the chain on its own thread. False when the connection is gone (the context
     * has been told).
     */
    boolean postChain(List<SendWr> wrs, WorkContext ctx) {
        return postChain(wrs, ctx, true);
    }

    /** {@link #postChain} from a completion handler: the provider's own thread transmits. */
    boolean postChainFromHandler(List<SendWr> wrs, WorkContext ctx) {
        return postChain(wrs, ctx, false);
    }

    private boolean postChain(List<SendWr> wrs, WorkContext ctx, boolean fromWorker) {
        if (closed.get()) {
            ctx.abandoned();
            return false;
        }
        return sendQueue.submit(new SendQueue.Chain(wrs, ctx), fromWorker);
    }

    long nextWrId() {
        return wrIds.getAndIncrement();
    }

    void onSendCompletion(WorkCompletion wc) {
        if (!wc.ok() && !closed.get()) {
            LOG.debug("connection {}: {} failed: {}", id(), wc.kind(), wc.status());
            close(); // the queue pair flushes: every chain still posted ends as abandoned
        }
        sendQueue.completed(wc);
    }

    void onRecvCompletion(WorkCompletion wc) {
        lastReceiveNanos = System.nanoTime();
        receiveTaken();
        if (!wc.ok()) {
            close();
            return;
        }
        try {
            recvFrom.received((int) wc.wrId(), (int) wc.byteLength());
        } catch (RuntimeException e) {
            LOG.warn("connection {}: receive handling failed; disconnecting", id(), e);
            close();
        }
    }

    boolean isClosed() {
        return closed.get();
    }

    /**
     * Disconnects without waiting (idempotent): the caller may be a completion handler. The queue
     * pair's disconnect waits until its threads no longer touch registered memory, so it, and what
     * must follow it, run on a virtual thread ({@link #teardown}); what was in flight is released
     * there, or when its call ends.
     */
    void close() {
        if (closed.compareAndSet(false, true)) {
            Thread.ofVirtual().name("rdma-close-" + id()).start(this::teardown);
        }
    }

    /**
     * Disconnects and returns once the queue pair is down and the dispatcher told: for the server's
     * own stop and eviction, never for a completion handler.
     */
    void closeAndWait() throws InterruptedException {
        if (closed.compareAndSet(false, true)) {
            teardown();
        } else {
            tornDown.await();
        }
    }

    /**
     * The queue pair flushes first, so nothing a chain names is released while the pair may still
     * use it; then every chain still posted or waiting is abandoned, the dispatcher hears of the
     * close, and the buffers go once no call is being dispatched.
     */
    private void teardown() {
        try {
            QueuePair q = qp;
            if (q != null) {
                q.disconnect();
            }
            sendQueue.close();
            if (backchannel != null) {
                backchannel.close();
            }
            server.connectionClosed(this);
        } finally {
            tornDown.countDown();
            freeIfDone();
        }
    }

    private void freeIfDone() {
        if (tornDown.getCount() > 0 || busy.get() > 0 || !freed.compareAndSet(false, true)) {
            return;
        }
        if (sendCq != null) {
            sendCq.close();
        }
        if (recvCq != null) {
            recvCq.close();
        }
        releaseAll(receiveLeases);
        synchronized (sendLeases) {
            releaseAll(sendLeases);
        }
    }
}
