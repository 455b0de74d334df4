package io.rdmagate.oncrpc.tcp;

import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Closes accepted connections beyond a maximum number open at once. Shared by a server's channels. */
@ChannelHandler.Sharable
public final class ConnectionLimiter extends ChannelInboundHandlerAdapter {
    private static final Logger LOG = LoggerFactory.getLogger(ConnectionLimiter.class);

    private final int max;
    private final AtomicInteger open = new AtomicInteger();

    public ConnectionLimiter(int max) {
        this.max = max;
    }

    public int open() {
        return open.get();
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) throws Exception {
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
        super.channelInactive(ctx);
    }
}
