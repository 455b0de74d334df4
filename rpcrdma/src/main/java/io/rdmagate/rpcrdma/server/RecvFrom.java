package io.rdmagate.rpcrdma.server;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.rdmagate.oncrpc.xdr.PayloadByteBuf;
import io.rdmagate.oncrpc.xdr.XdrMessage;
import io.rdmagate.rdma.MemoryRegion;
import io.rdmagate.rdma.SendWr;
import io.rdmagate.rdma.Sge;
import io.rdmagate.rdma.WorkCompletion;
import io.rdmagate.rpcrdma.header.RpcRdma;
import io.rdmagate.rpcrdma.header.TransportHeader;
import io.rdmagate.vfs.VfsException;
import io.rdmagate.vfs.memory.IoMemory;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The receive direction of a connection, as svcrdma's svc_rdma_recvfrom.c.
 *
 * <p>Operation: a receive completion names its buffer. The transport header is decoded in place
 * ({@link TransportHeader}, every chunk list checked against the limits before anything is
 * posted). A reply to one of the server's reverse-direction calls goes to
 * {@link RdmaBackchannel} and takes no credit. A header refused with ERR_VERS or ERR_CHUNK is
 * answered with RDMA_ERROR (RFC 8166 §5) from a worker (the reply may wait for a send buffer;
 * this completion handler never waits) and its buffer re-posted; a dropped one is only
 * re-posted. For read chunks, one buffer per segment is leased from the connection's account of
 * the I/O pool (its slabs registered once with the protection domain) and one chain of RDMA
 * Reads, only the last signaled, pulls the segments into them ({@link SendQueue}; the queue pair
 * keeps at most ORD on the wire). When that last read completes the call is put together as a composite view, never
 * copied: the inline bytes before the chunk's position (a slice of the receive buffer), the chunk
 * buffers, the chunk's XDR roundup (RFC 8166 §3.4.6: the requester leaves it out), the inline bytes
 * after the position; for RDMA_NOMSG (RFC 8166 §3.5.3) the position-zero chunk alone is the
 * call. The call runs through the oncrpc dispatcher on a virtual thread; the header is then
 * copied aside (it names the reply's chunks), the receive re-posted, and {@link SendTo} sends
 * the reply.
 */
final class RecvFrom {
    private static final Logger LOG = LoggerFactory.getLogger(RecvFrom.class);
    private static final ByteBuf ZEROS = Unpooled.unreleasableBuffer(Unpooled.directBuffer(4).writeZero(4));

    private final ServerConnection conn;
    private final TransportHeader[] headers;
    private final TransportHeader[] replyHeaders;

    RecvFrom(ServerConnection conn) {
        this.conn = conn;
        this.headers = new TransportHeader[conn.receiveCount()];
        this.replyHeaders = new TransportHeader[conn.receiveCount()];
        for (int k = 0; k < headers.length; k++) {
            headers[k] = new TransportHeader(conn.server.options().limits());
            replyHeaders[k] = new TransportHeader(conn.server.options().limits());
        }
    }

    /** Runs on the receive completion queue's thread. */
    void received(int slot, int length) {
        conn.holdBuffers();
        try {
            received(slot, length, headers[slot], conn.receiveBuffer(slot));
        } finally {
            conn.releaseBuffers();
        }
    }

    private void received(int slot, int length, TransportHeader h, MemorySegment buf) {
        TransportHeader.Verdict v = h.decodeCall(buf, length);
        if (v == TransportHeader.Verdict.OK && conn.backchannel != null && RdmaBackchannel.isReverseReply(h)) {
            // RFC 8167 §3.3: a reply to one of our calls, not a forward-direction call; it used
            // one of the receives posted for reverse-direction replies, not a credit
            conn.backchannel.replyReceived(h);
            conn.postReceive(slot);
            return;
        }
        if (!conn.callStarted()) {
            return;
        }
        switch (v) {
            case DROP -> {
                LOG.debug("connection {}: dropped a message: {}", conn.id(), h.reason());
                done(slot);
            }
            case ERR_VERS, ERR_CHUNK -> {
                LOG.debug("connection {}: RDMA_ERROR for xid {}: {}", conn.id(), Integer.toHexString(h.xid()), h.reason());
                int xid = h.xid();
                int code = v == TransportHeader.Verdict.ERR_VERS ? RpcRdma.ERR_VERS : RpcRdma.ERR_CHUNK;
                conn.postReceive(slot);
                conn.creditReturned();
                // the error reply may wait for a send buffer: a worker's wait, never this handler's
                conn.server.executor().execute(() -> {
                    try {
                        conn.sendTo.error(xid, code);
                    } finally {
                        conn.callFinished();
                    }
                });
            }
            case OK -> {
                if (h.readSegmentCount() == 0) {
                    ByteBuf call = inline(buf, h, 0, h.bodyLength());
                    conn.server.executor().execute(() -> dispatch(slot, call));
                } else {
                    readChunks(slot, h);
                }
            }
        }
    }

    private void done(int slot) {
        conn.postReceive(slot);
        conn.creditReturned();
        conn.callFinished();
    }

    private static ByteBuf inline(MemorySegment buf, TransportHeader h, int from, int to) {
        return Unpooled.wrappedBuffer(buf.asSlice(h.headerLength() + from, to - from).asByteBuffer());
    }

    /**
     * A call whose read chunks are being pulled: one chain of RDMA Reads, the last one signaled
     * (RFC 8166 §3.4.5); its completion means every segment has landed.
     */
    private final class PendingCall implements ServerConnection.WorkContext {
        final int slot;
        final IoMemory[] leases;
        private final java.util.concurrent.atomic.AtomicBoolean ended = new java.util.concurrent.atomic.AtomicBoolean();

        PendingCall(int slot, int segments) {
            this.slot = slot;
            this.leases = new IoMemory[segments];
        }

        @Override
        public void completed(WorkCompletion wc) {
            if (ended.compareAndSet(false, true)) {
                ByteBuf call = assemble(this);
                conn.server.executor().execute(() -> dispatch(slot, call));
            }
        }

        @Override
        public void abandoned() {
            if (ended.compareAndSet(false, true)) {
                release();
                conn.creditReturned();
                conn.callFinished();
            }
        }

        void release() {
            for (int k = 0; k < leases.length; k++) {
                if (leases[k] != null) {
                    leases[k].release();
                    leases[k] = null;
                }
            }
        }
    }

    /**
     * Leases a sink per segment and posts one chain of RDMA Reads; all limits were checked by the
     * decoder. The queue pair keeps at most ORD of them outstanding on the wire. On the completion
     * handler the leases never wait: when the pool is short now, a worker takes the call over and
     * waits for memory as any lease does.
     */
    private void readChunks(int slot, TransportHeader h) {
        PendingCall pc = new PendingCall(slot, h.readSegmentCount());
        try {
            lease(pc, h, false);
        } catch (io.rdmagate.vfs.memory.PoolExhaustedException e) {
            conn.server.executor().execute(() -> readChunksWaiting(slot, h));
            return;
        } catch (VfsException e) {
            noMemory(pc, h, e);
            return;
        }
        conn.postChainFromHandler(readChain(pc, h), pc);
    }

    /** {@link #readChunks} on a worker, which may wait for the pool. */
    private void readChunksWaiting(int slot, TransportHeader h) {
        PendingCall pc = new PendingCall(slot, h.readSegmentCount());
        try {
            lease(pc, h, true);
        } catch (VfsException e) {
            noMemory(pc, h, e);
            return;
        }
        conn.postChain(readChain(pc, h), pc);
    }

    private void lease(PendingCall pc, TransportHeader h, boolean mayWait) throws VfsException {
        try {
            for (int k = 0; k < pc.leases.length; k++) {
                pc.leases[k] = mayWait ? conn.account.lease(h.readLength(k)) : conn.account.leaseNow(h.readLength(k));
            }
        } catch (VfsException e) {
            pc.release();
            throw e;
        }
    }

    /**
     * No memory for the chunks: drop the call and the connection, as svcrdma does on ENOMEM; the
     * client retransmits after reconnecting.
     */
    private void noMemory(PendingCall pc, TransportHeader h, VfsException e) {
        LOG.info("connection {}: no I/O memory for {} read chunk bytes: {}", conn.id(), h.readBytes(), e.getMessage());
        conn.close();
        pc.abandoned();
    }

    private List<SendWr> readChain(PendingCall pc, TransportHeader h) {
        int n = pc.leases.length;
        List<SendWr> chain = new ArrayList<>(n);
        for (int k = 0; k < n; k++) {
            IoMemory m = pc.leases[k];
            MemoryRegion mr = (MemoryRegion) m.registration();
            SendWr read = SendWr.read(conn.nextWrId(), h.readOffset(k), h.readHandle(k),
                    new Sge(m.segment().address(), (int) m.length(), mr.lkey()));
            chain.add(k == n - 1 ? read : read.unsignaled());
        }
        return chain;
    }

    /** The call as one composite view over the receive buffer and the chunk buffers. */
    private ByteBuf assemble(PendingCall pc) {
        TransportHeader h = headers[pc.slot];
        int n = pc.leases.length;
        ByteBuf[] parts = new ByteBuf[n + 3];
        int p = 0;
        long chunkBytes = h.readBytes();
        boolean nomsg = h.proc() == RpcRdma.RDMA_NOMSG;
        int position = nomsg ? 0 : h.readPosition(0);
        if (!nomsg && position > 0) {
            parts[p++] = inline(conn.receiveBuffer(pc.slot), h, 0, position);
        }
        for (int k = 0; k < n; k++) {
            parts[p++] = PayloadByteBuf.wrap(pc.leases[k]);
            pc.leases[k] = null;
        }
        if (!nomsg) {
            int pad = (int) (-chunkBytes & 3);
            if (pad > 0) {
                parts[p++] = ZEROS.slice(0, pad); // RFC 8166 §3.4.6: XDR roundup of the chunk
            }
            if (h.bodyLength() > position) {
                parts[p++] = inline(conn.receiveBuffer(pc.slot), h, position, h.bodyLength());
            }
        }
        return Unpooled.wrappedUnmodifiableBuffer(java.util.Arrays.copyOf(parts, p));
    }

    /** Runs on a virtual thread: the dispatcher, then the reply. */
    private void dispatch(int slot, ByteBuf call) {
        XdrMessage reply = null;
        try {
            reply = conn.server.dispatcher().dispatch(call, conn.connection);
        } catch (Throwable t) {
            LOG.warn("dispatch on RDMA connection {} failed", conn.id(), t);
        } finally {
            call.release();
        }
        // the reply's chunks are named by the call's header: keep a copy, re-post the receive
        TransportHeader copy = replyHeaders[slot];
        headers[slot].copyTo(copy, conn.headerCopy(slot, headers[slot].headerLength()));
        conn.postReceive(slot);
        conn.creditReturned();
        try {
            if (reply != null) {
                if (conn.isClosed()) {
                    reply.release();
                } else {
                    conn.sendTo.reply(copy, reply);
                }
            }
        } finally {
            conn.callFinished();
        }
    }
}
