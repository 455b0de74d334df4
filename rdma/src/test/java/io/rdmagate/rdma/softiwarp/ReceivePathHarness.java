package io.rdmagate.rdma.softiwarp;

import io.rdmagate.rdma.Access;
import io.rdmagate.rdma.CompletionQueue;
import io.rdmagate.rdma.ConnectionEvents;
import io.rdmagate.rdma.MemoryRegion;
import io.rdmagate.rdma.ProtectionDomain;
import io.rdmagate.rdma.QpConfig;
import io.rdmagate.rdma.QueuePair;
import io.rdmagate.rdma.RecvWr;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ByteChannel;
import java.nio.channels.GatheringByteChannel;
import java.nio.channels.ScatteringByteChannel;
import java.util.EnumSet;

/**
 * Feeds arbitrary bytes to the receive direction of a real soft-iWARP queue pair, with no socket:
 * the bytes arrive as if after an MPA exchange, and whatever the queue pair sends is discarded.
 * The registered region sits between two guard pages that must never change.
 */
final class ReceivePathHarness implements AutoCloseable {
    static final int PAGE = 4096;
    private static final byte GUARD = (byte) 0xA5;

    final SoftIwarpDevice device = new SoftIwarpDevice("fuzz", SoftIwarpDevice.Options.DEFAULT);
    private final Arena arena = Arena.ofShared();
    private final ProtectionDomain pd = device.allocateProtectionDomain();
    private final CompletionQueue sendCq = device.createCompletionQueue(1024, wc -> { });
    private final CompletionQueue recvCq = device.createCompletionQueue(1024, wc -> { });
    private final MemorySegment whole = arena.allocate(3L * PAGE, PAGE);
    final MemoryRegion region;

    ReceivePathHarness() throws Exception {
        whole.fill(GUARD);
        region = pd.register(whole.asSlice(PAGE, PAGE), EnumSet.allOf(Access.class));
    }

    /** Runs the receive path over {@code input} until it ends; returns the queue pair's final state. */
    QueuePair.State run(byte[] input, boolean crc) throws Exception {
        return run(input, crc, Integer.MAX_VALUE);
    }

    /** As {@link #run(byte[], boolean)}, the socket handing over at most {@code maxChunk} bytes per read. */
    QueuePair.State run(byte[] input, boolean crc, int maxChunk) throws Exception {
        QpConfig config = new QpConfig(pd, sendCq, recvCq, 64, 64, 4, 4, 4, ConnectionEvents.NONE);
        SoftIwarpQueuePair qp = new SoftIwarpQueuePair(device, config, new Scripted(input, maxChunk), new Scripted(new byte[0], 1),
                new InetSocketAddress(0), new InetSocketAddress(0), crc, new byte[0], 4, 4, false);
        for (int i = 0; i < 4; i++) {
            qp.postReceive(RecvWr.of(i, region.sge(i * 1024L, 1024)));
        }
        qp.receiveLoop();
        return qp.state();
    }

    /**
     * Makes the harness ready for another stream: the region and its guards filled again. The
     * device, protection domain, queues and region are kept; each {@link #run} builds a fresh
     * queue pair, as each connection has its own.
     */
    void reset() {
        whole.fill(GUARD);
    }

    /** The registered region's bytes. */
    byte[] placed() {
        return whole.asSlice(PAGE, PAGE).toArray(ValueLayout.JAVA_BYTE);
    }

    boolean guardsIntact() {
        for (long i = 0; i < PAGE; i++) {
            if (whole.get(ValueLayout.JAVA_BYTE, i) != GUARD || whole.get(ValueLayout.JAVA_BYTE, 2L * PAGE + i) != GUARD) {
                return false;
            }
        }
        return true;
    }

    @Override
    public void close() {
        sendCq.close();
        recvCq.close();
        pd.close();
        arena.close();
    }

    /** Reads from a byte array, swallows writes. */
    private static final class Scripted implements ByteChannel, GatheringByteChannel, ScatteringByteChannel {
        private final ByteBuffer in;
        private final int maxChunk;
        private boolean open = true;

        Scripted(byte[] bytes, int maxChunk) {
            this.in = ByteBuffer.wrap(bytes);
            this.maxChunk = maxChunk;
        }

        @Override
        public int read(ByteBuffer dst) {
            if (!in.hasRemaining()) {
                return -1;
            }
            int n = Math.min(Math.min(dst.remaining(), in.remaining()), maxChunk);
            ByteBuffer part = in.slice(in.position(), n);
            dst.put(part);
            in.position(in.position() + n);
            return n;
        }

        @Override
        public long read(ByteBuffer[] dsts, int offset, int length) {
            long n = 0;
            for (int i = offset; i < offset + length; i++) {
                if (!in.hasRemaining()) {
                    break;
                }
                n += read(dsts[i]);
                if (maxChunk != Integer.MAX_VALUE) {
                    break; // one chunk per read, as a socket that has only so much
                }
            }
            return n == 0 && !in.hasRemaining() ? -1 : n;
        }

        @Override
        public long read(ByteBuffer[] dsts) {
            return read(dsts, 0, dsts.length);
        }

        @Override
        public int write(ByteBuffer src) {
            int n = src.remaining();
            src.position(src.limit());
            return n;
        }

        @Override
        public long write(ByteBuffer[] srcs, int offset, int length) {
            long n = 0;
            for (int i = offset; i < offset + length; i++) {
                n += write(srcs[i]);
            }
            return n;
        }

        @Override
        public long write(ByteBuffer[] srcs) {
            return write(srcs, 0, srcs.length);
        }

        @Override
        public boolean isOpen() {
            return open;
        }

        @Override
        public void close() {
            open = false;
        }
    }
}
