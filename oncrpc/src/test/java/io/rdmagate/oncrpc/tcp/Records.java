package io.rdmagate.oncrpc.tcp;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.rdmagate.oncrpc.rpc.CallHeaders;
import io.rdmagate.oncrpc.rpc.Credentials;
import io.rdmagate.oncrpc.rpc.ReplyHeader;
import io.rdmagate.oncrpc.xdr.XdrDecoder;
import io.rdmagate.oncrpc.xdr.XdrException;

/** Builds call records and reads reply records in tests. */
public final class Records {
    private Records() {
    }

    /** The call message (no record mark). */
    public static ByteBuf call(int xid, int prog, int vers, int proc, Credentials cred, ByteBuf args) {
        ByteBuf b = CallHeaders.write(Unpooled.buffer(), xid, prog, vers, proc, cred);
        b.writeBytes(args);
        return b;
    }

    /** A message as one last fragment. */
    public static ByteBuf marked(ByteBuf message) {
        ByteBuf b = Unpooled.buffer().writeInt(0x80000000 | message.readableBytes());
        return b.writeBytes(message);
    }

    /** Strips the record mark of a written reply and decodes its header; the decoder is on the results. */
    public static ReplyHeader reply(ByteBuf written, XdrDecoder[] resultsOut) throws XdrException {
        int mark = written.readInt();
        if (mark >= 0 || (mark & 0x7fffffff) != written.readableBytes()) {
            throw new XdrException("bad record mark " + Integer.toHexString(mark));
        }
        XdrDecoder x = new XdrDecoder(written);
        ReplyHeader h = ReplyHeader.decode(x);
        if (resultsOut != null) {
            resultsOut[0] = x;
        }
        return h;
    }
}
