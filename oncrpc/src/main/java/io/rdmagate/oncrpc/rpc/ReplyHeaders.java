package io.rdmagate.oncrpc.rpc;

import io.netty.buffer.ByteBuf;

/**
 * Writes RFC 5531 §9 reply headers. Accepted replies carry an AUTH_NONE verifier (the server
 * verifier of AUTH_NONE and AUTH_SYS calls, §10.1 and Appendix A).
 */
public final class ReplyHeaders {
    private ReplyHeaders() {
    }

    /** MSG_ACCEPTED with {@code acceptStat}; SUCCESS results follow it. */
    public static ByteBuf accepted(ByteBuf out, int xid, int acceptStat) {
        out.writeInt(xid);
        out.writeInt(Rpc.REPLY);
        out.writeInt(Rpc.MSG_ACCEPTED);
        out.writeInt(AuthFlavor.AUTH_NONE);
        out.writeInt(0);
        out.writeInt(acceptStat);
        return out;
    }

    /**
     * MSG_ACCEPTED with {@code acceptStat} and, when {@code gssVerifier} is not null, an RPCSEC_GSS
     * verifier holding it (RFC 2203 §5.3.3.2: the MIC of the call's sequence number).
     */
    public static ByteBuf accepted(ByteBuf out, int xid, int acceptStat, byte[] gssVerifier) {
        if (gssVerifier == null) {
            return accepted(out, xid, acceptStat);
        }
        out.writeInt(xid);
        out.writeInt(Rpc.REPLY);
        out.writeInt(Rpc.MSG_ACCEPTED);
        out.writeInt(AuthFlavor.RPCSEC_GSS);
        out.writeInt(gssVerifier.length);
        out.writeBytes(gssVerifier);
        out.writeZero(-gssVerifier.length & 3);
        out.writeInt(acceptStat);
        return out;
    }

    /**
     * {@code reply} (a whole reply, as bytes) with the verifier of an accepted reply replaced by an
     * RPCSEC_GSS one holding {@code gssVerifier}; a denied reply is returned as it is.
     */
    public static byte[] withVerifier(byte[] reply, byte[] gssVerifier) {
        java.nio.ByteBuffer b = java.nio.ByteBuffer.wrap(reply);
        if (reply.length < 24 || b.getInt(8) != Rpc.MSG_ACCEPTED) {
            return reply;
        }
        int old = b.getInt(16);
        int rest = 20 + old + (-old & 3);
        if (old < 0 || rest > reply.length) {
            return reply;
        }
        int padded = gssVerifier.length + (-gssVerifier.length & 3);
        java.nio.ByteBuffer out = java.nio.ByteBuffer.allocate(20 + padded + reply.length - rest);
        out.put(reply, 0, 12).putInt(AuthFlavor.RPCSEC_GSS).putInt(gssVerifier.length).put(gssVerifier);
        out.position(20 + padded);
        out.put(reply, rest, reply.length - rest);
        return out.array();
    }

    /** MSG_ACCEPTED PROG_MISMATCH with the lowest and highest version supported. */
    public static ByteBuf progMismatch(ByteBuf out, int xid, int low, int high) {
        accepted(out, xid, Rpc.PROG_MISMATCH);
        out.writeInt(low);
        out.writeInt(high);
        return out;
    }

    /** MSG_DENIED RPC_MISMATCH; this server speaks RPC version 2 only. */
    public static ByteBuf rpcMismatch(ByteBuf out, int xid) {
        out.writeInt(xid);
        out.writeInt(Rpc.REPLY);
        out.writeInt(Rpc.MSG_DENIED);
        out.writeInt(Rpc.RPC_MISMATCH);
        out.writeInt(Rpc.VERSION);
        out.writeInt(Rpc.VERSION);
        return out;
    }

    /** MSG_DENIED AUTH_ERROR. */
    public static ByteBuf authError(ByteBuf out, int xid, int authStat) {
        out.writeInt(xid);
        out.writeInt(Rpc.REPLY);
        out.writeInt(Rpc.MSG_DENIED);
        out.writeInt(Rpc.AUTH_ERROR);
        out.writeInt(authStat);
        return out;
    }
}
