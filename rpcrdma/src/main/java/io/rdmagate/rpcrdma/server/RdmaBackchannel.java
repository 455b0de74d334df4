package io.rdmagate.rpcrdma.server;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.rdmagate.oncrpc.server.Backchannel;
import io.rdmagate.rdma.SendWr;
import io.rdmagate.rdma.Sge;
import io.rdmagate.rdma.WorkCompletion;
import io.rdmagate.rpcrdma.header.HeaderEncoder;
import io.rdmagate.rpcrdma.header.RpcRdma;
import io.rdmagate.rpcrdma.header.TransportHeader;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reverse-direction RPC on one connection (RFC 8167), as svcrdma's svc_rdma_backchannel.c: the
 * server is the requester, the client the responder.
 *
 * <p>Operation: the upper layer hands over a whole RPC call. Once a reverse-direction credit is
 * free it goes inline in one Send, RDMA_MSG with three empty chunk lists, its rdma_credit asking
 * for the reverse-direction credits this side is prepared to use (RFC 8167 §4.1). The client's
 * reply lands in one of the receives posted for reverse-direction replies beside the forward
 * credits; {@link RecvFrom} recognises it by its RPC msg_type before any forward-call accounting
 * (RFC 8167 §3.3), and {@link #replyReceived} matches it by xid, copies it out of the receive
 * buffer (metadata, never payload) and takes the reply's rdma_credit as the number of calls that
 * may be outstanding from now on.
 *
 * <p>Implementation limits: calls and replies are inline only, no chunks either way (RFC 8167
 * §5.3 allows them; the NFSv4.1 callback operations carry no DDP-eligible data); a call longer
 * than the inline threshold fails at once; at most {@code backchannelCredits} calls are
 * outstanding and never more than the client granted (1 until its first reply); a call waits at
 * most {@code backchannelTimeout} for a credit and as long again for its reply, after which its
 * credit is taken back. Sanity checks on replies: inline RDMA_MSG with no chunk lists, at least
 * xid and msg_type, an xid we are waiting for; anything else is dropped.
 */
final class RdmaBackchannel implements Backchannel {
    private static final Logger LOG = LoggerFactory.getLogger(RdmaBackchannel.class);
    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    private final ServerConnection conn;
    private final int maxCredits;
    private final long timeoutNanos;
    private final Map<Integer, CompletableFuture<ByteBuf>> outstanding = new HashMap<>();
    private int window = 1;
    private boolean closed;

    RdmaBackchannel(ServerConnection conn, int maxCredits, java.time.Duration timeout) {
        this.conn = conn;
        this.maxCredits = maxCredits;
        this.timeoutNanos = timeout.toNanos();
    }

    @Override
    public boolean isOpen() {
        synchronized (this) {
            return !closed && !conn.isClosed();
        }
    }

    @Override
    public CompletableFuture<ByteBuf> call(ByteBuf message) {
        CompletableFuture<ByteBuf> reply = new CompletableFuture<>();
        try {
            send(message, reply);
        } catch (IOException | TimeoutException e) {
            reply.completeExceptionally(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            reply.completeExceptionally(e);
        } finally {
            message.release();
        }
        return reply;
    }

    private void send(ByteBuf message, CompletableFuture<ByteBuf> reply)
            throws IOException, TimeoutException, InterruptedException {
        int length = message.readableBytes();
        if (length < 8) {
            throw new IOException("not an RPC call: " + length + " bytes");
        }
        // RFC 8167 §5.3: this side sends reverse-direction calls inline only
        if (RpcRdma.MIN_HEADER_BYTES + length > conn.inlineSend) {
            throw new IOException("reverse-direction call of " + length + " bytes exceeds the inline threshold of "
                    + conn.inlineSend);
        }
        int xid = message.getInt(message.readerIndex());
        long deadline = System.nanoTime() + timeoutNanos;
        synchronized (this) {
            // RFC 8167 §4.1: no more calls outstanding than the client's reverse-direction credits
            while (!closed && outstanding.size() >= window) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    throw new TimeoutException("no reverse-direction credit within the backchannel timeout");
                }
                TimeUnit.NANOSECONDS.timedWait(this, left);
            }
            if (closed || conn.isClosed()) {
                throw new IOException("connection closed");
            }
            if (outstanding.putIfAbsent(xid, reply) != null) {
                throw new IOException("a reverse-direction call with xid " + Integer.toHexString(xid)
                        + " is outstanding");
            }
        }
        reply.orTimeout(2 * timeoutNanos, TimeUnit.NANOSECONDS).whenComplete((r, t) -> {
            if (t != null) {
                forget(xid, reply);
            }
        });
        int k;
        try {
            k = conn.sendBufferIndex();
        } catch (IllegalStateException e) {
            forget(xid, reply);
            throw new IOException(e.getMessage());
        }
        MemorySegment sb = conn.sendBuffer(k);
        int n = HeaderEncoder.inlineOnly(sb, 0, xid, maxCredits);
        message.getBytes(message.readerIndex(), sb.asSlice(n, length).asByteBuffer());
        conn.post(SendWr.send(conn.nextWrId(), new Sge(conn.sendBufferAddress(k), n + length, conn.sendLkey(k))),
                new ServerConnection.WorkContext() {
                    @Override
                    public void completed(WorkCompletion wc) {
                        conn.returnSendBuffer(k);
                    }

                    @Override
                    public void abandoned() {
                        conn.returnSendBuffer(k);
                        reply.completeExceptionally(new IOException("connection closed before the call was sent"));
                    }
                });
    }

    private synchronized void forget(int xid, CompletableFuture<ByteBuf> reply) {
        if (outstanding.remove(xid, reply)) {
            notifyAll();
        }
    }

    /**
     * Whether the message in {@code h} (decoded as a call) is a reverse-direction reply: RDMA_MSG,
     * no chunks, and an RPC message whose msg_type is REPLY (RFC 5531 §9).
     */
    static boolean isReverseReply(TransportHeader h) {
        return h.proc() == RpcRdma.RDMA_MSG && h.readSegmentCount() == 0 && h.writeChunkCount() == 0
                && !h.hasReplyChunk() && h.bodyLength() >= 8
                && h.buffer().get(INT, h.headerLength() + 4) == 1;
    }

    /** Runs on the receive completion thread; the caller re-posts the receive. */
    void replyReceived(TransportHeader h) {
        int xid = h.buffer().get(INT, h.headerLength());
        CompletableFuture<ByteBuf> reply;
        synchronized (this) {
            reply = outstanding.remove(xid);
            if (reply == null) {
                LOG.debug("connection {}: reverse-direction reply with unknown xid {} dropped", conn.id(),
                        Integer.toHexString(xid));
                return;
            }
            // RFC 8167 §4.1: the reply's credit value is how many calls the client will take
            window = Math.max(1, Math.min(maxCredits, h.credits()));
            notifyAll();
        }
        byte[] body = new byte[h.bodyLength()];
        MemorySegment.copy(h.buffer(), ValueLayout.JAVA_BYTE, h.headerLength(), body, 0, body.length);
        if (!reply.complete(Unpooled.wrappedBuffer(body))) {
            LOG.debug("connection {}: reverse-direction reply {} came after its timeout", conn.id(),
                    Integer.toHexString(xid));
        }
    }

    /** The connection is gone: every outstanding call fails. */
    void close() {
        Map<Integer, CompletableFuture<ByteBuf>> left;
        synchronized (this) {
            closed = true;
            left = new HashMap<>(outstanding);
            outstanding.clear();
            notifyAll();
        }
        IOException e = new IOException("connection closed before the reverse-direction reply");
        left.values().forEach(f -> f.completeExceptionally(e));
    }

    /** Reverse-direction calls waiting for their replies (for tests and metrics). */
    synchronized int outstanding() {
        return outstanding.size();
    }
}
