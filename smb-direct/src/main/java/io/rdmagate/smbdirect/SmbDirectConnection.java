package io.rdmagate.smbdirect;

import io.rdmagate.rdma.CompletionQueue;
import io.rdmagate.rdma.MemoryRegion;
import io.rdmagate.rdma.QueuePair;
import io.rdmagate.rdma.RdmaException;
import io.rdmagate.rdma.RecvWr;
import io.rdmagate.rdma.Sge;
import io.rdmagate.rdma.WorkCompletion;
import io.rdmagate.smbdirect.message.BufferDescriptor;
import io.rdmagate.smbdirect.message.NegotiateRequest;
import io.rdmagate.smbdirect.message.NegotiateResponse;
import io.rdmagate.vfs.VfsException;
import io.rdmagate.vfs.memory.IoMemory;
import io.rdmagate.vfs.memory.IoMemoryPool;
import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One SMB Direct connection (MS-SMBD 3.1.1.1: the Connection object): its queue pair, the receive
 * and send buffers it leases from the process's one I/O pool (whose slabs are registered already),
 * the negotiated sizes, and its two directions — {@link RecvFrom} and {@link SendQueue} — with the
 * RDMA channel's transfers ({@link RdmaTransfer}).
 *
 * <p>Operation: {@link SmbDirectServer} builds it when a connect passes the connection bound and
 * the pool can hold its receives without waiting; every receive is posted in the accept's setup.
 * The Negotiate Request must come within {@code negotiateTimeout}; the Negotiate Response grants
 * the client every posted receive, and the upper layer hears {@link SmbDirectUpper#opened}. Then
 * SMB2 messages go up through {@link SmbDirectUpper#received} and down through {@link #send}.
 * A keep-alive asks an idle client to answer every {@code keepaliveInterval}; silence for another
 * interval, or a send queue that no credit has moved for as long, ends the connection. Closing never
 * waits where it is called: the teardown runs on a virtual thread (the queue pair flushes first, so
 * no buffer is released while the device may still use it).
 */
public final class SmbDirectConnection {
    private static final Logger LOG = LoggerFactory.getLogger(SmbDirectConnection.class);
    private static final AtomicLong IDS = new AtomicLong(1);
    /** MS-SMBD 2.2.1: the one version. */
    public static final int VERSION = 0x0100;
    private static final int STATUS_SUCCESS = 0;

    private final SmbDirectServer server;
    private final SmbDirectOptions options;
    private final long id = IDS.getAndIncrement();
    private final IoMemoryPool.Account account;
    private final IoMemory[] receiveLeases;
    private final int[] receiveLkeys;
    private final IoMemory[] sendLeases;
    private final int[] sendLkeys;
    private final boolean[] held;
    private final RecvFrom recvFrom = new RecvFrom(this);
    private final SendQueue sendQueue;
    private final RdmaTransfer rdma;
    private final AtomicBoolean closed = new AtomicBoolean();
    private final java.util.concurrent.CountDownLatch tornDown = new java.util.concurrent.CountDownLatch(1);
    private volatile QueuePair qp;
    private volatile boolean negotiated;
    private volatile SmbDirectUpper upper;
    private volatile int sendSize;
    private volatile int peerMaxFragmented;
    private volatile long lastReceiveNanos = System.nanoTime();
    private volatile boolean keepaliveOut;
    private int heldCount;
    private boolean freed;
    CompletionQueue sendCq;
    CompletionQueue recvCq;
    private final InetSocketAddress remote;
    private final InetSocketAddress local;

    SmbDirectConnection(SmbDirectServer server, InetSocketAddress remote, InetSocketAddress local)
            throws RdmaException {
        this.server = server;
        this.options = server.options();
        this.remote = remote;
        this.local = local;
        this.account = server.pool().account("smbd:" + remote.getAddress().getHostAddress() + ":" + remote.getPort());
        int receives = options.receiveCredits();
        int sends = options.sendCredits();
        this.receiveLeases = new IoMemory[receives];
        this.receiveLkeys = new int[receives];
        this.held = new boolean[receives];
        this.sendLeases = new IoMemory[sends];
        this.sendLkeys = new int[sends];
        try {
            for (int k = 0; k < receives; k++) {
                receiveLeases[k] = account.leaseNow(options.maxReceiveSize());
                receiveLkeys[k] = lkey(receiveLeases[k]);
            }
            for (int k = 0; k < sends; k++) {
                sendLeases[k] = account.leaseNow(options.maxSendSize());
                sendLkeys[k] = lkey(sendLeases[k]);
            }
        } catch (VfsException e) {
            releaseAll();
            throw new RdmaException("the I/O memory pool cannot hold the buffers of another SMB Direct connection now: "
                    + e.getMessage());
        } catch (RdmaException e) {
            releaseAll();
            throw e;
        }
        this.sendQueue = new SendQueue(this, sends, sqSlots(), receives, options.sendCredits());
        this.rdma = new RdmaTransfer(this);
    }

    /** Send queue slots: one per send buffer, and as many again for RDMA channel transfers. */
    int sqSlots() {
        return options.sendCredits() + RdmaTransfer.MAX_CHAIN;
    }

    int receiveCount() {
        return receiveLeases.length;
    }

    private int lkey(IoMemory m) throws RdmaException {
        if (m.registration() instanceof MemoryRegion mr && server.rdma().owns(mr)) {
            return mr.lkey();
        }
        throw new RdmaException("the I/O memory pool is not registered with the RDMA device");
    }

    // ---- what the parts share

    SmbDirectOptions options() {
        return options;
    }

    IoMemoryPool.Account account() {
        return account;
    }

    SendQueue sendQueue() {
        return sendQueue;
    }

    SmbDirectServer server() {
        return server;
    }

    QueuePair queuePair() {
        return qp;
    }

    boolean negotiated() {
        return negotiated;
    }

    int sendSize() {
        return sendSize;
    }

    int peerMaxFragmented() {
        return peerMaxFragmented;
    }

    MemorySegment receiveBuffer(int k) {
        return receiveLeases[k].segment();
    }

    MemorySegment sendBuffer(int k) {
        return sendLeases[k].segment();
    }

    int sendLkey(int k) {
        return sendLkeys[k];
    }

    void countCopy(long bytes) {
        server.copies().add("rdma", bytes);
    }

    void countRead(long bytes) {
        server.rdmaReadBytes().add(bytes);
    }

    void received() {
        lastReceiveNanos = System.nanoTime();
        keepaliveOut = false;
    }

    // ---- the upper layer's side

    public InetSocketAddress remoteAddress() {
        return remote;
    }

    public InetSocketAddress localAddress() {
        return local;
    }

    public boolean isOpen() {
        QueuePair q = qp;
        return !closed.get() && q != null && q.state() == QueuePair.State.CONNECTED;
    }

    /** The largest RDMA transfer of one READ or WRITE (MaxReadWriteSize). */
    public int maxReadWriteSize() {
        return options.maxReadWriteSize();
    }

    public int maxDescriptors() {
        return options.maxDescriptors();
    }

    /**
     * Sends one SMB2 message: {@code parts} then {@code payload} (released once copied), in Data
     * Transfer Messages of at most the negotiated size. {@code invalidate}: the client token the
     * last one invalidates (Send with Invalidate), or -1. Never waits: what has no credit yet is
     * queued.
     */
    public void send(List<ByteBuffer> parts, IoMemory payload, long invalidate) {
        if (payload != null) {
            countCopy(payload.length()); // copied into the send buffers
        }
        sendQueue.submit(parts, payload, invalidate);
    }

    /** RDMA-Writes {@code data} into the client's buffers ahead of the next message; releases it when done. */
    public void rdmaWrite(List<BufferDescriptor> into, IoMemory data) {
        server.rdmaWriteBytes().add(data.length());
        rdma.write(into, data);
    }

    /** RDMA-Reads {@code length} bytes from the client's buffers into memory leased from {@code into}. */
    public CompletableFuture<IoMemory> rdmaRead(List<BufferDescriptor> from, int length, IoMemoryPool.Account into) {
        return rdma.read(from, length, into);
    }

    /** Stops (true) or resumes granting credits: the client then cannot send more requests. */
    public void pauseReceiving(boolean pause) {
        sendQueue.pause(pause);
    }

    public void disconnect() {
        close("disconnected by the server");
    }

    // ---- lifecycle

    /** Called in the accept's setup, before the client can send: posts every receive. */
    void attach(QueuePair q) throws RdmaException {
        this.qp = q;
        sendQueue.setReadsFree(Math.max(1, q.outboundReads()));
        for (int k = 0; k < receiveLeases.length; k++) {
            postReceive(k);
        }
    }

    private void postReceive(int k) throws RdmaException {
        MemorySegment b = receiveLeases[k].segment();
        qp.postReceive(RecvWr.of(k, new Sge(b.address(), (int) b.byteSize(), receiveLkeys[k])));
        sendQueue.receivePosted();
    }

    /** Posts receive {@code k} again (its message consumed); after the end, releases nothing here. */
    void repost(int k) {
        if (closed.get()) {
            return;
        }
        try {
            postReceive(k);
        } catch (RdmaException | RuntimeException e) {
            close("posting a receive failed: " + e);
        }
    }

    void onRecvCompletion(WorkCompletion wc) {
        try {
            recvFrom.completed(wc);
        } catch (RuntimeException e) {
            server.internalError();
            LOG.error("SMB Direct connection {}: receive processing failed", id, e);
            close("receive processing failed: " + e);
        }
    }

    void onSendCompletion(WorkCompletion wc) {
        try {
            sendQueue.completed(wc);
        } catch (RuntimeException e) {
            server.internalError();
            LOG.error("SMB Direct connection {}: send completion failed", id, e);
            close("send completion failed: " + e);
        }
    }

    /**
     * MS-SMBD 3.1.5.2 (as the server): checks the Negotiate Request and answers it. A request this
     * server cannot serve (another version, sizes below the spec's minimums) ends the connection.
     */
    void negotiate(NegotiateRequest req, int length) {
        String bad = refusal(req, length);
        if (bad != null) {
            server.refusedNegotiation();
            close("Negotiate Request refused: " + bad);
            return;
        }
        // 3.1.5.2: what we send is bounded by what the client receives; what it sends by what we do
        sendSize = (int) Math.min(options.maxSendSize(), Integer.toUnsignedLong(req.maxReceiveSize()));
        peerMaxFragmented = (int) Math.min(Integer.MAX_VALUE, Integer.toUnsignedLong(req.maxFragmentedSize()));
        int granted = sendQueue.grantAll();
        NegotiateResponse resp = new NegotiateResponse(VERSION, VERSION, VERSION, options.sendCredits(), granted,
                STATUS_SUCCESS, options.maxReadWriteSize(), sendSize, options.maxReceiveSize(),
                options.maxFragmentedSize());
        negotiated = true;
        try {
            sendQueue.postNegotiateResponse(resp);
        } catch (RdmaException | RuntimeException e) {
            close("sending the Negotiate Response failed: " + e);
            return;
        }
        SmbDirectUpper u = server.newUpper(this);
        upper = u;
        u.opened(this);
        LOG.debug("SMB Direct connection {} from {} negotiated: send {}, receive {}, fragmented {}", id, remote,
                sendSize, options.maxReceiveSize(), peerMaxFragmented);
    }

    /**
     * Why a Negotiate Request of {@code length} bytes is refused (MS-SMBD 3.1.5.6: no common
     * version, no credits asked, sizes below the minimums), or null when it is taken.
     */
    static String refusal(NegotiateRequest req, int length) {
        return req == null ? "Negotiate Request of " + length + " bytes"
                : req.minVersion() > VERSION || req.maxVersion() < VERSION
                        ? "versions 0x" + Integer.toHexString(req.minVersion()) + "-0x" + Integer.toHexString(req.maxVersion())
                        : req.creditsRequested() == 0 ? "CreditsRequested 0"
                        : Integer.toUnsignedLong(req.maxReceiveSize()) < SmbDirectOptions.MIN_RECEIVE_SIZE
                                ? "MaxReceiveSize " + Integer.toUnsignedLong(req.maxReceiveSize())
                        : Integer.toUnsignedLong(req.maxFragmentedSize()) < SmbDirectOptions.MIN_FRAGMENTED_SIZE
                                ? "MaxFragmentedSize " + Integer.toUnsignedLong(req.maxFragmentedSize())
                        : Integer.toUnsignedLong(req.preferredSendSize()) < SmbDirectOptions.MIN_RECEIVE_SIZE
                                ? "PreferredSendSize " + Integer.toUnsignedLong(req.preferredSendSize())
                        : null;
    }

    /** A whole message in receive buffer {@code k}: up to the upper layer, the receive posted again on release. */
    void deliver(ByteBuffer message, int k) {
        synchronized (held) {
            held[k] = true;
            heldCount++;
        }
        AtomicBoolean once = new AtomicBoolean();
        upper.received(message, () -> {
            if (!once.compareAndSet(false, true)) {
                return;
            }
            boolean free;
            synchronized (held) {
                held[k] = false;
                heldCount--;
                free = closed.get();
            }
            if (free) {
                freeIfDone();
            } else {
                repost(k);
                sendQueue.pump(Thread.currentThread().isVirtual());
            }
        });
    }

    /** A message reassembled from fragments: its memory goes back to the pool on release. */
    void deliverReassembled(IoMemory whole) {
        AtomicBoolean once = new AtomicBoolean();
        upper.received(whole.segment().asByteBuffer().order(java.nio.ByteOrder.LITTLE_ENDIAN), () -> {
            if (once.compareAndSet(false, true)) {
                whole.release();
            }
        });
    }

    /** The timers: the negotiation's deadline, keep-alives, and a send queue no credit moves. */
    void tick(long nowNanos, long createdNanos) {
        if (closed.get()) {
            return;
        }
        if (!negotiated) {
            if (nowNanos - createdNanos > options.negotiateTimeout().toNanos()) {
                server.negotiateTimedOut();
                close("no Negotiate Request within " + options.negotiateTimeout());
            }
            return;
        }
        long interval = options.keepaliveInterval().toNanos();
        if (sendQueue.starvedNanos() > interval) {
            close("the client granted no send credit for " + options.keepaliveInterval());
            return;
        }
        if (nowNanos - lastReceiveNanos > interval) {
            if (keepaliveOut) {
                close("the client did not answer a keep-alive");
                return;
            }
            keepaliveOut = true;
            lastReceiveNanos = nowNanos;
            sendQueue.keepalive(); // MS-SMBD 3.1.6.2
        }
    }

    /** Ends the connection; never waits here (a completion handler may call it). */
    void close(String why) {
        if (closed.compareAndSet(false, true)) {
            LOG.debug("SMB Direct connection {} from {} closed: {}", id, remote, why);
            Thread.ofVirtual().name("smbd-close-" + id).start(this::teardown);
        }
    }

    /** Disconnects and returns once torn down: the server's own stop. */
    void closeAndWait() throws InterruptedException {
        closeAndWait("the server stops");
    }

    /** Disconnects for {@code why} and returns once torn down (out of the server's count). */
    void closeAndWait(String why) throws InterruptedException {
        close(why);
        tornDown.await();
    }

    boolean isClosed() {
        return closed.get();
    }

    /** When the connection last received a message (or sent a keep-alive for want of one). */
    long lastReceiveNanos() {
        return lastReceiveNanos;
    }

    private void teardown() {
        try {
            QueuePair q = qp;
            if (q != null) {
                q.disconnect(); // posted work flushes: nothing below is in the device's hands any more
            }
            sendQueue.close();
            recvFrom.close();
            SmbDirectUpper u = upper;
            if (u != null) {
                u.closed();
            }
            server.connectionClosed(this);
        } finally {
            tornDown.countDown();
            freeIfDone();
        }
    }

    /** Releases the buffers once torn down and the upper layer holds no receive buffer. */
    private void freeIfDone() {
        synchronized (held) {
            if (tornDown.getCount() > 0 || heldCount > 0 || freed) {
                return;
            }
            freed = true;
        }
        if (sendCq != null) {
            sendCq.close();
        }
        if (recvCq != null) {
            recvCq.close();
        }
        releaseAll();
    }

    private void releaseAll() {
        for (IoMemory[] leases : List.of(receiveLeases, sendLeases)) {
            for (int k = 0; k < leases.length; k++) {
                if (leases[k] != null) {
                    leases[k].release();
                    leases[k] = null;
                }
            }
        }
    }

    long id() {
        return id;
    }

    @Override
    public String toString() {
        return "smbd#" + id + "@" + remote;
    }
}
