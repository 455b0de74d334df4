package io.rdmagate.rpcrdma.server;

import io.netty.buffer.ByteBuf;
import io.rdmagate.oncrpc.xdr.XdrMessage;
import io.rdmagate.rdma.MemoryRegion;
import io.rdmagate.rdma.Opcode;
import io.rdmagate.rdma.RdmaException;
import io.rdmagate.rdma.SendWr;
import io.rdmagate.rdma.Sge;
import io.rdmagate.rdma.WorkCompletion;
import io.rdmagate.rpcrdma.header.HeaderEncoder;
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
 * The send direction of a connection, as svcrdma's svc_rdma_sendto.c.
 *
 * <p>Operation: the reply is an {@link XdrMessage} whose DDP-eligible payload (the NFS binding
 * marks it, RFC 8267 §2) is its own part. When the call offered a write chunk the payload is
 * RDMA-Written into it straight from its memory (pool memory is registered already; other memory
 * is registered for the one reply) and left out of the inline stream together with its XDR
 * roundup (RFC 8166 §3.4.5, §3.4.6). What remains goes inline in one Send (RDMA_MSG) when header
 * and message fit the inline threshold, as a gather list: the header and the head copied into a
 * registered send buffer, the payload from its own memory when it stays inline, the tail. A
 * longer message is RDMA-Written into the reply chunk and the Send carries an RDMA_NOMSG header
 * only (RFC 8166 §3.5.3). A reply that fits nowhere (too long with no reply chunk, or a payload
 * larger than the write chunk) becomes RDMA_ERROR ERR_CHUNK. The Send is a Send With Invalidate
 * of the call's one rkey when the client allows it (RFC 8797 §3.2). The Writes and the Send go to
 * the Send Queue as one chain ({@link SendQueue}): the Writes unsignaled, the Send signaled, so
 * one completion per reply. Everything the reply holds is released when its Send completes (or the connection goes away); no payload byte is copied.
 */
final class SendTo {
    private static final Logger LOG = LoggerFactory.getLogger(SendTo.class);

    private final ServerConnection conn;

    SendTo(ServerConnection conn) {
        this.conn = conn;
    }

    /** Holds what a reply needs until its Send completes. */
    private final class ReplyContext implements ServerConnection.WorkContext {
        XdrMessage reply;
        int sendBuffer = -1;
        final List<IoMemory> staging = new ArrayList<>(2);
        MemoryRegion temporary;

        @Override
        public void completed(WorkCompletion wc) {
            release();
        }

        @Override
        public void abandoned() {
            release();
        }

        synchronized void release() {
            if (reply != null) {
                reply.release();
                reply = null;
            }
            staging.forEach(IoMemory::release);
            staging.clear();
            if (temporary != null) {
                temporary.close();
                temporary = null;
            }
            if (sendBuffer >= 0) {
                conn.returnSendBuffer(sendBuffer);
                sendBuffer = -1;
            }
        }
    }

    /** RDMA_ERROR for {@code xid} (RFC 8166 §5). */
    void error(int xid, int code) {
        ReplyContext ctx = new ReplyContext();
        try {
            ctx.sendBuffer = conn.sendBufferIndex();
        } catch (InterruptedException | IllegalStateException e) {
            conn.close();
            return;
        }
        int n = HeaderEncoder.error(conn.sendBuffer(ctx.sendBuffer), 0, xid, conn.grantedCredits(), code);
        conn.post(SendWr.send(conn.nextWrId(), new Sge(conn.sendBufferAddress(ctx.sendBuffer), n, conn.sendLkey(ctx.sendBuffer))),
                ctx);
    }

    /** Sends {@code reply} to the call described by {@code call}; takes over the reply. */
    void reply(TransportHeader call, XdrMessage reply) {
        ReplyContext ctx = new ReplyContext();
        ctx.reply = reply;
        try {
            send(call, reply, ctx);
        } catch (RdmaException | VfsException | InterruptedException | IllegalStateException e) {
            LOG.debug("connection {}: reply to xid {} not sent: {}", conn.id(), Integer.toHexString(call.xid()),
                    e.toString());
            ctx.release();
            conn.close();
        }
    }

    private void send(TransportHeader call, XdrMessage reply, ReplyContext ctx)
            throws RdmaException, VfsException, InterruptedException {
        IoMemory payload = reply.payload();
        long payloadLength = payload == null ? 0 : payload.length();
        int pad = (int) (-payloadLength & 3);
        ByteBuf head = reply.head();
        ByteBuf tail = reply.tail();
        int writeChunk = -1;
        if (payload != null && call.writeChunkCount() > 0) {
            if (call.writeChunkBytes(0) < payloadLength) {
                LOG.debug("connection {}: payload of {} bytes, write chunk of {}", conn.id(), payloadLength,
                        call.writeChunkBytes(0));
                ctx.release();
                error(call.xid(), RpcRdma.ERR_CHUNK);
                return;
            }
            writeChunk = 0;
        }
        boolean moved = writeChunk >= 0;
        // the reply's chain: RDMA Writes (unsignaled), then the Send that ends it (RFC 8166 §3.4.5)
        List<SendWr> chain = new ArrayList<>(4);
        int tailFrom = tail.readerIndex() + (moved ? Math.min(pad, tail.readableBytes()) : 0);
        int tailLength = tail.writerIndex() - tailFrom;
        long inlineLength = head.readableBytes() + (moved ? 0 : payloadLength) + tailLength;

        Sge payloadSge = null;
        if (payload != null && payloadLength > 0) {
            payloadSge = sgeOf(payload, ctx);
        }
        if (moved && payloadLength > 0) {
            // RFC 8166 §3.4.5: DDP-eligible data goes straight into the client's write chunk
            scatter(List.of(payloadSge), call, writeChunk, chain);
        }
        ctx.sendBuffer = conn.sendBufferIndex();
        MemorySegment sb = conn.sendBuffer(ctx.sendBuffer);
        long sbAddress = conn.sendBufferAddress(ctx.sendBuffer);
        int credits = conn.grantedCredits();
        int inv = conn.peer.sendWithInvalidate() ? call.singleRkey() : 0;
        int msgHeader = HeaderEncoder.replyLength(call, false);
        if (msgHeader + inlineLength <= conn.inlineSend) {
            int n = HeaderEncoder.reply(sb, 0, call.xid(), credits, RpcRdma.RDMA_MSG, call, writeChunk,
                    payloadLength, -1);
            int at = n;
            at = copy(head, head.readerIndex(), head.readableBytes(), sb, at);
            List<Sge> sges = new ArrayList<>(3);
            if (!moved && payloadSge != null) {
                sges.add(new Sge(sbAddress, at, conn.sendLkey(ctx.sendBuffer)));
                sges.add(payloadSge);
                int tailAt = at;
                at = copy(tail, tailFrom, tailLength, sb, at);
                if (at > tailAt) {
                    sges.add(new Sge(sbAddress + tailAt, at - tailAt, conn.sendLkey(ctx.sendBuffer)));
                }
            } else {
                at = copy(tail, tailFrom, tailLength, sb, at);
                sges.add(new Sge(sbAddress, at, conn.sendLkey(ctx.sendBuffer)));
            }
            chain.add(sendWr(inv, sges));
            conn.postChain(chain, ctx);
            return;
        }
        // RFC 8166 §3.5.3: a long reply goes to the reply chunk, the Send says RDMA_NOMSG
        if (!call.hasReplyChunk() || call.replyChunkBytes() < inlineLength) {
            LOG.debug("connection {}: reply of {} bytes, inline limit {}, reply chunk of {}", conn.id(), inlineLength,
                    conn.inlineSend, call.replyChunkBytes());
            ctx.release();
            error(call.xid(), RpcRdma.ERR_CHUNK);
            return;
        }
        List<Sge> source = new ArrayList<>(3);
        stage(head, head.readerIndex(), head.readableBytes(), ctx, source);
        if (!moved && payloadSge != null) {
            source.add(payloadSge);
        }
        stage(tail, tailFrom, tailLength, ctx, source);
        scatter(source, call, -1, chain);
        int n = HeaderEncoder.reply(sb, 0, call.xid(), credits, RpcRdma.RDMA_NOMSG, call, writeChunk, payloadLength,
                inlineLength);
        chain.add(sendWr(inv, List.of(new Sge(sbAddress, n, conn.sendLkey(ctx.sendBuffer)))));
        conn.postChain(chain, ctx);
    }

    /**
     * Copies {@code length} bytes of {@code from} into registered pool buffers for RDMA Writes, as
     * many as it takes when they exceed the largest buffer (a reply protected by RPCSEC_GSS
     * integrity or privacy carries its whole body, payload included, in its head), adding their SGEs.
     */
    private void stage(ByteBuf from, int index, int length, ReplyContext ctx, List<Sge> out) throws VfsException {
        int max = conn.account.maxBufferBytes();
        for (int off = 0; off < length; ) {
            int n = Math.min(max, length - off);
            IoMemory m = conn.account.lease(n);
            ctx.staging.add(m);
            copy(from, index + off, n, m.segment(), 0);
            out.add(new Sge(m.segment().address(), n, ((MemoryRegion) m.registration()).lkey()));
            off += n;
        }
    }

    private SendWr sendWr(int invalidateRkey, List<Sge> sges) {
        long id = conn.nextWrId();
        if (invalidateRkey != 0) {
            return new SendWr(id, Opcode.SEND_WITH_INVALIDATE, sges, 0, 0, invalidateRkey, true);
        }
        return new SendWr(id, Opcode.SEND, sges, 0, 0, 0, true);
    }

    /** The payload as a local SGE: its pool registration, or one made for this reply. */
    private Sge sgeOf(IoMemory payload, ReplyContext ctx) throws RdmaException {
        if (payload.registration() instanceof MemoryRegion mr && conn.server.owns(mr) && mr.isValid()) {
            return new Sge(payload.segment().address(), (int) payload.length(), mr.lkey());
        }
        // a mapped file region or memory of another pool: register it for this reply only
        ctx.temporary = conn.server.pd().register(payload.segment(),
                java.util.EnumSet.of(io.rdmagate.rdma.Access.LOCAL_WRITE));
        return new Sge(payload.segment().address(), (int) payload.length(), ctx.temporary.lkey());
    }

    private static int copy(ByteBuf from, int index, int length, MemorySegment to, int at) {
        if (length > 0) {
            from.getBytes(index, to.asSlice(at, length).asByteBuffer());
        }
        return at + length;
    }

    /**
     * Adds the unsignaled RDMA Writes that place the bytes of {@code source} in order across the
     * segments of write chunk {@code chunk} (or the reply chunk for -1), at most maxSge source
     * pieces per Write, to {@code chain}.
     */
    private void scatter(List<Sge> source, TransportHeader call, int chunk, List<SendWr> chain) {
        int segments = chunk >= 0 ? call.writeSegmentCount(chunk) : call.replySegmentCount();
        int piece = 0;
        long pieceOffset = 0;
        for (int s = 0; s < segments && piece < source.size(); s++) {
            int handle = chunk >= 0 ? call.writeHandle(chunk, s) : call.replyHandle(s);
            long remote = chunk >= 0 ? call.writeOffset(chunk, s) : call.replyOffset(s);
            long room = Integer.toUnsignedLong(chunk >= 0 ? call.writeLength(chunk, s) : call.replyLength(s));
            while (room > 0 && piece < source.size()) {
                List<Sge> sgl = new ArrayList<>(conn.maxSge);
                long bytes = 0;
                while (room - bytes > 0 && piece < source.size() && sgl.size() < conn.maxSge) {
                    Sge p = source.get(piece);
                    long take = Math.min(p.length() - pieceOffset, room - bytes);
                    sgl.add(new Sge(p.address() + pieceOffset, (int) take, p.lkey()));
                    bytes += take;
                    pieceOffset += take;
                    if (pieceOffset == p.length()) {
                        piece++;
                        pieceOffset = 0;
                    }
                }
                chain.add(new SendWr(conn.nextWrId(), Opcode.RDMA_WRITE, sgl, remote, handle, 0, false));
                remote += bytes;
                room -= bytes;
            }
        }
    }
}
