package io.rdmagate.oncrpc.tcp;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import io.rdmagate.oncrpc.xdr.XdrMessage;

/**
 * Writes each reply as one RPC record (RFC 5531 §11): a last-fragment mark, then the reply's
 * parts as components of one composite buffer, so the channel sends them with one gathering
 * write and the DDP-eligible payload is sent from its own memory, not copied.
 */
@ChannelHandler.Sharable
public final class RecordMarkingEncoder extends ChannelOutboundHandlerAdapter {
    public static final RecordMarkingEncoder INSTANCE = new RecordMarkingEncoder();

    private RecordMarkingEncoder() {
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        if (msg instanceof XdrMessage m) {
            ByteBuf mark = ctx.alloc().directBuffer(4).writeInt(0x80000000 | m.length());
            boolean payload = m.payload() != null;
            ByteBuf record = m.toByteBuf(ctx.alloc(), mark);
            // a socket channel copies a buffer that is not all direct into a new one before writing it:
            // with a payload, that would be a copy of the payload (head and tail are pooled, direct)
            assert !payload || record.isDirect() : "a heap part would have the transport copy the payload";
            ctx.write(record, promise);
        } else {
            ctx.write(msg, promise);
        }
    }
}
