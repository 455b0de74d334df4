package io.rdmagate.rdma.loopback;

import io.rdmagate.rdma.CompletionHandler;
import io.rdmagate.rdma.CompletionQueue;
import io.rdmagate.rdma.ConnectionRejectedException;
import io.rdmagate.rdma.ConnectionRequestHandler;
import io.rdmagate.rdma.DeviceLimits;
import io.rdmagate.rdma.ProtectionDomain;
import io.rdmagate.rdma.QpConfig;
import io.rdmagate.rdma.QueuePair;
import io.rdmagate.rdma.QueuePairSetup;
import io.rdmagate.rdma.RdmaDevice;
import io.rdmagate.rdma.RdmaException;
import io.rdmagate.rdma.RdmaListener;
import io.rdmagate.rdma.spi.QpChecks;
import io.rdmagate.rdma.spi.RegionTable;
import io.rdmagate.rdma.spi.SerialCompletionQueue;
import java.net.InetSocketAddress;
import java.util.concurrent.CompletableFuture;

/** A device on a {@link LoopbackFabric}. */
public final class LoopbackDevice implements RdmaDevice {
    private final String name;
    private final LoopbackFabric fabric;
    private final DeviceLimits limits;
    final RegionTable regions = new RegionTable();

    LoopbackDevice(String name, LoopbackFabric fabric, DeviceLimits limits) {
        this.name = name;
        this.fabric = fabric;
        this.limits = limits;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public DeviceLimits limits() {
        return limits;
    }

    @Override
    public ProtectionDomain allocateProtectionDomain() {
        return regions.newProtectionDomain();
    }

    @Override
    public CompletionQueue createCompletionQueue(int capacity, CompletionHandler handler) {
        return new SerialCompletionQueue(capacity, handler);
    }

    @Override
    public RdmaListener listen(InetSocketAddress address, ConnectionRequestHandler handler) throws RdmaException {
        LoopbackListener l = new LoopbackListener(this, fabric, handler);
        InetSocketAddress bound = fabric.bind(address, l);
        if (bound == null) {
            throw new RdmaException("address in use: " + address);
        }
        l.bound(bound);
        return l;
    }

    @Override
    public CompletableFuture<QueuePair> connect(InetSocketAddress remote, QpConfig config, byte[] privateData,
            QueuePairSetup setup) {
        CompletableFuture<QueuePair> f = new CompletableFuture<>();
        try {
            QpChecks.check(name, limits, config, privateData);
        } catch (RdmaException e) {
            f.completeExceptionally(e);
            return f;
        }
        LoopbackListener l = fabric.find(remote);
        if (l == null) {
            f.completeExceptionally(new ConnectionRejectedException("connection refused: nothing listens on " + remote,
                    new byte[0]));
            return f;
        }
        LoopbackQueuePair mine = new LoopbackQueuePair(this, config, fabric.ephemeral(remote), remote, privateData);
        Thread.ofVirtual().name("loopback-connect").start(() -> l.offer(mine, setup, f));
        return f;
    }

    @Override
    public void close() {
    }
}
