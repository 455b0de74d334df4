package io.rdmagate.rdma.softiwarp;

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
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.LongAdder;

/**
 * A software iWARP device: RDMAP over DDP over MPA over TCP, wire-compatible with Linux siw
 * (MPA revision 2 with enhanced connection setup, no markers; CRC32c when the peer asks).
 * No kernel module and no NIC: any TCP socket will do.
 */
public final class SoftIwarpDevice implements RdmaDevice {
    /** Limits of this provider; private data as rdma_cm accepts it. */
    public static final DeviceLimits LIMITS = new DeviceLimits(4096, 4096, 16, 32, 32, 1L << 31, 196);

    private final String name;
    private final Options options;
    private final RegionTable regions = new RegionTable();
    private final LongAdder violations = new LongAdder();
    private final LongAdder internalErrors = new LongAdder();
    private final LongAdder refusedHandshakes = new LongAdder();

    /**
     * @param maxFpduPayload largest DDP payload per FPDU (siw sizes FPDUs to the TCP MSS; larger
     *                       ones are legal and cheaper on loopback)
     * @param requireCrc     ask peers for CRC32c (siw's default is no CRC)
     * @param handshakeTimeout bound of the MPA exchange
     * @param maxPendingHandshakes TCP connections of one listener that have not sent their MPA Request; one
     *                         more closes the one silent longest, so unauthenticated sockets cannot pile
     *                         up nor keep a real client out
     * @param sendTimeout    how long a write to a peer may wait without the peer taking a byte (its
     *                       receive window shut); the connection then fails, its work requests flush
     *                       and the memory they name is released; zero: no deadline
     */
    public record Options(int maxFpduPayload, boolean requireCrc, Duration handshakeTimeout, int maxPendingHandshakes,
            Duration sendTimeout) {
        public static final Duration DEFAULT_SEND_TIMEOUT = Duration.ofMinutes(2);
        public static final Options DEFAULT = new Options(65504, false, Duration.ofSeconds(10), 64,
                DEFAULT_SEND_TIMEOUT);

        public Options {
            if (maxFpduPayload < 512 || maxFpduPayload > 65535 - Rdmap.UNTAGGED_HEADER - 2) {
                throw new IllegalArgumentException("FPDU payload " + maxFpduPayload + " outside [512, 65515]");
            }
            if (handshakeTimeout.isNegative() || handshakeTimeout.isZero()) {
                throw new IllegalArgumentException("handshake timeout must be positive");
            }
            if (maxPendingHandshakes < 1) {
                throw new IllegalArgumentException("max pending handshakes " + maxPendingHandshakes + " must be positive");
            }
            if (sendTimeout.isNegative()) {
                throw new IllegalArgumentException("send timeout must not be negative");
            }
        }

        public Options(int maxFpduPayload, boolean requireCrc, Duration handshakeTimeout, int maxPendingHandshakes) {
            this(maxFpduPayload, requireCrc, handshakeTimeout, maxPendingHandshakes, DEFAULT_SEND_TIMEOUT);
        }

        public Options(int maxFpduPayload, boolean requireCrc, Duration handshakeTimeout) {
            this(maxFpduPayload, requireCrc, handshakeTimeout, 64);
        }
    }

    public SoftIwarpDevice(String name, Options options) {
        this.name = name;
        this.options = options;
    }

    /** Queue pairs running now, for the send deadline's watch. */
    private final java.util.Set<SoftIwarpQueuePair> running = java.util.concurrent.ConcurrentHashMap.newKeySet();
    private volatile Thread sendWatch;

    /**
     * A queue pair starts: the send deadline watches it until it ends. One virtual thread per device
     * looks, a few times per timeout, for a queue pair whose write has waited the whole timeout.
     */
    void started(SoftIwarpQueuePair qp) {
        long timeout = options.sendTimeout().toNanos();
        if (timeout == 0) {
            return;
        }
        running.add(qp);
        if (sendWatch == null) {
            synchronized (running) {
                if (sendWatch == null) {
                    sendWatch = Thread.ofVirtual().name("siw-send-deadline-" + name).start(() -> watchSends(timeout));
                }
            }
        }
    }

    void ended(SoftIwarpQueuePair qp) {
        running.remove(qp);
    }

    private void watchSends(long timeoutNanos) {
        long period = Math.max(timeoutNanos / 4, 10_000_000L);
        while (true) {
            try {
                Thread.sleep(java.time.Duration.ofNanos(period));
            } catch (InterruptedException e) {
                return;
            }
            long now = System.nanoTime();
            for (SoftIwarpQueuePair qp : running) {
                qp.checkSendDeadline(now, timeoutNanos);
            }
        }
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public DeviceLimits limits() {
        return LIMITS;
    }

    int maxFpduPayload() {
        return options.maxFpduPayload();
    }

    Options options() {
        return options;
    }

    RegionTable regions() {
        return regions;
    }

    void countViolation() {
        violations.increment();
    }

    void countInternalError() {
        internalErrors.increment();
    }

    void countRefusedHandshake() {
        refusedHandshakes.increment();
    }

    /** TCP connections closed unanswered to make room: their listener had too many MPA Requests pending. */
    public long refusedHandshakes() {
        return refusedHandshakes.sum();
    }

    /** Receive paths that ended in an unexpected exception (a bug, never bad input): should stay 0. */
    public long internalErrors() {
        return internalErrors.sum();
    }

    /** Tagged accesses refused (bad STag, rights, bounds), all connections together. */
    public long accessViolations() {
        return violations.sum();
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
        try {
            return SoftIwarpListener.open(this, address, handler);
        } catch (IOException e) {
            throw new RdmaException("cannot listen on " + address + ": " + e.getMessage(), e);
        }
    }

    @Override
    public CompletableFuture<QueuePair> connect(InetSocketAddress remote, QpConfig config, byte[] privateData,
            QueuePairSetup setup) {
        CompletableFuture<QueuePair> result = new CompletableFuture<>();
        try {
            checkConfig(config, privateData);
        } catch (RdmaException e) {
            result.completeExceptionally(e);
            return result;
        }
        Thread.ofVirtual().name("siw-connect").start(() -> {
            SocketChannel ch = null;
            try {
                ch = SocketChannel.open();
                tune(ch);
                Deadline d = Deadline.arm(ch, options.handshakeTimeout());
                ch.connect(remote);
                MpaHandshake.write(ch, MpaFrame.encode(true, options.requireCrc(), false, true, privateData, config.ird(),
                        config.ord(), false, 0));
                MpaFrame reply = MpaHandshake.read(ch, false);
                d.disarm();
                if (reply == null) {
                    throw new RdmaException("malformed MPA reply from " + remote);
                }
                if (reply.reject()) {
                    ch.close();
                    result.completeExceptionally(new ConnectionRejectedException("rejected by " + remote, reply.privateData()));
                    return;
                }
                if (reply.markers()) {
                    throw new RdmaException("peer " + remote + " insists on MPA markers, which this provider does not use");
                }
                // RFC 6581 §5: our reads are bounded by the responder's IRD
                int ord = reply.enhanced() ? Math.min(config.ord(), reply.ird()) : config.ord();
                SoftIwarpQueuePair qp = new SoftIwarpQueuePair(this, config, ch, reply.crc() || options.requireCrc(),
                        reply.privateData(), config.ird(), ord, false);
                setup.setup(qp);
                qp.start();
                result.complete(qp);
            } catch (IOException | RdmaException e) {
                closeQuietly(ch);
                result.completeExceptionally(e instanceof RdmaException ? e
                        : new RdmaException("connect to " + remote + " failed: " + e.getMessage(), e));
            }
        });
        return result;
    }

    void checkConfig(QpConfig c, byte[] privateData) throws RdmaException {
        QpChecks.check(name, LIMITS, c, privateData);
    }

    /** Socket options of every connection: no Nagle delay, buffers deep enough for a pipeline of FPDUs. */
    static void tune(SocketChannel ch) throws IOException {
        ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
        ch.setOption(StandardSocketOptions.SO_SNDBUF, 4 << 20);
        ch.setOption(StandardSocketOptions.SO_RCVBUF, 4 << 20);
    }

    static void closeQuietly(SocketChannel ch) {
        if (ch != null) {
            try {
                ch.close();
            } catch (IOException ignored) {
                // already closed
            }
        }
    }

    @Override
    public void close() {
        Thread w = sendWatch;
        if (w != null) {
            w.interrupt();
        }
    }
}
