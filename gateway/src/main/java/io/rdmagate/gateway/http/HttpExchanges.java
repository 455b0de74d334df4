package io.rdmagate.gateway.http;

import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpObject;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.QueryStringDecoder;
import io.netty.util.concurrent.ScheduledFuture;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One connection of the HTTP endpoint: answers GET /health and GET /metrics, 404 for other paths,
 * 405 for other methods, 400 for a request the codec could not read or whose path does not decode.
 *
 * <p>Operation: the exchange deadline is armed when the connection opens and again each time a
 * response has been written on a connection kept alive; when it fires, the connection is closed,
 * whatever it was doing: sending nothing, sending a request a byte at a time, or not reading its
 * response. A request that is not a GET, or that carries a body, is answered and the connection
 * closed, so no body is ever read. A client that sends requests faster than it reads the responses
 * is closed once the channel's outbound buffer passes its high-water mark. Not sharable.
 */
final class HttpExchanges extends SimpleChannelInboundHandler<HttpObject> {
    private static final Logger LOG = LoggerFactory.getLogger(HttpExchanges.class);
    static final String PROMETHEUS_TEXT = "text/plain; version=0.0.4; charset=utf-8";
    private static final String PLAIN_TEXT = "text/plain; charset=utf-8";

    /** What the endpoint serves; shared by the connections. */
    record Routes(GatewayMetrics metrics, Supplier<Health> health) {
    }

    private final Routes routes;
    private final long timeoutNanos;
    private ScheduledFuture<?> deadline;
    /** A response that ends the connection is on its way: what follows it is not read. */
    private boolean closing;

    HttpExchanges(Routes routes, Duration timeout) {
        this.routes = routes;
        this.timeoutNanos = timeout.toNanos();
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) throws Exception {
        arm(ctx);
        super.channelActive(ctx);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        if (deadline != null) {
            deadline.cancel(false);
        }
        super.channelInactive(ctx);
    }

    private void arm(ChannelHandlerContext ctx) {
        if (deadline != null) {
            deadline.cancel(false);
        }
        deadline = ctx.executor().schedule(() -> {
            LOG.debug("closing {}: no whole exchange within {} ms", ctx.channel().remoteAddress(),
                    TimeUnit.NANOSECONDS.toMillis(timeoutNanos));
            ctx.close();
        }, timeoutNanos, TimeUnit.NANOSECONDS);
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, HttpObject msg) {
        // a GET's content is empty; another request's content is never looked at (its connection closes)
        if (closing || !(msg instanceof HttpRequest req)) {
            return;
        }
        if (!ctx.channel().isWritable()) {
            LOG.debug("closing {}: it sends requests and does not read the responses", ctx.channel().remoteAddress());
            closing = true;
            ctx.close();
            return;
        }
        FullHttpResponse r = respond(req);
        boolean keepAlive = !r.status().equals(HttpResponseStatus.BAD_REQUEST) && HttpUtil.isKeepAlive(req)
                && allowed(req) && !HttpUtil.isTransferEncodingChunked(req) && HttpUtil.getContentLength(req, 0L) == 0;
        HttpUtil.setKeepAlive(r, keepAlive);
        ChannelFuture f = ctx.writeAndFlush(r);
        if (keepAlive) {
            f.addListener(done -> {
                if (done.isSuccess()) {
                    arm(ctx);
                }
            });
        } else {
            closing = true;
            f.addListener(ChannelFutureListener.CLOSE);
        }
    }

    private FullHttpResponse respond(HttpRequest req) {
        if (req.decoderResult().isFailure()) {
            return text(HttpResponseStatus.BAD_REQUEST, PLAIN_TEXT, "bad request\n");
        }
        String path;
        try {
            path = new QueryStringDecoder(req.uri()).path();
        } catch (IllegalArgumentException e) {
            return text(HttpResponseStatus.BAD_REQUEST, PLAIN_TEXT, "bad request: the path does not decode\n");
        }
        return switch (path) {
            case "/health" -> allowed(req) ? health(routes.health().get()) : notAllowed();
            case "/metrics" -> allowed(req)
                    ? text(HttpResponseStatus.OK, PROMETHEUS_TEXT, routes.metrics().scrape()) : notAllowed();
            default -> text(HttpResponseStatus.NOT_FOUND, PLAIN_TEXT, "not found: " + path + "\n");
        };
    }

    /** 200 while the gateway is up, 503 while it starts or stops: what HTTP probes (Kubernetes) read. */
    private static FullHttpResponse health(Health h) {
        return text(h.status().equals("up") ? HttpResponseStatus.OK : HttpResponseStatus.SERVICE_UNAVAILABLE,
                "application/json", h.toJson());
    }

    private static boolean allowed(HttpRequest req) {
        return req.method().equals(HttpMethod.GET);
    }

    private static FullHttpResponse notAllowed() {
        FullHttpResponse r = text(HttpResponseStatus.METHOD_NOT_ALLOWED, PLAIN_TEXT, "method not allowed\n");
        r.headers().set(HttpHeaderNames.ALLOW, "GET");
        return r;
    }

    private static FullHttpResponse text(HttpResponseStatus status, String type, String body) {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        FullHttpResponse r = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status, Unpooled.wrappedBuffer(bytes));
        r.headers().set(HttpHeaderNames.CONTENT_TYPE, type).setInt(HttpHeaderNames.CONTENT_LENGTH, bytes.length);
        return r;
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        LOG.debug("closing {}: {}", ctx.channel().remoteAddress(), cause.toString());
        ctx.close();
    }
}
