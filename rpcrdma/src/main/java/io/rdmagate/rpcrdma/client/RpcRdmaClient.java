package io.rdmagate.rpcrdma.client;

import io.rdmagate.rdma.Access;
import io.rdmagate.rdma.CompletionQueue;
import io.rdmagate.rdma.ConnectionEvents;
import io.rdmagate.rdma.MemoryRegion;
import io.rdmagate.rdma.ProtectionDomain;
import io.rdmagate.rdma.QpConfig;
import io.rdmagate.rdma.QueuePair;
import io.rdmagate.rdma.RdmaDevice;
import io.rdmagate.rdma.RdmaException;
import io.rdmagate.rdma.RecvWr;
import io.rdmagate.rdma.SendWr;
import io.rdmagate.rdma.WorkCompletion;
import io.rdmagate.rpcrdma.header.ConnectPrivateData;
import io.rdmagate.rpcrdma.header.HeaderEncoder;
import io.rdmagate.rpcrdma.header.ReadSegment;
import io.rdmagate.rpcrdma.header.RpcRdma;
import io.rdmagate.rpcrdma.header.RpcRdmaLimits;
import io.rdmagate.rpcrdma.header.Segment;
import io.rdmagate.rpcrdma.header.TransportHeader;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * An RPC-over-RDMA version 1 requester for tests and benchmarks (RFC 8166): sends a call inline
 * (RDMA_MSG), with its DDP-eligible argument in a read chunk at its XDR position (RFC 8166
 * §3.4.5, the roundup left out as §3.4.6 says), or whole in a position-zero read chunk
 * (RDMA_NOMSG) when it is longer than the server's inline threshold; offers a write chunk for the
 * reply's DDP-eligible result and a reply chunk for a long reply. Chunk memory is registered for
 * the one call and deregistered when its reply arrives. Calls may come from many threads; each
 * waits for its own xid.
 */
public final class RpcRdmaClient implements AutoCloseable {
    public static final Duration TIMEOUT = Duration.ofSeconds(30);
    private static final int RECEIVES = 16;
    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(java.nio.ByteOrder.BIG_ENDIAN);

    /** What the server sent back. */
    public record Reply(int proc, int credits, int errorCode, int versLow, int versHigh, byte[] message,
            byte[] writeChunkData) {
        public boolean isError() {
            return proc == RpcRdma.RDMA_ERROR;
        }
    }

    /** How to send one call. */
    public record Call(byte[] message, int dataOffset, int dataLength, int writeChunkBytes, int writeSegmentBytes,
            int replyChunkBytes) {
        /** Inline (or position zero when long), with no write or reply chunk. */
        public static Call of(byte[] message) {
            return new Call(message, -1, 0, 0, 0, 0);
        }

        /** {@code message[dataOffset, dataOffset + dataLength)} goes in a read chunk at that position. */
        public Call withReadChunk(int offset, int length) {
            return new Call(message, offset, length, writeChunkBytes, writeSegmentBytes, replyChunkBytes);
        }

        /** A write chunk of {@code bytes} split into segments of {@code segmentBytes}. */
        public Call withWriteChunk(int bytes, int segmentBytes) {
            return new Call(message, dataOffset, dataLength, bytes, segmentBytes, replyChunkBytes);
        }

        public Call withReplyChunk(int bytes) {
            return new Call(message, dataOffset, dataLength, writeChunkBytes, writeSegmentBytes, bytes);
        }
    }

    private final ProtectionDomain pd;
    private final CompletionQueue sendCq;
    private final CompletionQueue recvCq;
    private final Arena arena = Arena.ofAuto();
    private final MemoryRegion recvRegion;
    private final MemorySegment recv;
    private final int inline;
    private final TransportHeader replyHeader = new TransportHeader(RpcRdmaLimits.DEFAULT);
    private final Map<Integer, Pending> pending = new ConcurrentHashMap<>();
    private final AtomicInteger xids = new AtomicInteger(0x5000);
    private final AtomicLong wrIds = new AtomicLong(1);
    private final CountDownLatch disconnected = new CountDownLatch(1);
    private final QueuePair qp;
    private final ConnectPrivateData server;
    private volatile int credits = 1;
    private volatile String disconnectReason;
    private volatile java.util.function.UnaryOperator<byte[]> backchannel;
    private volatile int backchannelCredits;

    private static final class Pending {
        final CompletableFuture<Reply> reply = new CompletableFuture<>();
        final List<MemoryRegion> regions = new ArrayList<>();
        MemorySegment writeChunk;
        MemorySegment replyChunk;
        MemorySegment sendBuffer;
    }

    private RpcRdmaClient(RdmaDevice device, InetSocketAddress server, int inline) throws IOException {
        this.inline = inline;
        this.pd = device.allocateProtectionDomain();
        this.sendCq = device.createCompletionQueue(256, this::onSend);
        this.recvCq = device.createCompletionQueue(RECEIVES, this::onReceive);
        try {
            this.recv = arena.allocate((long) RECEIVES * inline, 4096);
            this.recvRegion = pd.register(recv, EnumSet.of(Access.LOCAL_WRITE));
            QpConfig config = new QpConfig(pd, sendCq, recvCq, 256, RECEIVES, 4, device.limits().maxInboundReads(),
                    device.limits().maxOutboundReads(), new ConnectionEvents() {
                        @Override
                        public void disconnected(QueuePair q, String reason) {
                            disconnectReason = reason;
                            disconnected.countDown();
                            failAll(new IOException("disconnected: " + reason));
                        }
                    });
            byte[] ours = new ConnectPrivateData(true, inline, inline).encode();
            this.qp = device.connect(server, config, ours, q -> {
                for (int k = 0; k < RECEIVES; k++) {
                    q.postReceive(RecvWr.of(k, recvRegion.sge((long) k * inline, inline)));
                }
            }).get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            this.server = ConnectPrivateData.decode(qp.remotePrivateData());
        } catch (RdmaException | ExecutionException | TimeoutException e) {
            close();
            throw new IOException("RPC-over-RDMA connect to " + server + " failed", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            close();
            throw new IOException("interrupted", e);
        }
    }

    public static RpcRdmaClient connect(RdmaDevice device, InetSocketAddress server) throws IOException {
        return new RpcRdmaClient(device, server, 4096);
    }

    /**
     * Answers the server's reverse-direction calls (RFC 8167) with {@code handler}, on a virtual
     * thread each: it gets the whole RPC call message and returns the whole reply message (or
     * null to leave the call unanswered). Each reply grants the server {@code credits}
     * reverse-direction credits (RFC 8167 §4.1).
     */
    public void serveBackchannel(int credits, java.util.function.UnaryOperator<byte[]> handler) {
        this.backchannelCredits = credits;
        this.backchannel = handler;
    }

    /** What the server advertised in its private data (RFC 8797). */
    public ConnectPrivateData serverParameters() {
        return server;
    }

    /** The credit value of the last reply (RFC 8166 §3.3.1). */
    public int credits() {
        return credits;
    }

    public int nextXid() {
        return xids.incrementAndGet();
    }

    /** The xid of an RPC message (its first word). */
    public static int xidOf(byte[] message) {
        return (message[0] & 0xff) << 24 | (message[1] & 0xff) << 16 | (message[2] & 0xff) << 8 | message[3] & 0xff;
    }

    public Reply call(Call c) throws IOException {
        return await(callAsync(c));
    }

    public static Reply await(CompletableFuture<Reply> f) throws IOException {
        try {
            return f.get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            throw e.getCause() instanceof IOException io ? io : new IOException(e.getCause());
        } catch (TimeoutException e) {
            throw new IOException("no reply within " + TIMEOUT);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        }
    }

    /** Sends a call; the future completes with its reply. */
    public CompletableFuture<Reply> callAsync(Call c) throws IOException {
        int xid = xidOf(c.message());
        Pending p = new Pending();
        pending.put(xid, p);
        try {
            byte[] m = c.message();
            List<ReadSegment> reads = new ArrayList<>();
            byte[] inlineBody = m;
            int proc = RpcRdma.RDMA_MSG;
            if (c.dataOffset() >= 0) {
                // RFC 8166 §3.4.6: the chunk carries the data without its XDR roundup
                int pad = -c.dataLength() & 3;
                MemoryRegion mr = register(p, m, c.dataOffset(), c.dataLength(), Access.REMOTE_READ);
                reads.add(new ReadSegment(c.dataOffset(), new Segment(mr.rkey(), c.dataLength(), mr.address())));
                inlineBody = new byte[m.length - c.dataLength() - pad];
                System.arraycopy(m, 0, inlineBody, 0, c.dataOffset());
                System.arraycopy(m, c.dataOffset() + c.dataLength() + pad, inlineBody, c.dataOffset(),
                        m.length - c.dataOffset() - c.dataLength() - pad);
            }
            List<List<Segment>> writes = new ArrayList<>();
            if (c.writeChunkBytes() > 0) {
                p.writeChunk = arena.allocate(c.writeChunkBytes(), 4096);
                MemoryRegion mr = pd.register(p.writeChunk, EnumSet.of(Access.LOCAL_WRITE, Access.REMOTE_WRITE));
                p.regions.add(mr);
                List<Segment> segs = new ArrayList<>();
                for (long at = 0; at < c.writeChunkBytes(); at += c.writeSegmentBytes()) {
                    int n = (int) Math.min(c.writeSegmentBytes(), c.writeChunkBytes() - at);
                    segs.add(new Segment(mr.rkey(), n, mr.address() + at));
                }
                writes.add(segs);
            }
            List<Segment> reply = null;
            if (c.replyChunkBytes() > 0) {
                p.replyChunk = arena.allocate(c.replyChunkBytes(), 4096);
                MemoryRegion mr = pd.register(p.replyChunk, EnumSet.of(Access.LOCAL_WRITE, Access.REMOTE_WRITE));
                p.regions.add(mr);
                reply = List.of(new Segment(mr.rkey(), c.replyChunkBytes(), mr.address()));
            }
            int headerBytes = RpcRdma.MIN_HEADER_BYTES + reads.size() * 20 + writes.size() * 8
                    + (writes.isEmpty() ? 0 : writes.get(0).size() * 16) + (reply == null ? 0 : 4 + 16);
            if (headerBytes + inlineBody.length > Math.min(inline, server.receiveSize())) {
                if (c.dataOffset() >= 0) {
                    throw new IOException("call too long for inline even with its data in a read chunk");
                }
                // RFC 8166 §3.5.3: a long call goes whole in a position-zero read chunk
                MemoryRegion mr = register(p, m, 0, m.length, Access.REMOTE_READ);
                reads.add(new ReadSegment(0, new Segment(mr.rkey(), m.length, mr.address())));
                inlineBody = new byte[0];
                proc = RpcRdma.RDMA_NOMSG;
            }
            p.sendBuffer = arena.allocate(inline, 8);
            int n = HeaderEncoder.call(p.sendBuffer, 0, xid, 32, proc, reads, writes, reply);
            MemorySegment.copy(inlineBody, 0, p.sendBuffer, ValueLayout.JAVA_BYTE, n, inlineBody.length);
            sendRaw(p, p.sendBuffer.asSlice(0, n + inlineBody.length));
            return p.reply;
        } catch (RdmaException e) {
            pending.remove(xid);
            release(p);
            throw new IOException(e);
        }
    }

    private MemoryRegion register(Pending p, byte[] m, int offset, int length, Access access) throws RdmaException {
        MemorySegment s = arena.allocate(Math.max(1, length), 4096);
        MemorySegment.copy(m, offset, s, ValueLayout.JAVA_BYTE, 0, length);
        MemoryRegion mr = pd.register(s.asSlice(0, length), EnumSet.of(Access.LOCAL_WRITE, access));
        p.regions.add(mr);
        return mr;
    }

    /** Sends raw transport header + body bytes (for bad-input tests); the reply, if any, is matched by xid. */
    public CompletableFuture<Reply> sendRaw(byte[] bytes, int expectXid) throws IOException {
        Pending p = new Pending();
        pending.put(expectXid, p);
        MemorySegment s = arena.allocate(Math.max(bytes.length, 1), 8);
        MemorySegment.copy(bytes, 0, s, ValueLayout.JAVA_BYTE, 0, bytes.length);
        try {
            sendRaw(p, s.asSlice(0, bytes.length));
        } catch (RdmaException e) {
            throw new IOException(e);
        }
        return p.reply;
    }

    private void sendRaw(Pending p, MemorySegment bytes) throws RdmaException {
        MemoryRegion mr = pd.register(bytes, EnumSet.of(Access.LOCAL_WRITE));
        p.regions.add(mr);
        qp.postSend(SendWr.send(wrIds.getAndIncrement(), mr.sge(0, (int) bytes.byteSize())));
    }

    private void onSend(WorkCompletion wc) {
        if (!wc.ok()) {
            failAll(new IOException("send failed: " + wc.status()));
        }
    }

    private void onReceive(WorkCompletion wc) {
        if (!wc.ok()) {
            return;
        }
        int slot = (int) wc.wrId();
        MemorySegment buf = recv.asSlice((long) slot * inline, inline);
        TransportHeader.Verdict v = replyHeader.decodeReply(buf, (int) wc.byteLength());
        if (v == TransportHeader.Verdict.OK && isReverseCall(replyHeader)) {
            byte[] call = new byte[replyHeader.bodyLength()];
            MemorySegment.copy(buf, ValueLayout.JAVA_BYTE, replyHeader.headerLength(), call, 0, call.length);
            Thread.ofVirtual().start(() -> answer(call));
            repost(slot);
            return;
        }
        Pending p = v == TransportHeader.Verdict.DROP ? null : pending.remove(replyHeader.xid());
        if (p != null) {
            if (v != TransportHeader.Verdict.OK) {
                p.reply.completeExceptionally(new IOException("bad reply header: " + replyHeader.reason()));
            } else {
                credits = replyHeader.credits();
                p.reply.complete(reply(p));
            }
            release(p);
        }
        repost(slot);
    }

    private void repost(int slot) {
        try {
            qp.postReceive(RecvWr.of(slot, recvRegion.sge((long) slot * inline, inline)));
        } catch (RdmaException e) {
            failAll(new IOException(e));
        }
    }

    /** RFC 8167 §3.3: an inline RDMA_MSG whose RPC message is a CALL comes from the server's side. */
    private static boolean isReverseCall(TransportHeader h) {
        return h.proc() == RpcRdma.RDMA_MSG && h.writeChunkCount() == 0 && !h.hasReplyChunk() && h.bodyLength() >= 8
                && h.buffer().get(INT, h.headerLength() + 4) == 0;
    }

    /** Runs the backchannel handler and sends its reply inline (RFC 8167 §5.2). */
    private void answer(byte[] call) {
        java.util.function.UnaryOperator<byte[]> handler = backchannel;
        byte[] reply = handler == null ? null : handler.apply(call);
        if (reply == null) {
            return;
        }
        MemorySegment out = arena.allocate(RpcRdma.MIN_HEADER_BYTES + reply.length, 8);
        int n = HeaderEncoder.inlineOnly(out, 0, xidOf(reply), backchannelCredits);
        MemorySegment.copy(reply, 0, out, ValueLayout.JAVA_BYTE, n, reply.length);
        Pending p = new Pending();
        try {
            sendRaw(p, out);
        } catch (RdmaException e) {
            failAll(new IOException(e));
        }
    }

    private Reply reply(Pending p) {
        TransportHeader h = replyHeader;
        byte[] written = new byte[0];
        if (h.writeChunkCount() > 0 && p.writeChunk != null) {
            written = new byte[(int) h.writeChunkBytes(0)];
            MemorySegment.copy(p.writeChunk, ValueLayout.JAVA_BYTE, 0, written, 0, written.length);
        }
        byte[] message;
        if (h.proc() == RpcRdma.RDMA_NOMSG && p.replyChunk != null) {
            message = new byte[(int) h.replyChunkBytes()];
            MemorySegment.copy(p.replyChunk, ValueLayout.JAVA_BYTE, 0, message, 0, message.length);
        } else if (h.proc() == RpcRdma.RDMA_ERROR) {
            message = new byte[0];
        } else {
            message = new byte[h.bodyLength()];
            MemorySegment.copy(h.buffer(), ValueLayout.JAVA_BYTE, h.headerLength(), message, 0, message.length);
        }
        return new Reply(h.proc(), h.credits(), h.errorCode(), h.versLow(), h.versHigh(), message, written);
    }

    private void release(Pending p) {
        synchronized (p) {
            for (MemoryRegion mr : p.regions) {
                mr.close();
            }
            p.regions.clear();
        }
    }

    private void failAll(IOException e) {
        for (Integer xid : pending.keySet()) {
            Pending p = pending.remove(xid);
            if (p != null) {
                p.reply.completeExceptionally(e);
                release(p);
            }
        }
    }

    /** Waits for the server to disconnect; the reason, or null on timeout. */
    public String awaitDisconnect(Duration d) throws InterruptedException {
        return disconnected.await(d.toMillis(), TimeUnit.MILLISECONDS) ? disconnectReason : null;
    }

    public boolean isConnected() {
        return qp != null && qp.state() == QueuePair.State.CONNECTED;
    }

    @Override
    public void close() {
        if (qp != null) {
            qp.disconnect();
        }
        failAll(new IOException("closed"));
        sendCq.close();
        recvCq.close();
        pd.close();
    }
}
