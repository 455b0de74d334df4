package io.rdmagate.rpcrdma.server;

import io.rdmagate.oncrpc.server.Connection;
import io.rdmagate.oncrpc.server.RpcDispatcher;
import io.rdmagate.rdma.CompletionQueue;
import io.rdmagate.rdma.ConnectionEvents;
import io.rdmagate.rdma.ConnectionRequest;
import io.rdmagate.rdma.MemoryRegion;
import io.rdmagate.rdma.ProtectionDomain;
import io.rdmagate.rdma.QpConfig;
import io.rdmagate.rdma.QueuePair;
import io.rdmagate.rdma.RdmaDevice;
import io.rdmagate.rdma.RdmaException;
import io.rdmagate.rdma.RdmaListener;
import io.rdmagate.rdma.RdmaResources;
import io.rdmagate.rpcrdma.header.ConnectPrivateData;
import io.rdmagate.vfs.memory.IoMemoryPool;
import io.rdmagate.vfs.memory.PoolLimits;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An RPC-over-RDMA version 1 listener (RFC 8166) feeding calls to an oncrpc {@link RpcDispatcher}.
 *
 * <p>Operation: the process's one protection domain ({@link RdmaResources}) registers every slab
 * of the one I/O memory pool once, so read chunk sinks and READ payloads leased from
 * {@link #pool()} need no registration per I/O. A connect beyond {@link RpcRdmaOptions#maxConnections()}
 * closes the connection that has received nothing longest among those with no call in progress,
 * as the TCP listeners do; only when every connection is busy is it rejected, before anything is
 * allocated for it. A connection's receive buffers come from the pool when it is accepted: when
 * the pool cannot hold them, the quietest idle connection is closed the same way to make room,
 * and the connect is rejected only when none is idle. A connect is accepted with the client's RFC 8797 private data read (1024
 * bytes each way when it sent none) and ours sent back: our receive size, our send size, and the
 * Send With Invalidate flag echoed. Receives are posted before the accept reaches the client.
 * Each connection then runs {@link RecvFrom} on its receive completions and {@link SendTo} for
 * its replies; calls run on virtual threads.
 */
public final class RpcRdmaServer implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(RpcRdmaServer.class);

    private final RdmaDevice device;
    private final RpcDispatcher dispatcher;
    private final RpcRdmaOptions options;
    private final RdmaResources rdma;
    private final IoMemoryPool pool;
    /** Whether the domain and the pool were made for this server alone, and close with it. */
    private final boolean ownsMemory;
    private final ExecutorService executor = Executors.newVirtualThreadPerTaskExecutor();
    private final Set<ServerConnection> connections = ConcurrentHashMap.newKeySet();
    private final int maxSendWr;
    /** Connections accepted or being accepted: the cap is taken before anything is allocated. */
    private final java.util.concurrent.atomic.AtomicInteger open = new java.util.concurrent.atomic.AtomicInteger();
    private final java.util.concurrent.atomic.LongAdder refused = new java.util.concurrent.atomic.LongAdder();
    private final java.util.concurrent.atomic.LongAdder evicted = new java.util.concurrent.atomic.LongAdder();
    /** At most one warning about the connection bound every ten seconds. */
    private final io.rdmagate.rdma.WarningThrottle boundWarnings =
            new io.rdmagate.rdma.WarningThrottle(java.time.Duration.ofSeconds(10));
    private RdmaListener listener;

    private RpcRdmaServer(RdmaResources rdma, IoMemoryPool pool, boolean ownsMemory, RpcDispatcher dispatcher,
            RpcRdmaOptions options) {
        if (options.limits().maxSegmentBytes() > pool.limits().maxBufferBytes()) {
            throw new IllegalArgumentException("segments of " + options.limits().maxSegmentBytes()
                    + " bytes cannot be leased from a pool whose largest buffer is " + pool.limits().maxBufferBytes());
        }
        this.rdma = rdma;
        this.device = rdma.device();
        this.pool = pool;
        this.ownsMemory = ownsMemory;
        this.dispatcher = dispatcher;
        this.options = options;
        this.maxSendWr = Math.min(device.limits().maxSendWr(), 1024);
    }

    /**
     * A server not yet listening, on the process's RDMA domain and its one pool (registered with
     * that domain), which it neither owns nor closes. Programs that lease reply memory from
     * {@link #pool()} can be registered with the dispatcher before {@link #listen}.
     */
    public static RpcRdmaServer create(RdmaResources rdma, IoMemoryPool pool, RpcDispatcher dispatcher,
            RpcRdmaOptions options) {
        return new RpcRdmaServer(rdma, pool, false, dispatcher, options);
    }

    /**
     * A server with a domain of its own on {@code device} and a pool of its own registered there;
     * both close with the server (tests, tools).
     */
    public static RpcRdmaServer create(RdmaDevice device, RpcDispatcher dispatcher, RpcRdmaOptions options,
            PoolLimits poolLimits) {
        RdmaResources rdma = RdmaResources.onShared(device);
        try {
            return new RpcRdmaServer(rdma, new IoMemoryPool(poolLimits, rdma), true, dispatcher, options);
        } catch (RuntimeException e) {
            rdma.close();
            throw e;
        }
    }

    /** Serves {@code dispatcher}'s programs on {@code address} (port 0 picks one). */
    public static RpcRdmaServer start(RdmaDevice device, RpcDispatcher dispatcher, RpcRdmaOptions options,
            PoolLimits poolLimits, InetSocketAddress address) throws RdmaException {
        return create(device, dispatcher, options, poolLimits).listen(address);
    }

    /** Starts accepting on {@code address}; closes the server when it cannot. */
    public RpcRdmaServer listen(InetSocketAddress address) throws RdmaException {
        try {
            listener = device.listen(address, this::onRequest);
        } catch (RdmaException | RuntimeException e) {
            close();
            throw e;
        }
        return this;
    }

    public InetSocketAddress localAddress() {
        return listener.localAddress();
    }

    /** The pool whose memory is registered with this server's protection domain. */
    public IoMemoryPool pool() {
        return pool;
    }

    public RpcRdmaOptions options() {
        return options;
    }

    /** Connections open now. */
    public int connectionCount() {
        return connections.size();
    }

    RdmaDevice device() {
        return device;
    }

    ProtectionDomain pd() {
        return rdma.pd();
    }

    RpcDispatcher dispatcher() {
        return dispatcher;
    }

    ExecutorService executor() {
        return executor;
    }

    int maxSendWr() {
        return maxSendWr;
    }

    /** Whether {@code mr} is a slab registration of this server's domain, valid for its queue pairs. */
    boolean owns(MemoryRegion mr) {
        return rdma.owns(mr);
    }

    void connectionClosed(ServerConnection c) {
        if (connections.remove(c)) {
            open.decrementAndGet();
            if (c.connection != null) {
                dispatcher.connectionClosed(c.connection);
            }
            dispatcher.observer().connectionClosed("rdma");
        }
    }

    /** Credits held now by calls of every connection (calls received and not yet answered). */
    public int creditsInUse() {
        int n = 0;
        for (ServerConnection c : connections) {
            n += c.callsInFlight();
        }
        return n;
    }

    /** Send Queue chains waiting for room now, all connections together. */
    public int chainsWaiting() {
        int n = 0;
        for (ServerConnection c : connections) {
            n += c.sendQueue.waiting();
        }
        return n;
    }

    /** Connects rejected because {@link RpcRdmaOptions#maxConnections()} were open, all of them busy. */
    public long refusedConnections() {
        return refused.sum();
    }

    /** Connections closed to make room for a new client at {@link RpcRdmaOptions#maxConnections()}. */
    public long evictedConnections() {
        return evicted.sum();
    }

    /** The open connection with no call in progress that received nothing longest, or null. */
    private ServerConnection quietest() {
        ServerConnection best = null;
        for (ServerConnection c : connections) {
            if (!c.isClosed() && c.callsInFlight() == 0
                    && (best == null || c.lastReceiveNanos() - best.lastReceiveNanos() < 0)) {
                best = c;
            }
        }
        return best;
    }

    /**
     * A connection with its receive buffers; when the pool cannot hold them, an idle connection
     * makes room, as at the connection bound (twice at most).
     */
    private ServerConnection newConnection(ConnectPrivateData peer, ConnectionRequest request) throws RdmaException {
        for (int attempt = 1; ; attempt++) {
            try {
                return new ServerConnection(this, peer);
            } catch (ServerConnection.PoolShortException e) {
                if (attempt == 3 || !evictQuietest("the I/O memory pool is short", request)) {
                    throw e;
                }
            }
        }
    }

    /**
     * Closes the quietest idle connection for a newcomer and returns once it is down; false when
     * every connection has a call in progress.
     */
    private boolean evictQuietest(String why, ConnectionRequest request) {
        ServerConnection quiet = quietest();
        if (quiet == null) {
            return false;
        }
        evicted.increment();
        if (boundWarnings.due()) {
            LOG.warn("{}: closing the quietest, connection {}, for a new one from {} ({} closed so far)", why, quiet.id(),
                    request.remoteAddress(), evicted.sum());
        }
        try {
            quiet.closeAndWait(); // leaves the count, and gives its buffers back, before the newcomer is counted
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
        return true;
    }

    private void onRequest(ConnectionRequest request) {
        if (open.incrementAndGet() > options.maxConnections()) {
            evictQuietest(options.maxConnections() + " RPC-over-RDMA connections are open", request);
        }
        if (open.get() > options.maxConnections()) {
            open.decrementAndGet();
            refused.increment();
            if (boundWarnings.due()) {
                LOG.warn("RPC-over-RDMA connect from {} rejected: {} connections are open (limits.maxRdmaConnections);"
                        + " {} rejected so far", request.remoteAddress(), options.maxConnections(), refused.sum());
            }
            request.reject(new byte[0]);
            return;
        }
        ConnectPrivateData peer = ConnectPrivateData.decode(request.privateData());
        ServerConnection conn;
        try {
            conn = newConnection(peer, request);
        } catch (RdmaException | RuntimeException e) {
            open.decrementAndGet();
            refused.increment();
            if (boundWarnings.due()) {
                LOG.warn("RPC-over-RDMA connect from {} refused: {}; {} refused so far", request.remoteAddress(),
                        e.getMessage(), refused.sum());
            }
            request.reject(new byte[0]);
            return;
        }
        CompletionQueue sendCq = device.createCompletionQueue(maxSendWr, conn::onSendCompletion);
        CompletionQueue recvCq = device.createCompletionQueue(conn.receiveCount(), conn::onRecvCompletion);
        conn.sendCq = sendCq;
        conn.recvCq = recvCq;
        QpConfig config = new QpConfig(rdma.pd(), sendCq, recvCq, maxSendWr, conn.receiveCount(),
                Math.min(device.limits().maxSge(), 16), device.limits().maxInboundReads(),
                device.limits().maxOutboundReads(), new ConnectionEvents() {
                    @Override
                    public void disconnected(QueuePair qp, String reason) {
                        LOG.debug("RPC-over-RDMA connection {} closed: {}", conn.id(), reason);
                        conn.close();
                    }
                });
        // RFC 8797 §4: our receive size is what the client may send us inline
        byte[] ours = new ConnectPrivateData(peer.sendWithInvalidate(), options.inlineSend(),
                options.inlineReceive()).encode();
        try {
            connections.add(conn);
            dispatcher.observer().connectionOpened("rdma");
            QueuePair qp = request.accept(config, ours, q -> {
                conn.attach(q);
                conn.connection = new Connection(ServerConnection.nextId(), request.remoteAddress(),
                        request.localAddress(), "rdma", conn.backchannel);
                dispatcher.connectionOpened(conn.connection);
                for (int k = 0; k < conn.receiveCount(); k++) {
                    conn.postReceive(k);
                }
            });
            conn.attach(qp);
        } catch (RdmaException | RuntimeException e) {
            LOG.warn("RPC-over-RDMA accept of {} failed: {}", request.remoteAddress(), e.toString());
            conn.close();
        }
    }

    /** Stops accepting, disconnects every connection, waits up to {@code grace} for calls to end. */
    public void stop(Duration grace) {
        if (listener != null) {
            listener.close();
        }
        for (ServerConnection c : connections) {
            try {
                c.closeAndWait();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        executor.shutdown();
        try {
            executor.awaitTermination(grace.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (ownsMemory) {
            pool.close();
            rdma.close();
        }
    }

    @Override
    public void close() {
        stop(Duration.ofSeconds(2));
    }
}
