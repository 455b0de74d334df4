package io.rdmagate.oncrpc.client;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.rdmagate.oncrpc.rpc.ReplyHeader;
import io.rdmagate.oncrpc.xdr.XdrDecoder;

/**
 * A reply as a client received it: its header and the bytes after it (the results of a SUCCESS
 * reply), on the heap.
 */
public record RpcReplyMessage(ReplyHeader header, byte[] body) {
    /** A decoder over the results. */
    public XdrDecoder results() {
        ByteBuf b = Unpooled.wrappedBuffer(body);
        return new XdrDecoder(b);
    }
}
