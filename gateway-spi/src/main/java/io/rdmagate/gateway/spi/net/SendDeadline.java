package io.rdmagate.gateway.spi.net;

import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.util.concurrent.ScheduledFuture;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Closes a connection whose peer takes none of what is written to it for {@code timeout}: its
 * receive window stays shut while replies wait in the socket buffer and the channel's outbound
 * queue, holding their memory (READ payloads leased from the I/O pool). Neither the idle timeout
 * (the connection has calls in flight) nor the quietest-first eviction (it keeps sending calls)
 * would ever end it. A peer that reads, however slowly, makes progress and stays.
 *
 * <p>Operation: counts writes not yet completed; when the first of them starts, and each time one
 * completes, the time is noted; one scheduled check per connection at a time, on its event loop,
 * closes the channel when writes have waited for the timeout without any completing. Shared by
 * every TCP listener (RPC and SMB); not sharable between channels.
 */
public final class SendDeadline extends ChannelDuplexHandler {
    private static final Logger log = LoggerFactory.getLogger(SendDeadline.class);

    private final long timeoutNanos;
    private final Runnable onClose;
    private int unsent;
    private long lastProgressNanos;
    private ScheduledFuture<?> check;

    /** {@code onClose} runs when this handler closes a connection (a metric, say). */
    public SendDeadline(Duration timeout, Runnable onClose) {
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("send timeout " + timeout);
        }
        this.timeoutNanos = timeout.toNanos();
        this.onClose = onClose;
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) throws Exception {
        if (unsent++ == 0) {
            lastProgressNanos = System.nanoTime();
            arm(ctx);
        }
        ChannelPromise p = promise.unvoid();
        p.addListener(f -> {
            unsent--;
            lastProgressNanos = System.nanoTime();
        });
        ctx.write(msg, p);
    }

    private void arm(ChannelHandlerContext ctx) {
        if (check != null || !ctx.channel().isActive()) {
            return;
        }
        long due = lastProgressNanos + timeoutNanos - System.nanoTime();
        check = ctx.executor().schedule(() -> {
            check = null;
            if (unsent == 0 || !ctx.channel().isActive()) {
                return;
            }
            if (System.nanoTime() - lastProgressNanos >= timeoutNanos) {
                log.info("closing connection from {}: {} writes not taken for {} s", ctx.channel().remoteAddress(),
                        unsent, timeoutNanos / 1_000_000_000L);
                onClose.run();
                ctx.close();
            } else {
                arm(ctx);
            }
        }, Math.max(due, 1), TimeUnit.NANOSECONDS);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        if (check != null) {
            check.cancel(false);
            check = null;
        }
        super.channelInactive(ctx);
    }
}
