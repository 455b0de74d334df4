package io.rdmagate.oncrpc.rpc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.rdmagate.oncrpc.server.Connection;
import io.rdmagate.oncrpc.server.RpcDispatcher;
import io.rdmagate.oncrpc.xdr.XdrMessage;
import java.nio.ByteBuffer;

/**
 * One RPC message through a dispatcher in memory, as every listener hands it over: the campaigns'
 * way of sending a call (shared with the NFS modules' campaigns through oncrpc's test jar).
 */
public final class Dispatched {
    private Dispatched() {
    }

    /** The reply's bytes, or null when the message got none (not a call, or dropped). */
    public static byte[] reply(RpcDispatcher dispatcher, byte[] message, Connection from) {
        ByteBuf record = Unpooled.wrappedBuffer(message);
        XdrMessage reply;
        try {
            reply = dispatcher.dispatch(record, from);
        } finally {
            record.release();
        }
        if (reply == null) {
            return null;
        }
        try {
            return reply.toBytes();
        } finally {
            reply.release();
        }
    }

    /**
     * The accept_stat of the reply to {@code message}, or -1 when it was rejected or got no reply.
     * Fails on SYSTEM_ERR (a procedure that threw), on a reply that is not one to this call, and on
     * anything the dispatcher throws.
     */
    public static int acceptStat(RpcDispatcher dispatcher, byte[] message, Connection from) {
        byte[] r = reply(dispatcher, message, from);
        if (r == null) {
            return -1;
        }
        ByteBuffer b = ByteBuffer.wrap(r);
        assertTrue(r.length >= 12, "a reply header");
        assertEquals(ByteBuffer.wrap(message).getInt(0), b.getInt(0), "the call's xid");
        assertEquals(Rpc.REPLY, b.getInt(4));
        if (b.getInt(8) != Rpc.MSG_ACCEPTED) {
            return -1;
        }
        int stat = b.getInt(20 + ((b.getInt(16) + 3) & ~3));
        assertNotEquals(Rpc.SYSTEM_ERR, stat, "a procedure failed on its input");
        return stat;
    }
}
