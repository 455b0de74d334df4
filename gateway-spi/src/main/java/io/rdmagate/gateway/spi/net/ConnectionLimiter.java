package io.rdmagate.gateway.spi.net;

import io.netty.channel.Channel;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.util.AttributeKey;
import io.rdmagate.rdma.WarningThrottle;
import java.net.InetAddress;
import java.net.InetSocketAddress;
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
 * reclaims its durable handles). A second bound per source address keeps one address from
 * filling the table: past it, the new connection makes room among that address's own, so a flood
 * from one host evicts only itself. Shared by a listener's channels, first in their pipelines; one
 * volatile write per read and per write. Used by every TCP listener: ONC RPC (NFS, MOUNT, NLM,
 * NSM, rpcbind) and SMB.
 */
@ChannelHandler.Sharable
public final class ConnectionLimiter extends ChannelDuplexHandler {
    private static final Logger LOG = LoggerFactory.getLogger(ConnectionLimiter.class);
    private static final AttributeKey<Activity> ACTIVITY = AttributeKey.valueOf(ConnectionLimiter.class, "activity");

    /** When a connection last moved bytes, and where it comes from. */
    private static final class Activity {
        volatile long lastNanos = System.nanoTime();
        final InetAddress from;

        Activity(InetAddress from) {
            this.from = from;
        }
    }

    private final int max;
    private final int maxPerAddress;
    /** Connections open per source address (entries leave at zero). */
    private final Map<InetAddress, Integer> perAddress = new ConcurrentHashMap<>();
    private final AtomicInteger open = new AtomicInteger();
    private final Map<Channel, Activity> channels = new ConcurrentHashMap<>();
    private final LongAdder evicted = new LongAdder();
    private final Events events;
    /** At most one warning a minute: a flood must not become a flood of log lines. */
    private final WarningThrottle warnings = new WarningThrottle(java.time.Duration.ofMinutes(1));

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
        this(max, max, Events.NONE);
    }

    /** At most {@code max} connections, at most {@code maxPerAddress} of them from one address. */
    public ConnectionLimiter(int max, int maxPerAddress, Events events) {
        if (max < 1 || maxPerAddress < 1) {
            throw new IllegalArgumentException("maxConnections " + max + ", per address " + maxPerAddress);
        }
        this.max = max;
        this.maxPerAddress = maxPerAddress;
        this.events = events;
    }

    /** Connections open now from {@code address}. */
    public int open(InetAddress address) {
        return perAddress.getOrDefault(address, 0);
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
        InetAddress from = ctx.channel().remoteAddress() instanceof InetSocketAddress i ? i.getAddress() : null;
        Activity a = new Activity(from);
        ctx.channel().attr(ACTIVITY).set(a);
        channels.put(ctx.channel(), a);
        boolean madeRoom = false;
        if (from != null && perAddress.merge(from, 1, Integer::sum) > maxPerAddress) {
            Channel quiet = quietest(ctx.channel(), from);
            if (quiet != null) {
                madeRoom = evict(quiet, ctx.channel(), maxPerAddress + " connections from " + from.getHostAddress());
            }
        }
        if (open.incrementAndGet() > max && !madeRoom) {
            Channel quiet = quietest(ctx.channel(), null);
            if (quiet == null) {
                LOG.warn("refusing connection from {}: {} connections are open", ctx.channel().remoteAddress(), max);
                ctx.close();
                return;
            }
            evict(quiet, ctx.channel(), max + " connections");
        }
        super.channelActive(ctx);
    }

    private boolean evict(Channel quiet, Channel newcomer, String bound) {
        evicted.increment();
        if (warnings.due()) {
            LOG.warn("{} are open: closing the quietest, from {}, for a new one from {} ({} closed so far)",
                    bound, quiet.remoteAddress(), newcomer.remoteAddress(), evicted.sum());
        }
        quiet.close();
        return true;
    }

    /**
     * Claims the open connection other than {@code newcomer} (from {@code from}, when not null)
     * that moved bytes longest ago, or returns null. A claimed connection leaves the candidates at
     * once, so that newcomers arriving together on several event loops each close a different one.
     */
    private Channel quietest(Channel newcomer, InetAddress from) {
        while (true) {
            Channel best = null;
            Activity bestActivity = null;
            for (Map.Entry<Channel, Activity> e : channels.entrySet()) {
                Channel c = e.getKey();
                if (c == newcomer) {
                    continue;
                }
                Activity a = e.getValue();
                if (from != null && !from.equals(a.from)) {
                    continue;
                }
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
        Activity a = ctx.channel().attr(ACTIVITY).get();
        if (a != null && a.from != null) {
            perAddress.computeIfPresent(a.from, (k, n) -> n > 1 ? n - 1 : null);
        }
        open.decrementAndGet();
        events.closed();
        super.channelInactive(ctx);
    }
}
