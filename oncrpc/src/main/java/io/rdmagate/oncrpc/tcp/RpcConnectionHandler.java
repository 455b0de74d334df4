package io.rdmagate.oncrpc.tcp;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.timeout.IdleStateEvent;
import io.netty.util.ReferenceCountUtil;
import io.rdmagate.oncrpc.server.Connection;
import io.rdmagate.oncrpc.server.RpcDispatcher;
import io.rdmagate.oncrpc.xdr.XdrMessage;
import java.net.InetSocketAddress;
import java.util.ArrayDeque;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs the records of one connection through the dispatcher on an executor (virtual threads),
 * never on the event loop, and writes each reply as soon as it is ready: replies go out in the
 * order they complete, which RPC allows (the xid matches them).
 *
 * <p>Operation: at most {@code maxInFlight} calls are dispatched or being written at once. When
 * that many are, reading stops (autoRead off); records already decoded wait in a queue and are
 * not dispatched. A call stops counting when its reply has been written (or it had none), and
 * reading resumes. A connection with no call in flight is closed when the idle handler says it
 * has been idle. The dispatcher hears of the connection when it becomes active and again when it
 * is gone, so programs keep per-connection state exactly as long as the connection lives. All
 * fields are confined to the event loop.
 *
 * <p>The connection also carries the server's own calls to the client ({@link TcpBackchannel},
 * the NFSv4.1 backchannel): a record whose msg_type is REPLY (RFC 5531 §9) answers one of them
 * and goes there, on the event loop, without counting as a call.
 */
public final class RpcConnectionHandler extends ChannelInboundHandlerAdapter {
    private static final Logger LOG = LoggerFactory.getLogger(RpcConnectionHandler.class);
    private static final AtomicLong IDS = new AtomicLong();
    /** msg_type of a reply (RFC 5531 §9). */
    private static final int REPLY = 1;

    private final RpcDispatcher dispatcher;
    private final Executor executor;
    private final int maxInFlight;
    private final int maxBackchannelCall;
    private final java.time.Duration backchannelTimeout;
    private final ArrayDeque<ByteBuf> waiting = new ArrayDeque<>();
    private TcpBackchannel backchannel;
    private ChannelHandlerContext ctx;
    private Connection connection;
    private int inFlight;
    private boolean closed;
    /** Whether the dispatcher heard of this connection's opening and not yet of its end. */
    private boolean opened;

    /** How long a backchannel call waits for its reply unless configured (as RPC-over-RDMA's backchannel). */
    public static final java.time.Duration BACKCHANNEL_TIMEOUT = java.time.Duration.ofSeconds(60);

    public RpcConnectionHandler(RpcDispatcher dispatcher, Executor executor, int maxInFlight) {
        this(dispatcher, executor, maxInFlight, 1 << 20, BACKCHANNEL_TIMEOUT);
    }

    /**
     * @param maxInFlight         calls dispatched or being written at once; also how many backchannel
     *                            calls may wait for replies
     * @param maxBackchannelCall  the longest backchannel call
     * @param backchannelTimeout  how long a backchannel call waits for its reply
     */
    public RpcConnectionHandler(RpcDispatcher dispatcher, Executor executor, int maxInFlight, int maxBackchannelCall,
            java.time.Duration backchannelTimeout) {
        this.dispatcher = dispatcher;
        this.executor = executor;
        this.maxInFlight = maxInFlight;
        this.maxBackchannelCall = maxBackchannelCall;
        this.backchannelTimeout = backchannelTimeout;
    }

    /** Calls being dispatched or written now. */
    public int inFlight() {
        return inFlight;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.ctx = ctx;
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) throws Exception {
        dispatcher.connectionOpened(connection());
        opened = true;
        super.channelActive(ctx);
    }

    private Connection connection() {
        if (connection == null) {
            backchannel = new TcpBackchannel(ctx.channel(), maxInFlight, maxBackchannelCall, backchannelTimeout);
            connection = new Connection(IDS.incrementAndGet(), address(ctx.channel().remoteAddress()),
                    address(ctx.channel().localAddress()), "tcp", backchannel);
        }
        return connection;
    }

    private static InetSocketAddress address(java.net.SocketAddress a) {
        return a instanceof InetSocketAddress i ? i : new InetSocketAddress(java.net.InetAddress.getLoopbackAddress(), 0);
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (!(msg instanceof ByteBuf record)) {
            ReferenceCountUtil.release(msg);
            return;
        }
        if (closed) {
            record.release();
            return;
        }
        if (record.readableBytes() >= 8 && record.getInt(record.readerIndex() + 4) == REPLY) {
            connection();
            backchannel.replyReceived(record); // RFC 5531 §9: not a call; what no call waits for is dropped
            return;
        }
        if (inFlight < maxInFlight) {
            start(record);
        } else {
            waiting.add(record);
        }
        throttle();
    }

    private void start(ByteBuf record) {
        inFlight++;
        Connection c = connection();
        executor.execute(() -> {
            XdrMessage reply = null;
            try {
                reply = dispatcher.dispatch(record, c);
            } catch (Throwable t) {
                LOG.warn("dispatch on connection {} from {} failed", c.id(), c.peer(), t);
            } finally {
                record.release();
            }
            XdrMessage r = reply;
            if (ctx.executor().inEventLoop()) {
                send(r);
            } else {
                ctx.executor().execute(() -> send(r));
            }
        });
    }

    private void send(XdrMessage reply) {
        if (reply == null || closed) {
            if (reply != null) {
                reply.release();
            }
            finished();
            return;
        }
        ctx.writeAndFlush(reply).addListener(f -> {
            if (!f.isSuccess()) {
                LOG.debug("reply to {} not sent: {}", connection.peer(), f.cause().toString());
            }
            finished();
        });
    }

    private void finished() {
        inFlight--;
        while (inFlight < maxInFlight && !waiting.isEmpty() && !closed) {
            start(waiting.poll());
        }
        throttle();
    }

    private void throttle() {
        boolean full = inFlight + waiting.size() >= maxInFlight;
        if (ctx.channel().config().isAutoRead() == full) {
            ctx.channel().config().setAutoRead(!full); // turning it back on issues a read
        }
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) throws Exception {
        if (evt instanceof IdleStateEvent) {
            if (inFlight == 0 && waiting.isEmpty()) {
                LOG.debug("closing idle connection from {}", ctx.channel().remoteAddress());
                ctx.close();
            }
            return;
        }
        super.userEventTriggered(ctx, evt);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        closed = true;
        if (backchannel != null) {
            backchannel.close();
        }
        if (opened) {
            opened = false;
            dispatcher.connectionClosed(connection);
        }
        ByteBuf b;
        while ((b = waiting.poll()) != null) {
            b.release();
        }
        super.channelInactive(ctx);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        LOG.debug("closing connection from {}: {}", ctx.channel().remoteAddress(), cause.toString());
        ctx.close();
    }
}
