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
import io.rdmagate.rpcrdma.header.ConnectPrivateData;
import io.rdmagate.vfs.memory.IoMemoryPool;
import io.rdmagate.vfs.memory.MemoryRegistrar;
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
 * <p>Operation: one protection domain per server; its I/O memory pool registers every slab with
 * that domain once, so read chunk sinks and READ payloads leased from {@link #pool()} need no
 * registration per I/O. A connect is accepted with the client's RFC 8797 private data read (1024
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
    private final ProtectionDomain pd;
    private final IoMemoryPool pool;
    private final ExecutorService executor = Executors.newVirtualThreadPerTaskExecutor();
    private final Set<MemoryRegion> slabs = ConcurrentHashMap.newKeySet();
    private final Set<ServerConnection> connections = ConcurrentHashMap.newKeySet();
    private final int maxSendWr;
    private RdmaListener listener;

    private RpcRdmaServer(RdmaDevice device, RpcDispatcher dispatcher, RpcRdmaOptions options, PoolLimits poolLimits) {
        this.device = device;
        this.dispatcher = dispatcher;
        this.options = options;
        if (options.limits().maxSegmentBytes() > poolLimits.maxBufferBytes()) {
            throw new IllegalArgumentException("segments of " + options.limits().maxSegmentBytes()
                    + " bytes cannot be leased from a pool whose largest buffer is " + poolLimits.maxBufferBytes());
        }
        this.pd = device.allocateProtectionDomain();
        MemoryRegistrar registrar = slab -> new OwnedRegion(pd.register(slab), slabs);
        this.pool = new IoMemoryPool(poolLimits, registrar);
        this.maxSendWr = Math.min(device.limits().maxSendWr(), 1024);
    }

    /**
     * A server not yet listening: programs that lease reply memory from {@link #pool()} can be
     * built and registered with the dispatcher before {@link #listen}.
     */
    public static RpcRdmaServer create(RdmaDevice device, RpcDispatcher dispatcher, RpcRdmaOptions options,
            PoolLimits poolLimits) {
        return new RpcRdmaServer(device, dispatcher, options, poolLimits);
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
        return pd;
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

    /** Whether {@code mr} is a slab registration of this server's pool. */
    boolean owns(MemoryRegion mr) {
        return mr instanceof OwnedRegion o && slabs.contains(o.region());
    }

    void connectionClosed(ServerConnection c) {
        if (connections.remove(c)) {
            dispatcher.observer().connectionClosed("rdma");
        }
    }

    private void onRequest(ConnectionRequest request) {
        ConnectPrivateData peer = ConnectPrivateData.decode(request.privateData());
        ServerConnection conn;
        try {
            conn = new ServerConnection(this, peer);
        } catch (RdmaException | RuntimeException e) {
            LOG.warn("RPC-over-RDMA connect from {} refused: {}", request.remoteAddress(), e.toString());
            request.reject(new byte[0]);
            return;
        }
        CompletionQueue sendCq = device.createCompletionQueue(maxSendWr, conn::onSendCompletion);
        CompletionQueue recvCq = device.createCompletionQueue(conn.receiveCount(), conn::onRecvCompletion);
        conn.sendCq = sendCq;
        conn.recvCq = recvCq;
        QpConfig config = new QpConfig(pd, sendCq, recvCq, maxSendWr, conn.receiveCount(),
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
                conn.qp = q;
                conn.connection = new Connection(ServerConnection.nextId(), request.remoteAddress(),
                        request.localAddress(), "rdma", conn.backchannel);
                for (int k = 0; k < conn.receiveCount(); k++) {
                    conn.postReceive(k);
                }
            });
            conn.qp = qp;
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
            c.close();
        }
        executor.shutdown();
        try {
            executor.awaitTermination(grace.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        pool.close();
        pd.close();
    }

    @Override
    public void close() {
        stop(Duration.ofSeconds(2));
    }
}
