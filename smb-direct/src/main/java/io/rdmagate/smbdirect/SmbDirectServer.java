package io.rdmagate.smbdirect;

import io.rdmagate.rdma.CompletionQueue;
import io.rdmagate.rdma.ConnectionEvents;
import io.rdmagate.rdma.ConnectionRequest;
import io.rdmagate.rdma.QpConfig;
import io.rdmagate.rdma.QueuePair;
import io.rdmagate.rdma.RdmaDevice;
import io.rdmagate.rdma.RdmaException;
import io.rdmagate.rdma.RdmaListener;
import io.rdmagate.rdma.RdmaResources;
import io.rdmagate.vfs.memory.IoMemoryPool;
import io.rdmagate.vfs.memory.PayloadCopies;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The SMB Direct listener (MS-SMBD 3.1.5.1 as the server): accepts RDMA connections on the
 * process's one device and protection domain, with buffers from its one I/O pool, and gives each
 * negotiated connection an upper layer (the SMB2 server).
 *
 * <p>Accepts a connect while fewer than {@code maxConnections} are open; at the bound the
 * connection that received nothing longest is closed to make room, as the TCP listeners close
 * their quietest (and knfsd its oldest idle one). A connect whose buffers the pool cannot hold
 * without waiting is rejected, before anything is allocated.
 * On iWARP the client's connect carries 8 bytes of private data, its IRD and ORD as Linux cifs
 * sends them (two 32-bit words in the host's order); the accept answers with ours in the same
 * form. A connection that does not negotiate within {@code negotiateTimeout} is closed, so idle
 * connects cannot hold the pool.
 */
public final class SmbDirectServer implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(SmbDirectServer.class);
    /** Reads this side issues at once (the WRITE data it fetches): as ksmbd, a handful is plenty. */
    private static final int ORD = 16;

    private final RdmaResources rdma;
    private final IoMemoryPool pool;
    private final PayloadCopies copies;
    private final SmbDirectOptions options;
    private final Function<SmbDirectConnection, SmbDirectUpper> uppers;
    private final Map<SmbDirectConnection, Long> connections = new ConcurrentHashMap<>();
    private final AtomicInteger open = new AtomicInteger();
    private final LongAdder refused = new LongAdder();
    private final LongAdder evicted = new LongAdder();
    /** At most one warning about the connection bound every ten seconds. */
    private final io.rdmagate.rdma.WarningThrottle boundWarnings =
            new io.rdmagate.rdma.WarningThrottle(java.time.Duration.ofSeconds(10));
    private final LongAdder negotiateTimeouts = new LongAdder();
    private final LongAdder refusedNegotiations = new LongAdder();
    private final LongAdder rdmaReadBytes = new LongAdder();
    private final LongAdder internalErrors = new LongAdder();
    private final LongAdder rdmaWriteBytes = new LongAdder();
    private final ScheduledExecutorService timers = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "smbd-timers");
        t.setDaemon(true);
        return t;
    });
    private RdmaListener listener;

    public SmbDirectServer(RdmaResources rdma, IoMemoryPool pool, PayloadCopies copies, SmbDirectOptions options,
            Function<SmbDirectConnection, SmbDirectUpper> uppers) {
        this.rdma = rdma;
        this.pool = pool;
        this.copies = copies;
        this.options = options;
        this.uppers = uppers;
        long period = Math.max(50, Math.min(options.negotiateTimeout().toMillis(), options.keepaliveInterval().toMillis()) / 4);
        timers.scheduleAtFixedRate(this::tick, period, period, TimeUnit.MILLISECONDS);
    }

    /** Listens on {@code address} (port 0 picks one). */
    public SmbDirectServer bind(InetSocketAddress address) throws RdmaException {
        listener = rdma.device().listen(address, this::onRequest);
        LOG.info("SMB Direct listening on {} ({})", listener.localAddress(), rdma.device().name());
        return this;
    }

    public InetSocketAddress localAddress() {
        return listener.localAddress();
    }

    SmbDirectOptions options() {
        return options;
    }

    RdmaResources rdma() {
        return rdma;
    }

    IoMemoryPool pool() {
        return pool;
    }

    PayloadCopies copies() {
        return copies;
    }

    SmbDirectUpper newUpper(SmbDirectConnection c) {
        return uppers.apply(c);
    }

    /** Connections open now. */
    public int openConnections() {
        return open.get();
    }

    /** Connections closed to make room for a newcomer at {@code maxConnections}. */
    public long evictedConnections() {
        return evicted.sum();
    }

    /** Connects rejected: the pool could not hold them, or no connection could make room. */
    public long refusedConnections() {
        return refused.sum();
    }

    /** Connections closed for not negotiating in time. */
    public long negotiateTimeouts() {
        return negotiateTimeouts.sum();
    }

    /** Negotiate Requests refused (versions, sizes). */
    public long refusedNegotiations() {
        return refusedNegotiations.sum();
    }

    /** Bytes RDMA-Read from clients (WRITE data). */
    public LongAdder rdmaReadBytes() {
        return rdmaReadBytes;
    }

    /** Bytes RDMA-Written to clients (READ data). */
    public LongAdder rdmaWriteBytes() {
        return rdmaWriteBytes;
    }

    /** Completions whose processing threw: a defect, which the fuzz campaign asserts never happens. */
    public long internalErrors() {
        return internalErrors.sum();
    }

    void internalError() {
        internalErrors.increment();
    }

    void negotiateTimedOut() {
        negotiateTimeouts.increment();
    }

    void refusedNegotiation() {
        refusedNegotiations.increment();
    }

    private void onRequest(ConnectionRequest request) {
        while (open.incrementAndGet() > options.maxConnections()) {
            open.decrementAndGet();
            SmbDirectConnection quiet = quietest();
            if (quiet == null) {
                refused.increment();
                LOG.warn("SMB Direct connect from {} rejected: {} connections are open", request.remoteAddress(),
                        options.maxConnections());
                request.reject(new byte[0]);
                return;
            }
            evicted.increment();
            if (boundWarnings.due()) {
                LOG.warn("SMB Direct at {} connections: closing connection {} from {}, quiet longest, for a new one from {}"
                        + " ({} closed so far)", options.maxConnections(), quiet.id(), quiet.remoteAddress(),
                        request.remoteAddress(), evicted.sum());
            }
            try {
                quiet.closeAndWait("closed to make room for a new connection"); // leaves the count first
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                request.reject(new byte[0]);
                return;
            }
        }
        SmbDirectConnection conn;
        try {
            conn = new SmbDirectConnection(this, request.remoteAddress(), request.localAddress());
        } catch (RdmaException | RuntimeException e) {
            open.decrementAndGet();
            refused.increment();
            LOG.warn("SMB Direct connect from {} refused: {}", request.remoteAddress(), e.getMessage());
            request.reject(new byte[0]);
            return;
        }
        CompletionQueue sendCq = rdma.device().createCompletionQueue(conn.sqSlots(), conn::onSendCompletion);
        CompletionQueue recvCq = rdma.device().createCompletionQueue(conn.receiveCount(), conn::onRecvCompletion);
        conn.sendCq = sendCq;
        conn.recvCq = recvCq;
        RdmaDevice device = rdma.device();
        int ord = Math.min(Math.min(ORD, device.limits().maxOutboundReads()),
                request.requestedIrd() > 0 ? request.requestedIrd() : ORD);
        int ird = Math.min(request.requestedOrd(), device.limits().maxInboundReads());
        QpConfig config = new QpConfig(rdma.pd(), sendCq, recvCq, conn.sqSlots(), conn.receiveCount(),
                Math.min(device.limits().maxSge(), 16), ird, ord, new ConnectionEvents() {
                    @Override
                    public void disconnected(QueuePair qp, String reason) {
                        conn.close(reason);
                    }
                });
        connections.put(conn, System.nanoTime());
        try {
            QueuePair qp = request.accept(config, irdOrd(ird, ord), conn::attach);
            if (qp == null) {
                conn.close("accept failed");
            }
        } catch (RdmaException | RuntimeException e) {
            LOG.warn("SMB Direct accept of {} failed: {}", request.remoteAddress(), e.toString());
            conn.close("accept failed");
        }
    }

    /** The 8-byte IRD/ORD private data of Linux's SMB Direct on iWARP (host order, as it sends). */
    static byte[] irdOrd(int ird, int ord) {
        ByteBuffer b = ByteBuffer.allocate(8).order(ByteOrder.nativeOrder());
        b.putInt(ird).putInt(ord);
        return b.array();
    }

    /** The open connection that received nothing longest, or null. */
    private SmbDirectConnection quietest() {
        SmbDirectConnection best = null;
        for (SmbDirectConnection c : connections.keySet()) {
            if (!c.isClosed() && (best == null || c.lastReceiveNanos() - best.lastReceiveNanos() < 0)) {
                best = c;
            }
        }
        return best;
    }

    void connectionClosed(SmbDirectConnection c) {
        if (connections.remove(c) != null) {
            open.decrementAndGet();
        }
    }

    private void tick() {
        long now = System.nanoTime();
        for (Map.Entry<SmbDirectConnection, Long> e : connections.entrySet()) {
            try {
                e.getKey().tick(now, e.getValue());
            } catch (RuntimeException ex) {
                LOG.warn("SMB Direct timer of {} failed", e.getKey(), ex);
            }
        }
    }

    /** Stops accepting and ends every connection. */
    @Override
    public void close() {
        if (listener != null) {
            listener.close();
        }
        for (SmbDirectConnection c : connections.keySet()) {
            try {
                c.closeAndWait();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        timers.shutdownNow();
    }
}
