package io.rdmagate.rdma.verbs;

import io.rdmagate.rdma.Opcode;
import io.rdmagate.rdma.QpConfig;
import io.rdmagate.rdma.QueuePair;
import io.rdmagate.rdma.RdmaException;
import io.rdmagate.rdma.RecvWr;
import io.rdmagate.rdma.SendWr;
import io.rdmagate.rdma.WcStatus;
import io.rdmagate.rdma.WorkCompletion;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.ScheduledFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A reliable-connected queue pair made with {@code rdma_create_qp} on a connection's rdma_cm_id, in
 * the device's protection domain and on its completion queues; librdmacm moves it through INIT, RTR
 * and RTS as the connection is accepted or established (man rdma_create_qp).
 *
 * <p>Operation, posting: a post validates the request against the queue pair's limits (refused at
 * once when malformed or the queue is full), writes it into the queue's {@link WorkRequestRing}
 * slot and calls the provider's {@code post_send}/{@code post_recv} through {@link ContextOps} on
 * the caller's thread; deferred sends stay linked in the ring until {@link #doorbell} posts the
 * chain with one call. Completing: the device's {@link CompletionPoller} hands each completion to
 * {@link #completed}, which retires its slot and says what the CQ's handler gets.
 *
 * <p>Operation, failure and teardown: the first completion in error, a post the device refuses, a
 * DISCONNECTED (or other terminal) rdma_cm event, a closed CQ or a local {@link #disconnect} moves
 * the pair out of CONNECTED ({@link #fail}): the device's worker calls {@code rdma_disconnect} (man
 * rdma_disconnect: called by both sides; it "transitions any associated QP to the error state,
 * which will flush any posted work requests", and the peer gets DISCONNECTED) and moves the QP to
 * the error state itself where that is still needed ({@code ibv_modify_qp}, IBV_QPS_ERR). Requests posted afterwards, and deferred ones never posted, complete with
 * WR_FLUSH_ERROR from the provider, after the device's own completions of the same queue. Once
 * rdma_cm is done with the connection and every posted request has completed, the worker destroys
 * the QP and the id ({@code rdma_destroy_qp}, {@code rdma_destroy_id}); if that takes longer than
 * {@link #TEARDOWN_GRACE}, it does so anyway and flushes what is left itself.
 *
 * <p>Not reported: the solicited flag of a receive (a verbs receiver cannot see it: ibv_wc has no
 * such field).
 */
final class VerbsQueuePair implements QueuePair, CmEventLoop.Endpoint {
    private static final Logger log = LoggerFactory.getLogger(VerbsQueuePair.class);
    /** How long a failed queue pair waits for its flushes and its last rdma_cm event before it is destroyed anyway. */
    static final Duration TEARDOWN_GRACE = Duration.ofSeconds(10);
    /** User callbacks (ConnectionEvents) run here, in order per queue pair, off the provider's threads. */
    private static final Executor CALLBACKS = r -> Thread.ofVirtual().name("verbs-events").start(r);

    private final VerbsDevice device;
    private final CmEventLoop loop;
    private final MemorySegment id;
    private final int serial;
    private final QpConfig config;
    private final VerbsProtectionDomain pd;
    private final VerbsCompletionQueue sendCq;
    private final VerbsCompletionQueue recvCq;
    private final String peer;
    private final Arena arena = Arena.ofShared();
    private final WorkRequestRing sendRing;
    private final WorkRequestRing recvRing;
    private final MemorySegment badSend;
    private final MemorySegment badRecv;
    private final Object sendLock = new Object();
    private final Object recvLock = new Object();
    /** Provider-made completions waiting for the device's completions of the same queue (under the queue's lock). */
    private final List<WorkCompletion> sendFlushes = new ArrayList<>();
    private final List<WorkCompletion> recvFlushes = new ArrayList<>();
    /** The ibv_qp; set before the pair is published. */
    private MemorySegment qp;
    /**
     * Set under both queue locks when the native rings are released; read under either.
     */
    private boolean destroyed;

    // lifecycle, guarded by stateLock; locks are taken queue lock first, stateLock last, never the other way
    private final Object stateLock = new Object();
    private volatile State state = State.CONNECTED;
    private boolean handedOut;
    private boolean cmConnected;
    private boolean cmDone;
    private boolean teardownStarted;
    private ScheduledFuture<?> deadline;

    private final Object callbacksLock = new Object();
    private CompletableFuture<Void> callbacks = CompletableFuture.completedFuture(null);

    private volatile byte[] remotePrivateData = new byte[0];
    private volatile int inboundReads;
    private volatile int outboundReads;
    private volatile InetSocketAddress local;
    private volatile InetSocketAddress remote;

    private VerbsQueuePair(VerbsDevice device, CmEventLoop loop, MemorySegment id, int serial, QpConfig config,
            String peer) {
        this.device = device;
        this.loop = loop;
        this.id = id;
        this.serial = serial;
        this.config = config;
        this.pd = (VerbsProtectionDomain) config.pd();
        this.sendCq = (VerbsCompletionQueue) config.sendCq();
        this.recvCq = (VerbsCompletionQueue) config.recvCq();
        this.peer = peer;
        this.sendRing = new WorkRequestRing(arena, false, serial, config.maxSendWr(), config.maxSge());
        this.recvRing = new WorkRequestRing(arena, true, serial, config.maxRecvWr(), config.maxSge());
        this.badSend = arena.allocate(ValueLayout.ADDRESS);
        this.badRecv = arena.allocate(ValueLayout.ADDRESS);
        this.local = SockAddr.local(id);
        this.remote = SockAddr.peer(id);
    }

    /**
     * Makes the queue pair of the connection {@code id} (bound to the device: a connect request's id,
     * or an active id after route resolution). The caller checked {@code config} with
     * {@link VerbsDevice#check}. On success the pair owns the id: its teardown destroys it.
     */
    static VerbsQueuePair create(VerbsDevice device, CmEventLoop loop, MemorySegment id, QpConfig config, String peer)
            throws RdmaException {
        int serial = device.queuePairs().reserve();
        VerbsQueuePair q;
        try {
            q = new VerbsQueuePair(device, loop, id, serial, config, peer);
        } catch (RuntimeException e) {
            device.queuePairs().remove(serial);
            throw e;
        }
        try {
            q.open();
        } catch (RdmaException | RuntimeException e) {
            device.queuePairs().remove(serial);
            q.arena.close();
            throw e;
        }
        device.queuePairs().add(serial, q);
        return q;
    }

    /** Takes its places in the domain and the CQs (refused when closed), then makes the QP. */
    private void open() throws RdmaException {
        pd.attach();
        try {
            if (sendCq == recvCq) {
                sendCq.attach(this, config.maxSendWr() + config.maxRecvWr());
            } else {
                sendCq.attach(this, config.maxSendWr());
                try {
                    recvCq.attach(this, config.maxRecvWr());
                } catch (RdmaException e) {
                    sendCq.detach(this, config.maxSendWr());
                    throw e;
                }
            }
            try {
                createQp();
            } catch (RdmaException | RuntimeException e) {
                detachCqs();
                throw e;
            }
        } catch (RdmaException | RuntimeException e) {
            pd.detach();
            throw e;
        }
    }

    private void createQp() throws RdmaException {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment errno = Libibverbs.errnoBuffer(a);
            MemorySegment attr = a.allocate(IbvAbi.QP_INIT_BYTES, 8);
            attr.set(ValueLayout.ADDRESS, IbvAbi.QP_INIT_SEND_CQ, sendCq.cq);
            attr.set(ValueLayout.ADDRESS, IbvAbi.QP_INIT_RECV_CQ, recvCq.cq);
            attr.set(ValueLayout.ADDRESS, IbvAbi.QP_INIT_SRQ, MemorySegment.NULL);
            attr.set(ValueLayout.JAVA_INT, IbvAbi.QP_INIT_MAX_SEND_WR, config.maxSendWr());
            attr.set(ValueLayout.JAVA_INT, IbvAbi.QP_INIT_MAX_RECV_WR, config.maxRecvWr());
            attr.set(ValueLayout.JAVA_INT, IbvAbi.QP_INIT_MAX_SEND_SGE, config.maxSge());
            attr.set(ValueLayout.JAVA_INT, IbvAbi.QP_INIT_MAX_RECV_SGE, config.maxSge());
            attr.set(ValueLayout.JAVA_INT, IbvAbi.QP_INIT_MAX_INLINE_DATA, 0);
            attr.set(ValueLayout.JAVA_INT, IbvAbi.QP_INIT_QP_TYPE, IbvAbi.QPT_RC);
            attr.set(ValueLayout.JAVA_INT, IbvAbi.QP_INIT_SQ_SIG_ALL, 1); // every request completes: see WorkRequestRing
            int rc = (int) device.cm().createQp.invokeExact(errno, id, pd.pd, attr);
            if (rc != 0) {
                throw new RdmaException("rdma_create_qp on " + device.name() + " failed: errno " + Libibverbs.errno(errno)
                        + " (send " + config.maxSendWr() + ", receive " + config.maxRecvWr() + ", SGEs " + config.maxSge()
                        + ")");
            }
            MemorySegment made = id.get(ValueLayout.ADDRESS, RdmaCmAbi.ID_QP).reinterpret(IbvAbi.QP_BYTES);
            // the caps the device gave (man rdma_create_qp: returned through qp_init_attr) cover what the rings allow
            boolean enough = attr.get(ValueLayout.JAVA_INT, IbvAbi.QP_INIT_MAX_SEND_WR) >= config.maxSendWr()
                    && attr.get(ValueLayout.JAVA_INT, IbvAbi.QP_INIT_MAX_RECV_WR) >= config.maxRecvWr()
                    && attr.get(ValueLayout.JAVA_INT, IbvAbi.QP_INIT_MAX_SEND_SGE) >= config.maxSge()
                    && attr.get(ValueLayout.JAVA_INT, IbvAbi.QP_INIT_MAX_RECV_SGE) >= config.maxSge();
            boolean ours = made.get(ValueLayout.ADDRESS, IbvAbi.QP_CONTEXT).address() == device.context().address();
            if (!enough || !ours) {
                device.cm().destroyQp.invokeExact(errno, id);
                throw new RdmaException(!ours ? "rdma_create_qp made the QP on another context"
                        : "the device gave a QP smaller than asked for");
            }
            qp = made;
        } catch (RdmaException e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException("rdma_create_qp", t);
        }
    }

    int serial() {
        return serial;
    }

    MemorySegment id() {
        return id;
    }

    // ------------------------------------------------------------------ connection management

    /** Passive side, before rdma_accept: the request's private data and the reads agreed. */
    void accepting(byte[] peerPrivateData, int ird, int ord) {
        this.remotePrivateData = peerPrivateData.clone();
        this.inboundReads = ird;
        this.outboundReads = ord;
    }

    /** rdma_accept or rdma_connect succeeded: rdma_cm will report the connection's end. */
    void cmConnecting(boolean handOut) {
        synchronized (stateLock) {
            cmConnected = true;
            handedOut |= handOut;
        }
    }

    /** Active side, at ESTABLISHED: the reply's private data and the reads agreed. */
    void connected(byte[] peerPrivateData, int ird, int ord) {
        this.remotePrivateData = peerPrivateData.clone();
        this.inboundReads = ird;
        this.outboundReads = ord;
        established();
    }

    private void established() {
        this.local = SockAddr.local(id);
        this.remote = SockAddr.peer(id);
        synchronized (stateLock) {
            handedOut = true;
            if (state != State.CONNECTED) {
                return;
            }
        }
        notifyUser(() -> config.events().established(this));
    }

    /** Events of the connection once it is accepted (passive) or established (active). */
    @Override
    public void onCmEvent(CmEvent e) {
        switch (e.type()) {
            case RdmaCmAbi.ESTABLISHED -> established();
            case RdmaCmAbi.DISCONNECTED -> {
                fail("disconnected by the peer", false);
                cmDone();
            }
            case RdmaCmAbi.CONNECT_ERROR, RdmaCmAbi.UNREACHABLE, RdmaCmAbi.REJECTED -> {
                fail("connection failed: " + e.describe(), false);
                cmDone();
            }
            case RdmaCmAbi.DEVICE_REMOVAL -> {
                fail("device " + device.name() + " removed", false);
                cmDone();
            }
            default -> log.debug("{} {}: {}", device.name(), peer, e.describe()); // TIMEWAIT_EXIT, ADDR_CHANGE
        }
    }

    /** Setting up the connection failed after the QP was made: tear it down; nobody is told. */
    void abandon(String reason) {
        fail(reason, false);
        cmDone();
    }

    // ------------------------------------------------------------------ posting

    @Override
    public void postReceive(RecvWr wr) throws RdmaException {
        if (wr.sgl().size() > config.maxSge()) {
            throw new RdmaException(wr.sgl().size() + " SGEs; the queue pair allows " + config.maxSge());
        }
        synchronized (recvLock) {
            if (state != State.CONNECTED || destroyed) {
                flushLater(recvRing, recvFlushes, recvCq, List.of(flushed(wr)));
                return;
            }
            if (recvRing.full()) {
                throw new RdmaException("receive queue full (" + recvRing.depth() + ")");
            }
            recvRing.addRecv(wr);
            int rc = device.ops().postRecv(qp, recvRing.firstUnposted(), badRecv);
            if (rc == 0) {
                recvRing.posted();
                return;
            }
            List<WorkCompletion> back = recvRing.takeBackFrom(badRecv.get(ValueLayout.ADDRESS, 0).address(),
                    WcStatus.WR_FLUSH_ERROR, this);
            if (state == State.CONNECTED) {
                throw new RdmaException("ibv_post_recv on " + device.name() + " failed: errno " + rc);
            }
            flushLater(recvRing, recvFlushes, recvCq, back);
        }
    }

    @Override
    public void postSend(SendWr wr) throws RdmaException {
        post(wr, true);
    }

    /** Queued in the ring, linked to the deferred requests before it, until {@link #doorbell} posts the chain. */
    @Override
    public void postSendDeferred(SendWr wr) throws RdmaException {
        post(wr, false);
    }

    /** Posts the deferred chain with one {@code ibv_post_send}, on the calling thread (it never blocks). */
    @Override
    public void doorbell(boolean transmitHere) {
        String failure;
        synchronized (sendLock) {
            if (destroyed || sendRing.unposted() == 0) {
                return;
            }
            failure = ringSend();
        }
        if (failure != null) {
            fail(failure, false);
        }
    }

    private void post(SendWr wr, boolean now) throws RdmaException {
        check(wr);
        String failure = null;
        synchronized (sendLock) {
            if (state != State.CONNECTED || destroyed) {
                flushLater(sendRing, sendFlushes, sendCq, List.of(WorkCompletion.forSend(wr, WcStatus.WR_FLUSH_ERROR, this)));
                return;
            }
            if (sendRing.full()) {
                throw new RdmaException("send queue full (" + sendRing.depth() + ")");
            }
            sendRing.addSend(wr);
            if (now) {
                if (sendRing.unposted() == 1) {
                    int rc = device.ops().postSend(qp, sendRing.firstUnposted(), badSend);
                    if (rc == 0) {
                        sendRing.posted();
                        return;
                    }
                    List<WorkCompletion> back = sendRing.takeBackFrom(badSend.get(ValueLayout.ADDRESS, 0).address(),
                            WcStatus.WR_FLUSH_ERROR, this);
                    if (state == State.CONNECTED) {
                        throw new RdmaException("ibv_post_send on " + device.name() + " failed: errno " + rc);
                    }
                    flushLater(sendRing, sendFlushes, sendCq, back);
                    return;
                }
                failure = ringSend();
            }
        }
        if (failure != null) {
            fail(failure, false);
        }
    }

    /**
     * Posts the unposted chain (under sendLock). When the device refuses part of it, that part
     * completes in error (the refused request LOCAL_QP_OPERATION_ERROR, the rest flushed) after what
     * was posted; returns why the pair must fail, or null.
     */
    private String ringSend() {
        int rc = device.ops().postSend(qp, sendRing.firstUnposted(), badSend);
        if (rc == 0) {
            sendRing.posted();
            return null;
        }
        boolean connected = state == State.CONNECTED;
        List<WorkCompletion> back = sendRing.takeBackFrom(badSend.get(ValueLayout.ADDRESS, 0).address(),
                connected ? WcStatus.LOCAL_QP_OPERATION_ERROR : WcStatus.WR_FLUSH_ERROR, this);
        flushLater(sendRing, sendFlushes, sendCq, back);
        return connected ? "ibv_post_send of a chain failed: errno " + rc : null;
    }

    private void check(SendWr wr) throws RdmaException {
        int n = wr.sgl().size();
        if (n > config.maxSge()) {
            throw new RdmaException(n + " SGEs; the queue pair allows " + config.maxSge());
        }
        if (wr.opcode() == Opcode.RDMA_READ && n > device.maxSgeRead()) {
            throw new RdmaException(n + " SGEs in an RDMA Read; " + device.name() + " allows " + device.maxSgeRead());
        }
        if (wr.length() > device.limits().maxMessageBytes()) {
            throw new RdmaException("message of " + wr.length() + " bytes; " + device.name() + " allows "
                    + device.limits().maxMessageBytes());
        }
    }

    private WorkCompletion flushed(RecvWr wr) {
        return new WorkCompletion(wr.wrId(), WorkCompletion.Kind.RECV, WcStatus.WR_FLUSH_ERROR, 0, 0, false, this);
    }

    /**
     * Queues provider-made completions behind the device's completions still due on the same queue
     * (under that queue's lock): they go to the CQ as soon as none is outstanding.
     */
    private void flushLater(WorkRequestRing ring, List<WorkCompletion> pending, VerbsCompletionQueue cq,
            List<WorkCompletion> wcs) {
        pending.addAll(wcs);
        releaseIfDrained(ring, pending, cq);
    }

    private static void releaseIfDrained(WorkRequestRing ring, List<WorkCompletion> pending, VerbsCompletionQueue cq) {
        if (!pending.isEmpty() && ring.outstanding() == 0) {
            cq.offerSynthetic(List.copyOf(pending));
            pending.clear();
        }
    }

    // ------------------------------------------------------------------ completions (poller thread)

    /**
     * A completion of this pair's {@code slot}: retires it and returns what the CQ's handler gets, or
     * null (a success of an unsignaled request). The first error fails the pair before its completion
     * is delivered, so a handler that sees the error sees the state too.
     */
    WorkCompletion completed(boolean receive, int slot, int ibvStatus, long byteLength, int wcFlags, int invalidatedRkey,
            int vendorError) {
        WcStatus status = WcStatuses.of(ibvStatus);
        if (status != WcStatus.SUCCESS && state == State.CONNECTED) {
            fail((receive ? "a receive" : "a send") + " completed with " + WcStatuses.name(ibvStatus)
                    + " (vendor error 0x" + Integer.toHexString(vendorError) + ")", false);
        }
        boolean invalidated = receive && status == WcStatus.SUCCESS && (wcFlags & IbvAbi.WC_WITH_INV) != 0;
        WorkCompletion wc;
        if (receive) {
            synchronized (recvLock) {
                wc = recvRing.retire(slot, status, byteLength, invalidated ? invalidatedRkey : 0, this);
                releaseIfDrained(recvRing, recvFlushes, recvCq);
            }
        } else {
            synchronized (sendLock) {
                wc = sendRing.retire(slot, status, byteLength, 0, this);
                releaseIfDrained(sendRing, sendFlushes, sendCq);
            }
        }
        if (invalidated) {
            device.invalidatedByPeer(invalidatedRkey);
        }
        if (state != State.CONNECTED) {
            maybeTeardown();
        }
        return wc;
    }

    // ------------------------------------------------------------------ failure and teardown

    @Override
    public void disconnect() {
        fail("disconnected locally", true);
    }

    /** Moves the pair out of CONNECTED, once: see the class comment. */
    void fail(String reason, boolean local) {
        boolean announce;
        boolean disconnectCm;
        synchronized (stateLock) {
            if (state != State.CONNECTED) {
                return;
            }
            state = local ? State.CLOSED : State.ERROR;
            announce = handedOut;
            disconnectCm = cmConnected && !cmDone;
            deadline = device.schedule(TEARDOWN_GRACE, this::forceTeardown);
        }
        log.debug("{} queue pair {} ({}): {}", device.name(), Integer.toHexString(serial), peer, reason);
        synchronized (sendLock) {
            if (!destroyed) {
                flushLater(sendRing, sendFlushes, sendCq, sendRing.takeBackUnposted(this));
            }
        }
        device.background(() -> shutDown(disconnectCm));
        if (announce) {
            notifyUser(() -> config.events().disconnected(this, reason));
        }
    }

    /**
     * Worker thread: {@code rdma_disconnect}, then the QP to error (flushing what is posted). The
     * order matters: librdmacm's rdma_disconnect first moves the QP itself (to ERR over InfiniBand, to
     * SQD over iWARP: cma.c ucma_shutdown) and gives up, without telling the kernel's CM, when that
     * fails, as SQD from ERR does. Over iWARP a disconnect that went through is left to close the QP
     * (siw moves it to error and flushes both queues when the connection closes); a failed one means
     * no DISCONNECTED will come. The worker also runs {@link #destroy}, always after this (it is
     * queued later), so the QP and id are alive here unless destroy ran first.
     */
    private void shutDown(boolean disconnectCm) {
        synchronized (sendLock) {
            if (destroyed) {
                return;
            }
        }
        try (Arena a = Arena.ofConfined()) {
            MemorySegment errno = Libibverbs.errnoBuffer(a);
            boolean disconnecting = false;
            if (disconnectCm) {
                int rc = (int) device.cm().disconnect.invokeExact(errno, id);
                if (rc == 0) {
                    disconnecting = true;
                } else {
                    log.debug("{}: rdma_disconnect failed: errno {}", device.name(), Libibverbs.errno(errno));
                }
            }
            if (!disconnecting) {
                cmDone(); // not connected (any more): no DISCONNECTED will come
            }
            if (!disconnecting || !device.iwarp()) {
                MemorySegment attr = a.allocate(IbvAbi.QP_ATTR_BYTES, 8);
                attr.set(ValueLayout.JAVA_INT, IbvAbi.QP_ATTR_QP_STATE, IbvAbi.QPS_ERR);
                int modified = (int) device.ib().modifyQp.invokeExact(errno, qp, attr, IbvAbi.QP_STATE_MASK);
                if (modified != 0) {
                    log.debug("{}: ibv_modify_qp to ERR failed: {}", device.name(), modified);
                }
            }
        } catch (Throwable t) {
            log.error("{}: shutting a queue pair down failed", device.name(), t);
        }
    }

    /** rdma_cm will report nothing more that matters for this connection. */
    private void cmDone() {
        synchronized (stateLock) {
            cmDone = true;
        }
        maybeTeardown();
    }

    /** Destroys the pair once it failed, rdma_cm is done and every posted request has completed. */
    private void maybeTeardown() {
        boolean drained;
        synchronized (sendLock) {
            drained = sendRing.outstanding() == 0;
        }
        synchronized (recvLock) {
            drained &= recvRing.outstanding() == 0;
        }
        synchronized (stateLock) {
            if (state == State.CONNECTED || !cmDone || !drained || teardownStarted) {
                return;
            }
            teardownStarted = true;
        }
        device.background(() -> destroy(false));
    }

    /** Worker thread, {@link #TEARDOWN_GRACE} after the failure: destroys whatever is still outstanding. */
    private void forceTeardown() {
        synchronized (stateLock) {
            if (teardownStarted) {
                return;
            }
            teardownStarted = true;
        }
        destroy(true);
    }

    /** Worker thread: flushes what is left, destroys the QP and the id, gives back the CQ and domain places. */
    private void destroy(boolean forced) {
        device.queuePairs().remove(serial); // from now on the poller drops this pair's completions
        ScheduledFuture<?> d;
        synchronized (stateLock) {
            d = deadline;
        }
        if (d != null) {
            d.cancel(false);
        }
        List<WorkCompletion> sends;
        List<WorkCompletion> recvs;
        synchronized (sendLock) {
            sends = new ArrayList<>(sendRing.flushAll(this));
            sends.addAll(sendFlushes);
            sendFlushes.clear();
            synchronized (recvLock) {
                destroyed = true;
            }
        }
        synchronized (recvLock) {
            recvs = new ArrayList<>(recvRing.flushAll(this));
            recvs.addAll(recvFlushes);
            recvFlushes.clear();
        }
        if (forced && (!sends.isEmpty() || !recvs.isEmpty())) {
            log.debug("{}: queue pair {} destroyed with {} requests the device never completed", device.name(),
                    Integer.toHexString(serial), sends.size() + recvs.size());
        }
        sendCq.offerSynthetic(sends);
        recvCq.offerSynthetic(recvs);
        try (Arena a = Arena.ofConfined()) {
            device.cm().destroyQp.invokeExact(Libibverbs.errnoBuffer(a), id);
        } catch (Throwable t) {
            log.error("{}: rdma_destroy_qp failed", device.name(), t);
        }
        loop.destroyId(id);
        arena.close();
        detachCqs();
        pd.detach();
    }

    private void detachCqs() {
        if (sendCq == recvCq) {
            sendCq.detach(this, config.maxSendWr() + config.maxRecvWr());
        } else {
            sendCq.detach(this, config.maxSendWr());
            recvCq.detach(this, config.maxRecvWr());
        }
    }

    /** Runs {@code r} off the provider's threads, after the callbacks notified before it. */
    private void notifyUser(Runnable r) {
        synchronized (callbacksLock) {
            callbacks = callbacks.thenRunAsync(() -> {
                try {
                    r.run();
                } catch (RuntimeException e) {
                    log.error("connection event handler failed", e);
                }
            }, CALLBACKS);
        }
    }

    // ------------------------------------------------------------------ state

    @Override
    public State state() {
        return state;
    }

    @Override
    public byte[] remotePrivateData() {
        return remotePrivateData.clone();
    }

    @Override
    public int inboundReads() {
        return inboundReads;
    }

    @Override
    public int outboundReads() {
        return outboundReads;
    }

    @Override
    public InetSocketAddress localAddress() {
        return local;
    }

    @Override
    public InetSocketAddress remoteAddress() {
        return remote;
    }

    @Override
    public String toString() {
        return "verbs QP " + Integer.toHexString(serial) + " on " + device.name() + " (" + peer + ", " + state + ")";
    }
}
