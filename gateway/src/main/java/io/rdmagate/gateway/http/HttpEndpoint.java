package io.rdmagate.gateway.http;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.rdmagate.gateway.spi.config.HttpConfig;
import io.rdmagate.gateway.spi.net.ConnectionLimiter;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * GET /health (JSON) and GET /metrics (Prometheus text 0.0.4) over HTTP/1.1, on one event-loop
 * thread of its own; not a hot path. Bounded as the protocol listeners are: at most
 * {@code http.maxConnections} connections, a newcomer at the bound closing the quietest (so a
 * flood of idle sockets never keeps a probe out), each exchange within {@code http.requestTimeout}
 * ({@link HttpExchanges}), request lines and headers within the codec's limits.
 */
public final class HttpEndpoint implements AutoCloseable {
    /** Netty's defaults: what a probe or a scraper sends is a fraction of them. */
    private static final int MAX_INITIAL_LINE = 4096;
    private static final int MAX_HEADER_BYTES = 8192;
    private static final int MAX_CHUNK = 8192;

    private final EventLoopGroup group;
    private final Channel server;
    private final ConnectionLimiter limiter;

    private HttpEndpoint(EventLoopGroup group, Channel server, ConnectionLimiter limiter) {
        this.group = group;
        this.server = server;
        this.limiter = limiter;
    }

    public static HttpEndpoint start(HttpConfig config, GatewayMetrics metrics, Supplier<Health> health)
            throws IOException {
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, new DefaultThreadFactory("rdmagate-http"),
                NioIoHandler.newFactory());
        ConnectionLimiter limiter = new ConnectionLimiter(config.maxConnections());
        HttpExchanges.Routes routes = new HttpExchanges.Routes(metrics, health);
        ServerBootstrap b = new ServerBootstrap().group(group).channel(NioServerSocketChannel.class)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        ch.pipeline().addLast(limiter, new HttpServerCodec(MAX_INITIAL_LINE, MAX_HEADER_BYTES, MAX_CHUNK),
                                new HttpExchanges(routes, config.requestTimeout()));
                    }
                });
        try {
            Channel server = b.bind(new InetSocketAddress(config.address(), config.port())).sync().channel();
            return new HttpEndpoint(group, server, limiter);
        } catch (Exception e) {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            throw e instanceof IOException io ? io : new IOException(e.getMessage(), e);
        }
    }

    /** The bound address (the real port when 0 was asked). */
    public InetSocketAddress address() {
        return (InetSocketAddress) server.localAddress();
    }

    /** Connections open now. */
    public int connections() {
        return limiter.open();
    }

    /** Connections closed to make room for newer ones. */
    public long evicted() {
        return limiter.evicted();
    }

    @Override
    public void close() {
        server.close().syncUninterruptibly();
        group.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
    }
}
