package io.rdmagate.smb.server.transport;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.rdmagate.vfs.memory.IoMemory;
import io.rdmagate.vfs.memory.PayloadCopies;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Direct TCP transport (MS-SMB2 2.1), the last handler of a Netty pipeline behind
 * {@link NetBiosFrameDecoder}: each frame goes to the {@link Receiver} as a view of the received
 * buffer, and each message sent goes out as one NetBIOS frame in one gathering write.
 */
public final class TcpTransport extends ChannelInboundHandlerAdapter implements SmbTransport {
    private static final Logger log = LoggerFactory.getLogger(TcpTransport.class);
    private final TransportMeters meters;
    private final PayloadCopies copies;
    private volatile Channel channel;
    private Receiver receiver;

    public TcpTransport(TransportMeters meters, PayloadCopies copies) {
        this.meters = meters;
        this.copies = copies;
    }

    /** Sets the receiver; before the channel is registered. */
    public void attach(Receiver r) {
        this.receiver = r;
    }

    @Override
    public String kind() {
        return "tcp";
    }

    @Override
    public InetSocketAddress remoteAddress() {
        Channel ch = channel;
        return ch == null ? null : (InetSocketAddress) ch.remoteAddress();
    }

    @Override
    public InetSocketAddress localAddress() {
        Channel ch = channel;
        return ch == null ? null : (InetSocketAddress) ch.localAddress();
    }

    @Override
    public boolean isOpen() {
        Channel ch = channel;
        return ch != null && ch.isActive();
    }

    @Override
    public void pauseReceiving(boolean pause) {
        channel.config().setAutoRead(!pause);
    }

    @Override
    public void disconnect() {
        Channel ch = channel;
        if (ch != null) {
            ch.close();
        }
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        channel = ctx.channel();
        meters.opened();
        receiver.opened();
        ctx.fireChannelActive();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        ByteBuf frame = (ByteBuf) msg;
        receiver.received(frame.nioBuffer().slice().order(ByteOrder.LITTLE_ENDIAN), frame::release);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        receiver.closed();
        meters.closed();
        ctx.fireChannelInactive();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        log.debug("closing {}: {}", ctx.channel().remoteAddress(), cause.toString());
        ctx.close();
    }

    /**
     * Sends one NetBIOS frame: the header and {@code parts} gathered into one pooled direct buffer,
     * then {@code payload} (a READ's data) as a component of its own, sent from where it lies.
     *
     * <p>Why gather the parts: the messages are built in heap buffers, and a socket channel copies
     * any buffer that is not all direct into a new direct one before writing it (Netty's
     * filterOutboundMessage, for epoll and NIO alike), so one heap part in the composite would have
     * the whole frame, payload included, copied again. Copying the small headers once keeps the
     * payload out of that copy.
     */
    @Override
    public void send(List<ByteBuffer> parts, IoMemory payload, long payloadInParts) {
        int partsLen = 0;
        for (ByteBuffer p : parts) {
            partsLen += p.remaining();
        }
        long payloadLen = payload == null ? 0 : payload.length();
        long len = partsLen + payloadLen;
        meters.sent(len + 4);
        if (payloadInParts > 0) {
            copies.add("tcp", payloadInParts);
        }
        Channel ch = channel;
        ByteBuf head = ch.alloc().directBuffer(4 + partsLen);
        head.writeByte(0).writeMedium((int) len);
        for (ByteBuffer p : parts) {
            head.writeBytes(p.duplicate());
        }
        if (payload == null) {
            ch.writeAndFlush(head);
            return;
        }
        CompositeByteBuf out = ch.alloc().compositeDirectBuffer(2);
        out.addComponent(true, head);
        out.addComponent(true, Unpooled.wrappedBuffer(payload.segment().asByteBuffer())); // direct: pool or mapped memory
        assert out.isDirect() : "a heap component would have the transport copy the whole frame, payload included";
        ch.writeAndFlush(out).addListener(f -> payload.release());
    }
}
