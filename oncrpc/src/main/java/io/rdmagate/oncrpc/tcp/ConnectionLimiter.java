package io.rdmagate.oncrpc.tcp;

import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.rdmagate.oncrpc.server.RpcObserver;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Closes accepted connections beyond a maximum number open at once. Shared by a server's channels. */
@ChannelHandler.Sharable
public final class ConnectionLimiter extends ChannelInboundHandlerAdapter {
    private static final Logger LOG = LoggerFactory.getLogger(ConnectionLimiter.class);

    private final int max;
    private final AtomicInteger open = new AtomicInteger();
    private final RpcObserver observer;

    public ConnectionLimiter(int max) {
        this(max, RpcObserver.NONE);
    }

    /** @param observer told of every connection accepted and closed (those refused over the maximum too) */
    public ConnectionLimiter(int max, RpcObserver observer) {
        this.max = max;
        this.observer = observer;
    }

    public int open() {
        return open.get();
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) throws Exception {
        observer.connectionOpened("tcp");
        if (open.incrementAndGet() > max) {
            LOG.warn("refusing connection from {}: {} connections are open", ctx.channel().remoteAddress(), max);
            ctx.close();
            return;
        }
        super.channelActive(ctx);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        open.decrementAndGet();
        observer.connectionClosed("tcp");
        super.channelInactive(ctx);
    }
}
