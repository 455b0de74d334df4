package io.rdmagate.rpcrdma.header;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.List;

/**
 * Writes RPC-over-RDMA version 1 transport headers (RFC 8166 §4) into a send buffer. Replies
 * echo the call's write list and reply chunk with each segment's length reduced to the bytes the
 * responder placed there (RFC 8166 §3.4.5); a write chunk that carried nothing goes back with
 * zero-length segments, an unused reply chunk as absent. Each method returns the bytes written.
 */
public final class HeaderEncoder {
    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    private HeaderEncoder() {
    }

    /** Bytes {@link #reply} writes for {@code call}'s chunks. */
    public static int replyLength(TransportHeader call, boolean replyChunkUsed) {
        int n = RpcRdma.FIXED_BYTES + 4;
        for (int c = 0; c < call.writeChunkCount(); c++) {
            n += 8 + call.writeSegmentCount(c) * RpcRdma.SEGMENT_BYTES;
        }
        n += 4 + 4;
        if (replyChunkUsed) {
            n += 4 + call.replySegmentCount() * RpcRdma.SEGMENT_BYTES;
        }
        return n;
    }

    /**
     * A reply header: RDMA_MSG (the RPC reply follows inline) or RDMA_NOMSG (it went to the reply
     * chunk, RFC 8166 §3.5.3).
     *
     * @param writeChunk   index of the write chunk that carries the payload, or -1
     * @param writeBytes   bytes placed in that chunk
     * @param replyBytes   bytes placed in the reply chunk, or -1 when it was not used
     */
    public static int reply(MemorySegment out, long at, int xid, int credits, int proc, TransportHeader call,
            int writeChunk, long writeBytes, long replyBytes) {
        long p = fixed(out, at, xid, credits, proc);
        out.set(INT, p, 0); // no read list in a reply
        p += 4;
        for (int c = 0; c < call.writeChunkCount(); c++) {
            out.set(INT, p, 1);
            int n = call.writeSegmentCount(c);
            out.set(INT, p + 4, n);
            p += 8;
            long left = c == writeChunk ? writeBytes : 0;
            for (int k = 0; k < n; k++) {
                long used = Math.min(left, Integer.toUnsignedLong(call.writeLength(c, k)));
                left -= used;
                p = segment(out, p, call.writeHandle(c, k), (int) used, call.writeOffset(c, k));
            }
        }
        out.set(INT, p, 0);
        p += 4;
        if (replyBytes >= 0 && call.hasReplyChunk()) {
            out.set(INT, p, 1);
            int n = call.replySegmentCount();
            out.set(INT, p + 4, n);
            p += 8;
            long left = replyBytes;
            for (int k = 0; k < n; k++) {
                long used = Math.min(left, Integer.toUnsignedLong(call.replyLength(k)));
                left -= used;
                p = segment(out, p, call.replyHandle(k), (int) used, call.replyOffset(k));
            }
        } else {
            out.set(INT, p, 0);
            p += 4;
        }
        return (int) (p - at);
    }

    /** RDMA_ERROR (RFC 8166 §5): ERR_VERS carries the supported range 1..1, ERR_CHUNK nothing. */
    public static int error(MemorySegment out, long at, int xid, int credits, int errorCode) {
        long p = fixed(out, at, xid, credits, RpcRdma.RDMA_ERROR);
        out.set(INT, p, errorCode);
        p += 4;
        if (errorCode == RpcRdma.ERR_VERS) {
            out.set(INT, p, RpcRdma.VERSION);
            out.set(INT, p + 4, RpcRdma.VERSION);
            p += 8;
        }
        return (int) (p - at);
    }

    /**
     * RDMA_MSG with three empty chunk lists: the header of a reverse-direction call or reply
     * (RFC 8167 §5), whose whole RPC message follows inline.
     */
    public static int inlineOnly(MemorySegment out, long at, int xid, int credits) {
        return call(out, at, xid, credits, RpcRdma.RDMA_MSG, List.of(), List.of(), null);
    }

    /** A call header with the requester's chunk lists (RFC 8166 §4). */
    public static int call(MemorySegment out, long at, int xid, int credits, int proc, List<ReadSegment> reads,
            List<List<Segment>> writes, List<Segment> reply) {
        long p = fixed(out, at, xid, credits, proc);
        for (ReadSegment r : reads) {
            out.set(INT, p, 1);
            out.set(INT, p + 4, r.position());
            p = segment(out, p + 8, r.segment().handle(), r.segment().length(), r.segment().offset());
        }
        out.set(INT, p, 0);
        p += 4;
        for (List<Segment> w : writes) {
            out.set(INT, p, 1);
            out.set(INT, p + 4, w.size());
            p += 8;
            for (Segment s : w) {
                p = segment(out, p, s.handle(), s.length(), s.offset());
            }
        }
        out.set(INT, p, 0);
        p += 4;
        if (reply == null) {
            out.set(INT, p, 0);
            p += 4;
        } else {
            out.set(INT, p, 1);
            out.set(INT, p + 4, reply.size());
            p += 8;
            for (Segment s : reply) {
                p = segment(out, p, s.handle(), s.length(), s.offset());
            }
        }
        return (int) (p - at);
    }

    private static long fixed(MemorySegment out, long at, int xid, int credits, int proc) {
        out.set(INT, at, xid);
        out.set(INT, at + 4, RpcRdma.VERSION);
        out.set(INT, at + 8, credits);
        out.set(INT, at + 12, proc);
        return at + RpcRdma.FIXED_BYTES;
    }

    private static long segment(MemorySegment out, long p, int handle, int length, long offset) {
        out.set(INT, p, handle);
        out.set(INT, p + 4, length);
        out.set(LONG, p + 8, offset);
        return p + RpcRdma.SEGMENT_BYTES;
    }
}
