package io.rdmagate.oncrpc.tcp;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.rdmagate.oncrpc.server.Backchannel;
import io.rdmagate.oncrpc.xdr.XdrMessage;
import java.io.IOException;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Calls from the server to the client on a TCP connection the client opened (RFC 8881 §2.10.3.1:
 * the NFSv4.1 backchannel shares the fore channel's connection), as Linux's svc_xprt bc_svc does.
 *
 * <p>Operation: {@link #call} records the call's xid, writes the call as one record (RFC 5531
 * §11 record marking, like every reply on the connection) and returns. Records the client sends
 * are calls or replies; {@link RpcConnectionHandler} tells them apart by msg_type before anything
 * else and hands replies to {@link #replyReceived}, on the event loop, which completes the future
 * of the xid (a reply nobody waits for is dropped). When the connection ends every waiting call
 * fails.
 *
 * <p>Limits: at most {@code maxOutstanding} calls wait for their replies at once (a further call
 * fails at once: the upper layer has its own slot table, RFC 8881 §2.10.6.3, so this is a bound,
 * not flow control); a call longer than {@code maxCallBytes} fails; a reply not received within
 * {@code timeout} fails its call.
 */
public final class TcpBackchannel implements Backchannel {
    private final Channel channel;
    private final int maxOutstanding;
    private final int maxCallBytes;
    private final long timeoutNanos;
    private final Map<Integer, CompletableFuture<ByteBuf>> outstanding = new HashMap<>();
    private boolean closed;

    public TcpBackchannel(Channel channel, int maxOutstanding, int maxCallBytes, Duration timeout) {
        if (maxOutstanding < 1 || maxCallBytes < 8 || timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("backchannel limits " + maxOutstanding + ", " + maxCallBytes + ", " + timeout);
        }
        this.channel = channel;
        this.maxOutstanding = maxOutstanding;
        this.maxCallBytes = maxCallBytes;
        this.timeoutNanos = timeout.toNanos();
    }

    @Override
    public synchronized boolean isOpen() {
        return !closed && channel.isActive();
    }

    @Override
    public CompletableFuture<ByteBuf> call(ByteBuf message) {
        CompletableFuture<ByteBuf> reply = new CompletableFuture<>();
        int length = message.readableBytes();
        if (length < 8 || length > maxCallBytes) {
            message.release();
            return CompletableFuture.failedFuture(new IOException("a backchannel call of " + length
                    + " bytes; the limit is " + maxCallBytes));
        }
        int xid = message.getInt(message.readerIndex());
        synchronized (this) {
            String refused = closed || !channel.isActive() ? "the connection is closed"
                    : outstanding.size() >= maxOutstanding ? maxOutstanding + " backchannel calls are outstanding"
                    : outstanding.containsKey(xid) ? "a backchannel call with xid " + Integer.toHexString(xid)
                            + " is outstanding"
                    : null;
            if (refused != null) {
                message.release();
                return CompletableFuture.failedFuture(new IOException(refused));
            }
            outstanding.put(xid, reply);
        }
        reply.orTimeout(timeoutNanos, TimeUnit.NANOSECONDS).whenComplete((r, t) -> {
            if (t != null) {
                forget(xid, reply);
            }
        });
        channel.writeAndFlush(new XdrMessage(message, null, -1, Unpooled.EMPTY_BUFFER)).addListener(f -> {
            if (!f.isSuccess()) {
                reply.completeExceptionally(new IOException("backchannel call not sent: " + f.cause()));
            }
        });
        return reply;
    }

    private synchronized void forget(int xid, CompletableFuture<ByteBuf> reply) {
        outstanding.remove(xid, reply);
    }

    /**
     * A reply arrived on the connection (msg_type REPLY, RFC 5531 §9); takes over {@code record}.
     * Returns whether a call was waiting for it.
     */
    public boolean replyReceived(ByteBuf record) {
        CompletableFuture<ByteBuf> waiting;
        synchronized (this) {
            waiting = record.readableBytes() < 8 ? null : outstanding.remove(record.getInt(record.readerIndex()));
        }
        if (waiting == null || !waiting.complete(record)) {
            record.release();
            return false;
        }
        return true;
    }

    /** The connection ended: every call still waiting fails. */
    public void close() {
        Map<Integer, CompletableFuture<ByteBuf>> left;
        synchronized (this) {
            closed = true;
            left = new HashMap<>(outstanding);
            outstanding.clear();
        }
        for (CompletableFuture<ByteBuf> f : left.values()) {
            f.completeExceptionally(new IOException("the connection closed before the reply"));
        }
    }
}
