package io.rdmagate.smb.server.transport;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.util.ReferenceCountUtil;
import io.rdmagate.vfs.memory.PayloadCopies;
import java.util.concurrent.atomic.LongAdder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Direct TCP transport framing (MS-SMB2 2.1): a 4-byte header, a zero byte and a 24-bit big-endian
 * length, then that many bytes of SMB message.
 *
 * <p>Accepts: session messages (type 0x00) of 1..maxMessageSize bytes, and NetBIOS keep-alives
 * (type 0x85), which it drops. Until a session of the connection has authenticated, the bound is
 * maxHandshakeMessageSize instead: NEGOTIATE and SESSION_SETUP are small, and a frame's buffer is
 * allocated when its header arrives, so an anonymous client must not make the server set aside a
 * WRITE's worth of memory per connection. Refuses (closes the connection): any other type, or a
 * length above the bound — checked as soon as the 4 header bytes arrive, before buffering anything.
 *
 * <p>Where the bytes go: a frame that lies whole in one received buffer is passed on as a retained
 * slice of it, not copied. A frame that spans socket reads (every large WRITE: a read brings at most
 * what the receive allocator offers, 64 KiB by default) is gathered into one direct buffer of the
 * frame's length, allocated when its header arrives: each of its bytes is copied once, and counted in
 * {@link PayloadCopies} under "tcp" (for a WRITE nearly all of them are payload; the SMB code needs
 * the message contiguous). Netty's merging cumulator, used here before, copied such frames too
 * (more than once when its buffer grew) without counting them. Also counts the bytes received.
 */
public final class NetBiosFrameDecoder extends ChannelInboundHandlerAdapter {
    private static final Logger log = LoggerFactory.getLogger(NetBiosFrameDecoder.class);
    private final int maxMessageSize;
    private final int maxHandshakeMessageSize;
    private final java.util.function.BooleanSupplier authenticated;
    private final TransportMeters metrics;
    private final LongAdder copied;
    private int headerBytes;
    private int header;
    private ByteBuf frame;
    private boolean passedOn;
    private boolean refused;

    public NetBiosFrameDecoder(int maxMessageSize, int maxHandshakeMessageSize,
            java.util.function.BooleanSupplier authenticated, TransportMeters metrics, PayloadCopies copies) {
        this.maxMessageSize = maxMessageSize;
        this.maxHandshakeMessageSize = maxHandshakeMessageSize;
        this.authenticated = authenticated;
        this.metrics = metrics;
        this.copied = copies.counter("tcp");
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (!(msg instanceof ByteBuf in)) {
            ctx.fireChannelRead(msg);
            return;
        }
        metrics.received(in.readableBytes());
        try {
            while (in.isReadable() && !refused) {
                if (frame != null) {
                    int n = Math.min(frame.writableBytes(), in.readableBytes());
                    frame.writeBytes(in, n);
                    copied.add(n);
                    if (!frame.isWritable()) {
                        ByteBuf f = frame;
                        frame = null;
                        passedOn = true;
                        ctx.fireChannelRead(f);
                    }
                    continue;
                }
                if (headerBytes == 0 && in.readableBytes() >= 4) {
                    header = in.readInt();
                } else {
                    while (headerBytes < 4 && in.isReadable()) {
                        header = header << 8 | in.readUnsignedByte();
                        headerBytes++;
                    }
                    if (headerBytes < 4) {
                        return;
                    }
                    headerBytes = 0;
                }
                int type = header >>> 24;
                int length = header & 0xFFFFFF;
                header = 0;
                if (type == 0x85) {
                    continue;
                }
                int limit = authenticated.getAsBoolean() ? maxMessageSize : maxHandshakeMessageSize;
                if (type != 0 || length == 0 || length > limit) {
                    log.warn("closing {}: NetBIOS message type 0x{} of {} bytes (limit {}{})",
                            ctx.channel().remoteAddress(), Integer.toHexString(type), length, limit,
                            limit == maxMessageSize ? "" : " before a session is authenticated");
                    refused = true;
                    ctx.close();
                    return;
                }
                if (in.readableBytes() >= length) {
                    passedOn = true;
                    ctx.fireChannelRead(in.readRetainedSlice(length));
                } else {
                    frame = ctx.alloc().directBuffer(length, length);
                }
            }
        } finally {
            in.release();
        }
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        // as ByteToMessageDecoder does: a read that completed no frame asks for more even when
        // reading is paused, or a half-received frame would wait forever
        if (!passedOn && !ctx.channel().config().isAutoRead()) {
            ctx.read();
        }
        passedOn = false;
        ctx.fireChannelReadComplete();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) throws Exception {
        release();
        super.channelInactive(ctx);
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        release();
    }

    private void release() {
        if (frame != null) {
            ReferenceCountUtil.safeRelease(frame);
            frame = null;
        }
    }
}
