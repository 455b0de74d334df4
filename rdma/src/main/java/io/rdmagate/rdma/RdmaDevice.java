package io.rdmagate.rdma;

import java.net.InetSocketAddress;
import java.util.concurrent.CompletableFuture;

/** An RDMA device: the root of every verbs object. */
public interface RdmaDevice extends AutoCloseable {
    String name();

    DeviceLimits limits();

    ProtectionDomain allocateProtectionDomain();

    CompletionQueue createCompletionQueue(int capacity, CompletionHandler handler);

    /** Listens on {@code address} (port 0 picks one); requests go to the handler. */
    RdmaListener listen(InetSocketAddress address, ConnectionRequestHandler handler) throws RdmaException;

    /**
     * Connects; completes with the established queue pair, or exceptionally with
     * {@link ConnectionRejectedException} (carrying the peer's private data) or another failure.
     */
    CompletableFuture<QueuePair> connect(InetSocketAddress remote, QpConfig config, byte[] privateData);

    @Override
    void close();
}
