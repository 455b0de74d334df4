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
     * Connects; {@code setup} runs on the queue pair before data can arrive (post receives there);
     * completes with the established queue pair, or exceptionally with
     * {@link ConnectionRejectedException} (carrying the peer's private data) or another failure.
     */
    CompletableFuture<QueuePair> connect(InetSocketAddress remote, QpConfig config, byte[] privateData,
            QueuePairSetup setup);

    /**
     * Connects with no setup: only for users that do not expect the peer to send first.
     */
    default CompletableFuture<QueuePair> connect(InetSocketAddress remote, QpConfig config, byte[] privateData) {
        return connect(remote, config, privateData, QueuePairSetup.NONE);
    }

    @Override
    void close();
}
