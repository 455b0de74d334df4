package io.rdmagate.bench.nfs;

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
import java.nio.ByteBuffer;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * One RPC-over-RDMA connection of the NFSv3 load generator, as lean as {@link TcpLoadConnection}
 * and shaped like the Linux client (xprtrdma): every buffer registered once, when the connection
 * opens. Each of {@code depth} slots owns a send buffer and a 1 MiB data region. A WRITE's data
 * goes in a read chunk at its XDR position (RFC 8166 §3.4.5) that the server RDMA-Reads from the
 * slot's region; a READ offers the slot's region as a write chunk, which the server RDMA-Writes
 * (RFC 8267 §2: READ data is DDP-eligible); everything else is inline (RDMA_MSG). The WRITE
 * payload is copied into a slot once, the first time the slot sends that array, as an
 * application would fill its registered buffers.
 */
final class RdmaLoadConnection implements LoadConnection {
    private static final int INLINE = 4096;
    private static final int DATA = 1 << 20;

    private final ProtectionDomain pd;
    private final CompletionQueue sendCq;
    private final CompletionQueue recvCq;
    private final Arena arena = Arena.ofShared();
    private final QueuePair qp;
    private final int receives;
    private final MemorySegment recv;
    private final MemoryRegion recvRegion;
    private final MemorySegment[] send;
    private final MemoryRegion[] sendRegions;
    private final MemorySegment[] data;
    private final MemoryRegion[] dataRegions;
    private final byte[][] dataHolds;
    private final BlockingQueue<Integer> freeSlots;
    private final int[] slotOfXid = new int[1 << 16];
    private final BlockingQueue<long[]> replies;
    private final TransportHeader header = new TransportHeader(RpcRdmaLimits.DEFAULT);
    private final ByteBuffer call = ByteBuffer.allocate(1024);
    private volatile String failure;
    private int lastLength;

    RdmaLoadConnection(RdmaDevice device, InetSocketAddress server, int depth) throws IOException {
        this.receives = depth + 4;
        this.pd = device.allocateProtectionDomain();
        this.replies = new ArrayBlockingQueue<>(receives + 1);
        this.freeSlots = new ArrayBlockingQueue<>(depth);
        this.sendCq = device.createCompletionQueue(4 * depth + 8, this::onSend);
        this.recvCq = device.createCompletionQueue(receives, this::onReceive);
        try {
            recv = arena.allocate((long) receives * INLINE, 4096);
            recvRegion = pd.register(recv, EnumSet.of(Access.LOCAL_WRITE));
            send = new MemorySegment[depth];
            sendRegions = new MemoryRegion[depth];
            data = new MemorySegment[depth];
            dataRegions = new MemoryRegion[depth];
            dataHolds = new byte[depth][];
            for (int s = 0; s < depth; s++) {
                send[s] = arena.allocate(INLINE, 64);
                sendRegions[s] = pd.register(send[s], EnumSet.of(Access.LOCAL_WRITE));
                data[s] = arena.allocate(DATA, 4096);
                dataRegions[s] = pd.register(data[s],
                        EnumSet.of(Access.LOCAL_WRITE, Access.REMOTE_READ, Access.REMOTE_WRITE));
                freeSlots.add(s);
            }
            QpConfig config = new QpConfig(pd, sendCq, recvCq, 4 * depth + 8, receives, 4,
                    device.limits().maxInboundReads(), device.limits().maxOutboundReads(), new ConnectionEvents() {
                        @Override
                        public void disconnected(QueuePair q, String reason) {
                            fail("disconnected: " + reason);
                        }
                    });
            byte[] ours = new ConnectPrivateData(false, INLINE, INLINE).encode();
            qp = device.connect(server, config, ours, q -> {
                for (int k = 0; k < receives; k++) {
                    q.postReceive(RecvWr.of(k, recvRegion.sge((long) k * INLINE, INLINE)));
                }
            }).get(30, TimeUnit.SECONDS);
        } catch (Exception e) {
            close();
            throw new IOException("RPC-over-RDMA connect to " + server + " failed: " + e, e);
        }
    }

    private int takeSlot(int xid) throws IOException {
        try {
            Integer s = freeSlots.poll(30, TimeUnit.SECONDS);
            if (s == null) {
                throw new IOException("no free slot within 30 s");
            }
            slotOfXid[xid & 0xffff] = s;
            return s;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        }
    }

    /** Posts the slot's send buffer: transport header, then the encoded call without its data. */
    private void post(int slot, int xid, List<ReadSegment> reads, List<List<Segment>> writes) throws IOException {
        int n = HeaderEncoder.call(send[slot], 0, xid, 32, RpcRdma.RDMA_MSG, reads, writes, null);
        MemorySegment.copy(call.array(), 0, send[slot], ValueLayout.JAVA_BYTE, n, call.position());
        int length = n + call.position();
        call.clear();
        try {
            qp.postSend(SendWr.send(xid, sendRegions[slot].sge(0, length)));
        } catch (RdmaException e) {
            throw new IOException(e);
        }
    }

    @Override
    public void sendGetattr(int xid, byte[] fh) throws IOException {
        int slot = takeSlot(xid);
        NfsCalls.getattr(call, xid, fh);
        post(slot, xid, List.of(), List.of());
    }

    @Override
    public void sendRead(int xid, byte[] fh, long offset, int count) throws IOException {
        int slot = takeSlot(xid);
        NfsCalls.read(call, xid, fh, offset, count);
        MemoryRegion mr = dataRegions[slot];
        post(slot, xid, List.of(), List.of(List.of(new Segment(mr.rkey(), count, mr.address()))));
    }

    @Override
    public void sendWrite(int xid, byte[] fh, long offset, byte[] bytes, int count, int stable) throws IOException {
        int slot = takeSlot(xid);
        if (dataHolds[slot] != bytes) {
            MemorySegment.copy(bytes, 0, data[slot], ValueLayout.JAVA_BYTE, 0, count);
            dataHolds[slot] = bytes;
        }
        NfsCalls.write(call, xid, fh, offset, count, stable);
        MemoryRegion mr = dataRegions[slot];
        // RFC 8166 §3.4.5: the data's position is where it would start in the inline stream
        post(slot, xid, List.of(new ReadSegment(call.position(), new Segment(mr.rkey(), count, mr.address()))),
                List.of());
    }

    @Override
    public void sendCommit(int xid, byte[] fh) throws IOException {
        int slot = takeSlot(xid);
        NfsCalls.commit(call, xid, fh);
        post(slot, xid, List.of(), List.of());
    }

    @Override
    public void flush() {
    }

    private void onSend(WorkCompletion wc) {
        if (!wc.ok()) {
            fail("send failed: " + wc.status());
        }
    }

    private void onReceive(WorkCompletion wc) {
        if (wc.ok()) {
            replies.add(new long[] {wc.wrId(), wc.byteLength()});
        } else {
            fail("receive failed: " + wc.status());
        }
    }

    private void fail(String why) {
        if (failure == null) {
            failure = why;
        }
        replies.offer(new long[] {-1, 0});
    }

    @Override
    public int receive() throws IOException {
        long[] r;
        try {
            r = replies.poll(60, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        }
        if (r == null || r[0] < 0) {
            throw new IOException(failure != null ? failure : "no reply within 60 s");
        }
        int k = (int) r[0];
        MemorySegment buf = recv.asSlice((long) k * INLINE, INLINE);
        TransportHeader.Verdict v = header.decodeReply(buf, (int) r[1]);
        if (v != TransportHeader.Verdict.OK || header.proc() != RpcRdma.RDMA_MSG) {
            throw new IOException("reply header " + v + " proc " + header.proc() + ": " + header.reason());
        }
        int xid = NfsCalls.check(buf.asSlice(header.headerLength(), header.bodyLength()).asByteBuffer(),
                header.bodyLength());
        lastLength = header.bodyLength() + (header.writeChunkCount() > 0 ? (int) header.writeChunkBytes(0) : 0);
        try {
            qp.postReceive(RecvWr.of(k, recvRegion.sge((long) k * INLINE, INLINE)));
        } catch (RdmaException e) {
            throw new IOException(e);
        }
        freeSlots.add(slotOfXid[xid & 0xffff]);
        return xid;
    }

    @Override
    public int lastLength() {
        return lastLength;
    }

    @Override
    public void close() {
        if (qp != null) {
            qp.disconnect();
        }
        sendCq.close();
        recvCq.close();
        pd.close();
        arena.close();
    }
}
