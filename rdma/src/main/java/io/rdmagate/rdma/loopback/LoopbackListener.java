package io.rdmagate.rdma.loopback;

import io.rdmagate.rdma.ConnectionRejectedException;
import io.rdmagate.rdma.ConnectionRequest;
import io.rdmagate.rdma.ConnectionRequestHandler;
import io.rdmagate.rdma.QpConfig;
import io.rdmagate.rdma.QueuePair;
import io.rdmagate.rdma.QueuePairSetup;
import io.rdmagate.rdma.RdmaException;
import io.rdmagate.rdma.RdmaListener;
import io.rdmagate.rdma.spi.QpChecks;
import java.net.InetSocketAddress;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;

/** A listener on the loopback fabric: hands each connect to its handler as a request. */
final class LoopbackListener implements RdmaListener {
    private final LoopbackDevice device;
    private final LoopbackFabric fabric;
    private final ConnectionRequestHandler handler;
    private InetSocketAddress address;
    private volatile boolean closed;

    LoopbackListener(LoopbackDevice device, LoopbackFabric fabric, ConnectionRequestHandler handler) {
        this.device = device;
        this.fabric = fabric;
        this.handler = handler;
    }

    void bound(InetSocketAddress a) {
        this.address = a;
    }

    @Override
    public InetSocketAddress localAddress() {
        return address;
    }

    @Override
    public void close() {
        closed = true;
        fabric.unbind(address, this);
    }

    void offer(LoopbackQueuePair client, QueuePairSetup clientSetup, CompletableFuture<QueuePair> result) {
        if (closed) {
            result.completeExceptionally(new ConnectionRejectedException("listener closed", new byte[0]));
            return;
        }
        AtomicBoolean answered = new AtomicBoolean();
        ConnectionRequest req = new ConnectionRequest() {
            @Override
            public InetSocketAddress remoteAddress() {
                return client.localAddress();
            }

            @Override
            public InetSocketAddress localAddress() {
                return address;
            }

            @Override
            public byte[] privateData() {
                return client.localPrivateData();
            }

            @Override
            public int requestedIrd() {
                return client.config().ird();
            }

            @Override
            public int requestedOrd() {
                return client.config().ord();
            }

            @Override
            public QueuePair accept(QpConfig config, byte[] privateData, QueuePairSetup setup) throws RdmaException {
                if (!answered.compareAndSet(false, true)) {
                    throw new RdmaException("connection request already answered");
                }
                try {
                    QpChecks.check(device.name(), device.limits(), config, privateData);
                } catch (RdmaException e) {
                    answered.set(false);
                    throw e;
                }
                LoopbackQueuePair server = new LoopbackQueuePair(device, config, address, client.localAddress(), privateData);
                setup.setup(server);
                try {
                    clientSetup.setup(client);
                } catch (RdmaException e) {
                    result.completeExceptionally(e);
                    throw new RdmaException("the connecting side failed its setup: " + e.getMessage(), e);
                }
                LoopbackQueuePair.join(client, server);
                result.complete(client);
                client.established();
                server.established();
                return server;
            }

            @Override
            public void reject(byte[] privateData) {
                if (answered.compareAndSet(false, true)) {
                    result.completeExceptionally(new ConnectionRejectedException("rejected by peer", privateData));
                }
            }
        };
        try {
            handler.onRequest(req);
        } catch (RuntimeException e) {
            req.reject(new byte[0]);
        }
    }
}
