package io.rdmagate.gateway.spi.net;

import io.netty.channel.Channel;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.util.AttributeKey;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Bounds the connections open at once. When a new client arrives at the bound, the connection
 * that has been quiet longest (no bytes read or written) is closed to make room, as Linux knfsd
 * does (svc_check_conn_limits): a flood of idle or trickling connections cannot lock real clients
 * out, and an NFS or SMB client whose connection was closed reconnects (and retransmits, or
 * reclaims its durable handles). Shared by a listener's channels, first in their pipelines; one
 * volatile write per read and per write. Used by every TCP listener: ONC RPC (NFS, MOUNT, NLM,
 * NSM, rpcbind) and SMB.
 */
@ChannelHandler.Sharable
public final class ConnectionLimiter extends ChannelDuplexHandler {
    private static final Logger LOG = LoggerFactory.getLogger(ConnectionLimiter.class);
    private static final AttributeKey<Activity> ACTIVITY = AttributeKey.valueOf(ConnectionLimiter.class, "activity");

    /** When a connection last moved bytes. */
    private static final class Activity {
        volatile long lastNanos = System.nanoTime();
    }

    private final int max;
    private final AtomicInteger open = new AtomicInteger();
    private final Map<Channel, Activity> channels = new ConcurrentHashMap<>();
    private final LongAdder evicted = new LongAdder();
    private final Events events;
    private static final long WARNING_INTERVAL_NANOS = java.util.concurrent.TimeUnit.MINUTES.toNanos(1);
    private final java.util.concurrent.atomic.AtomicLong lastWarning =
            new java.util.concurrent.atomic.AtomicLong(System.nanoTime() - WARNING_INTERVAL_NANOS - 1);

    /** What the listener is told of each connection accepted and each closed (those closed to make room too). */
    public interface Events {
        Events NONE = new Events() {
        };

        default void opened() {
        }

        default void closed() {
        }
    }

    public ConnectionLimiter(int max) {
        this(max, Events.NONE);
    }

    public ConnectionLimiter(int max, Events events) {
        if (max < 1) {
            throw new IllegalArgumentException("maxConnections " + max);
        }
        this.max = max;
        this.events = events;
    }

    public int open() {
        return open.get();
    }

    /** Connections closed to make room for a new one. */
    public long evicted() {
        return evicted.sum();
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) throws Exception {
        events.opened();
        Activity a = new Activity();
        ctx.channel().attr(ACTIVITY).set(a);
        channels.put(ctx.channel(), a);
        if (open.incrementAndGet() > max) {
            Channel quiet = quietest(ctx.channel());
            if (quiet == null) {
                LOG.warn("refusing connection from {}: {} connections are open", ctx.channel().remoteAddress(), max);
                ctx.close();
                return;
            }
            evicted.increment();
            long now = System.nanoTime();
            long last = lastWarning.get();
            if (now - last > WARNING_INTERVAL_NANOS && lastWarning.compareAndSet(last, now)) {
                // at most one line a minute: a flood must not become a flood of log lines
                LOG.warn("{} connections are open: closing the quietest, from {}, for a new one from {} ({} closed so far)",
                        max, quiet.remoteAddress(), ctx.channel().remoteAddress(), evicted.sum());
            }
            quiet.close();
        }
        super.channelActive(ctx);
    }

    /**
     * Claims the open connection other than {@code newcomer} that moved bytes longest ago, or
     * returns null. A claimed connection leaves the candidates at once, so that newcomers arriving
     * together on several event loops each close a different one.
     */
    private Channel quietest(Channel newcomer) {
        while (true) {
            Channel best = null;
            Activity bestActivity = null;
            for (Map.Entry<Channel, Activity> e : channels.entrySet()) {
                Channel c = e.getKey();
                if (c == newcomer) {
                    continue;
                }
                Activity a = e.getValue();
                if (best == null || a.lastNanos - bestActivity.lastNanos < 0) {
                    best = c;
                    bestActivity = a;
                }
            }
            if (best == null || channels.remove(best, bestActivity)) {
                return best;
            }
        }
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) throws Exception {
        touch(ctx);
        super.channelRead(ctx, msg);
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) throws Exception {
        touch(ctx);
        super.write(ctx, msg, promise);
    }

    private static void touch(ChannelHandlerContext ctx) {
        Activity a = ctx.channel().attr(ACTIVITY).get();
        if (a != null) {
            a.lastNanos = System.nanoTime();
        }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        channels.remove(ctx.channel());
        open.decrementAndGet();
        events.closed();
        super.channelInactive(ctx);
    }
}
