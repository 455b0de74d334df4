package io.rdmagate.smb.server;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Direct TCP transport framing (MS-SMB2 2.1): a 4-byte header, a zero byte and a 24-bit big-endian
 * length, then that many bytes of SMB message.
 *
 * <p>Accepts: session messages (type 0x00) of 1..maxMessageSize bytes, and NetBIOS keep-alives
 * (type 0x85), which it drops. Refuses (closes the connection): any other type, or a length above
 * maxMessageSize — checked as soon as the 4 header bytes arrive, before buffering anything.
 * Frames are retained slices of the receive buffer, not copies.
 */
public final class NetBiosFrameDecoder extends ByteToMessageDecoder {
    private static final Logger log = LoggerFactory.getLogger(NetBiosFrameDecoder.class);
    private final int maxMessageSize;

    public NetBiosFrameDecoder(int maxMessageSize) {
        this.maxMessageSize = maxMessageSize;
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        while (in.readableBytes() >= 4) {
            int at = in.readerIndex();
            int type = in.getUnsignedByte(at);
            int length = in.getUnsignedMedium(at + 1);
            if (type == 0x85) {
                in.skipBytes(4);
                continue;
            }
            if (type != 0 || length == 0 || length > maxMessageSize) {
                log.warn("closing {}: NetBIOS message type 0x{} of {} bytes (limit {})", ctx.channel().remoteAddress(),
                        Integer.toHexString(type), length, maxMessageSize);
                in.skipBytes(in.readableBytes());
                ctx.close();
                return;
            }
            if (in.readableBytes() < 4 + length) {
                return;
            }
            in.skipBytes(4);
            out.add(in.readRetainedSlice(length));
        }
    }
}
