package io.rdmagate.rpcrdma.header;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * The RPC-over-RDMA version 1 transport header (RFC 8166 §4) decoded in place: a flyweight over
 * the receive buffer that keeps only where each chunk list entry lies; accessors read the wire
 * bytes. One instance per receive buffer, reused; no allocation per message.
 *
 * <p>Implementation limits (checked against {@link RpcRdmaLimits} before anything is used):
 * at most maxReadSegments read segments and maxReadBytes in all of them; at most maxWriteChunks
 * write chunks of 1..maxChunkSegments segments and maxWriteChunkBytes each; a reply chunk of
 * 1..maxChunkSegments segments and maxReplyChunkBytes; no segment longer than maxSegmentBytes;
 * read chunks of a call at one non-zero XDR position only (NFSv3 has one DDP-eligible argument),
 * or all at position zero.
 *
 * <p>Sanity checks: every list discriminator is an XDR bool (0 or 1); segment counts are
 * checked against the limit and against the bytes left before the segments are read; no segment
 * of a call is empty or wraps the 64-bit address space; no two segments with the same handle overlap;
 * positions are multiples of 4, never decrease, and lie inside the inline message (RFC 8166
 * §3.4.5); a position-zero read chunk comes only with RDMA_NOMSG, and an RDMA_NOMSG call has one
 * and carries no inline body (RFC 8166 §3.5.3); a reply carries no read list.
 *
 * <p>Verdicts: a header too short to hold xid and version, a client's RDMA_DONE (deprecated,
 * RFC 8166 §4.5) or RDMA_ERROR is {@link Verdict#DROP}; a version other than 1 is
 * {@link Verdict#ERR_VERS} (RFC 8166 §5: reply with the supported range 1..1); everything else
 * refused, RDMA_MSGP (RFC 8166 §4.5) and truncated lists included, is {@link Verdict#ERR_CHUNK}.
 */
public final class TransportHeader {
    public enum Verdict { OK, DROP, ERR_VERS, ERR_CHUNK }

    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    private final RpcRdmaLimits limits;
    /** Where each read segment starts: grown on demand up to the limits' count, like the overlap arrays. */
    private int[] readAt;
    private final int[] writeAt;
    /** Segments seen so far, for the overlap check: grown on demand up to the limits' total. */
    private int[] overlapHandle;
    private long[] overlapStart;
    private long[] overlapEnd;
    private int overlapCount;

    private MemorySegment buf;
    private int length;
    private int xid;
    private int version;
    private int credits;
    private int proc;
    private int readCount;
    private int writeCount;
    private int replyAt;
    private int headerLength;
    private int errorCode;
    private int versLow;
    private int versHigh;
    private String reason;
    private boolean decodingCall;

    public TransportHeader(RpcRdmaLimits limits) {
        this.limits = limits;
        this.readAt = new int[Math.min(4, limits.maxReadSegments())];
        this.writeAt = new int[limits.maxWriteChunks()];
        // a typical call names a few segments: a header costs little until one names many (one is
        // kept per posted receive of every connection, so an idle connection pays for few)
        allocateOverlaps(Math.min(4, maxSegments()));
    }

    private int maxSegments() {
        return limits.maxReadSegments() + limits.maxChunkSegments() * (limits.maxWriteChunks() + 1);
    }

    private void allocateOverlaps(int capacity) {
        overlapHandle = java.util.Arrays.copyOf(overlapHandle == null ? new int[0] : overlapHandle, capacity);
        overlapStart = java.util.Arrays.copyOf(overlapStart == null ? new long[0] : overlapStart, capacity);
        overlapEnd = java.util.Arrays.copyOf(overlapEnd == null ? new long[0] : overlapEnd, capacity);
    }

    private void ensureOverlaps(int count) {
        if (count > overlapHandle.length) {
            allocateOverlaps(Math.min(maxSegments(), Math.max(count, overlapHandle.length * 2)));
        }
    }

    /** Decodes a call's header (what a responder receives). */
    public Verdict decodeCall(MemorySegment buf, int length) {
        return decode(buf, length, true);
    }

    /** Decodes a reply's header (what a requester receives). */
    public Verdict decodeReply(MemorySegment buf, int length) {
        return decode(buf, length, false);
    }

    private Verdict decode(MemorySegment b, int len, boolean call) {
        this.buf = b;
        this.length = len;
        this.decodingCall = call;
        readCount = 0;
        writeCount = 0;
        replyAt = -1;
        headerLength = 0;
        errorCode = 0;
        overlapCount = 0;
        reason = null;
        xid = 0;
        if (len < 8 || len > b.byteSize()) {
            return drop("header of " + len + " bytes cannot hold xid and version");
        }
        xid = i(0);
        version = i(4);
        if (version != RpcRdma.VERSION) {
            reason = "version " + version;
            return Verdict.ERR_VERS; // RFC 8166 §5: ERR_VERS with low = high = 1
        }
        if (len < RpcRdma.FIXED_BYTES) {
            return chunk("truncated fixed header");
        }
        credits = i(8);
        proc = i(12);
        switch (proc) {
            case RpcRdma.RDMA_MSG, RpcRdma.RDMA_NOMSG -> {
            }
            case RpcRdma.RDMA_ERROR -> {
                return call ? drop("RDMA_ERROR from a requester") : decodeError();
            }
            case RpcRdma.RDMA_DONE -> {
                return drop("RDMA_DONE is deprecated"); // RFC 8166 §4.5
            }
            case RpcRdma.RDMA_MSGP -> {
                return chunk("RDMA_MSGP is deprecated"); // RFC 8166 §4.5
            }
            default -> {
                return chunk("unknown procedure " + proc);
            }
        }
        int at = RpcRdma.FIXED_BYTES;
        // read list: a linked list of read chunks (RFC 8166 §4)
        long readBytes = 0;
        int lastPosition = 0;
        int nonZeroPosition = -1;
        while (true) {
            if (at + 4 > len) {
                return chunk("truncated read list");
            }
            int more = i(at);
            at += 4;
            if (more == 0) {
                break;
            }
            if (more != 1) {
                return chunk("read list discriminator " + more);
            }
            if (!call) {
                return chunk("read list in a reply");
            }
            if (readCount == limits.maxReadSegments()) {
                return chunk("more than " + limits.maxReadSegments() + " read segments");
            }
            if (at + 4 + RpcRdma.SEGMENT_BYTES > len) {
                return chunk("truncated read segment");
            }
            int position = i(at);
            if ((position & 3) != 0 || position < 0) {
                return chunk("read chunk position " + Integer.toUnsignedString(position) + " not XDR-aligned");
            }
            if (position < lastPosition) {
                return chunk("read chunk positions decrease");
            }
            lastPosition = position;
            if (position != 0) {
                if (nonZeroPosition >= 0 && nonZeroPosition != position) {
                    return chunk("read chunks at more than one position");
                }
                nonZeroPosition = position;
            }
            String bad = segment(at + 4);
            if (bad != null) {
                return chunk("read " + bad);
            }
            readBytes += Integer.toUnsignedLong(i(at + 8));
            if (readBytes > limits.maxReadBytes()) {
                return chunk("read chunks longer than " + limits.maxReadBytes());
            }
            if (readCount == readAt.length) {
                readAt = java.util.Arrays.copyOf(readAt, Math.min(limits.maxReadSegments(), readCount * 2));
            }
            readAt[readCount++] = at;
            at += 4 + RpcRdma.SEGMENT_BYTES;
        }
        // write list: a linked list of write chunks, each a counted array of segments
        while (true) {
            if (at + 4 > len) {
                return chunk("truncated write list");
            }
            int more = i(at);
            at += 4;
            if (more == 0) {
                break;
            }
            if (more != 1) {
                return chunk("write list discriminator " + more);
            }
            if (writeCount == limits.maxWriteChunks()) {
                return chunk("more than " + limits.maxWriteChunks() + " write chunks");
            }
            int end = chunkArray(at, len, limits.maxWriteChunkBytes(), "write chunk");
            if (end < 0) {
                return Verdict.ERR_CHUNK;
            }
            writeAt[writeCount++] = at;
            at = end;
        }
        // reply chunk: optional
        if (at + 4 > len) {
            return chunk("truncated reply chunk");
        }
        int reply = i(at);
        at += 4;
        if (reply == 1) {
            int end = chunkArray(at, len, limits.maxReplyChunkBytes(), "reply chunk");
            if (end < 0) {
                return Verdict.ERR_CHUNK;
            }
            replyAt = at;
            at = end;
        } else if (reply != 0) {
            return chunk("reply chunk discriminator " + reply);
        }
        headerLength = at;
        int body = len - at;
        if (proc == RpcRdma.RDMA_NOMSG) {
            if (body != 0) {
                return chunk("RDMA_NOMSG with " + body + " inline bytes");
            }
            if (call && (readCount == 0 || nonZeroPosition >= 0)) {
                // RFC 8166 §3.5.3: an RDMA_NOMSG call carries the whole message in a position-zero chunk
                return chunk("RDMA_NOMSG call without a position-zero read chunk only");
            }
            if (!call && replyAt < 0) {
                return chunk("RDMA_NOMSG reply without a reply chunk");
            }
        } else {
            if (call && readCount > 0 && (nonZeroPosition < 0 || i(readAt[0]) == 0)) {
                // positions never decrease: a position-zero segment, if any, is the first
                return chunk("position-zero read chunk in RDMA_MSG");
            }
            if (body < 4) {
                return chunk("RDMA_MSG without an RPC message");
            }
            if (nonZeroPosition > body) {
                // RFC 8166 §3.4.5: the position is an offset in the XDR stream
                return chunk("read chunk position " + nonZeroPosition + " beyond the inline message of " + body);
            }
        }
        return Verdict.OK;
    }

    private Verdict decodeError() {
        if (length < RpcRdma.FIXED_BYTES + 4) {
            return chunk("truncated RDMA_ERROR");
        }
        errorCode = i(16);
        headerLength = 20;
        if (errorCode == RpcRdma.ERR_VERS) {
            if (length < 28) {
                return chunk("truncated ERR_VERS");
            }
            versLow = i(20);
            versHigh = i(24);
            headerLength = 28;
        } else if (errorCode != RpcRdma.ERR_CHUNK) {
            return chunk("unknown error code " + errorCode);
        }
        return Verdict.OK;
    }

    /** Checks a counted segment array at {@code at}; returns the offset after it or -1. */
    private int chunkArray(int at, int len, long maxBytes, String what) {
        if (at + 4 > len) {
            chunk("truncated " + what);
            return -1;
        }
        long count = Integer.toUnsignedLong(i(at));
        if (count == 0 || count > limits.maxChunkSegments()) {
            chunk(what + " with " + count + " segments (1.." + limits.maxChunkSegments() + ")");
            return -1;
        }
        if (at + 4 + count * RpcRdma.SEGMENT_BYTES > len) {
            chunk("truncated " + what + " of " + count + " segments");
            return -1;
        }
        long total = 0;
        for (int k = 0; k < count; k++) {
            int s = at + 4 + k * RpcRdma.SEGMENT_BYTES;
            String bad = segment(s);
            if (bad != null) {
                chunk(what + " " + bad);
                return -1;
            }
            total += Integer.toUnsignedLong(i(s + 4));
        }
        if (total > maxBytes) {
            chunk(what + " of " + total + " bytes, more than " + maxBytes);
            return -1;
        }
        return at + 4 + (int) count * RpcRdma.SEGMENT_BYTES;
    }

    /** Checks one xdr_rdma_segment and records it for the overlap check; null when sane. */
    private String segment(int s) {
        int handle = i(s);
        long len = Integer.toUnsignedLong(i(s + 4));
        long offset = l(s + 8);
        if (len == 0 && decodingCall) {
            return "segment is empty"; // a reply may carry empty ones: nothing was placed there
        }
        if (len == 0) {
            return null;
        }
        if (len > limits.maxSegmentBytes()) {
            return "segment of " + len + " bytes, more than " + limits.maxSegmentBytes();
        }
        long end = offset + len;
        if (Long.compareUnsigned(end, offset) < 0) {
            return "segment wraps the address space";
        }
        for (int k = 0; k < overlapCount; k++) {
            if (overlapHandle[k] == handle && Long.compareUnsigned(offset, overlapEnd[k]) < 0
                    && Long.compareUnsigned(overlapStart[k], end) < 0) {
                return "segment overlaps another of handle " + Integer.toHexString(handle);
            }
        }
        ensureOverlaps(overlapCount + 1);
        overlapHandle[overlapCount] = handle;
        overlapStart[overlapCount] = offset;
        overlapEnd[overlapCount] = end;
        overlapCount++;
        return null;
    }

    private Verdict chunk(String why) {
        reason = why;
        return Verdict.ERR_CHUNK;
    }

    private Verdict drop(String why) {
        reason = why;
        return Verdict.DROP;
    }

    private int i(long at) {
        return buf.get(INT, at);
    }

    private long l(long at) {
        return buf.get(LONG, at);
    }

    /**
     * Makes {@code dst} an image of this decoded header over {@code scratch} (its bytes copied
     * there), so that the receive buffer can be re-posted while the reply still needs the call's
     * chunk lists. No allocation.
     */
    public void copyTo(TransportHeader dst, MemorySegment scratch) {
        MemorySegment.copy(buf, 0, scratch, 0, headerLength);
        dst.buf = scratch;
        dst.length = headerLength;
        dst.decodingCall = decodingCall;
        dst.xid = xid;
        dst.version = version;
        dst.credits = credits;
        dst.proc = proc;
        dst.readCount = readCount;
        if (dst.readAt.length < readCount) {
            dst.readAt = java.util.Arrays.copyOf(dst.readAt, readCount);
        }
        System.arraycopy(readAt, 0, dst.readAt, 0, readCount);
        dst.writeCount = writeCount;
        System.arraycopy(writeAt, 0, dst.writeAt, 0, writeCount);
        dst.replyAt = replyAt;
        dst.headerLength = headerLength;
        dst.overlapCount = overlapCount;
        dst.ensureOverlaps(overlapCount);
        System.arraycopy(overlapHandle, 0, dst.overlapHandle, 0, overlapCount);
        System.arraycopy(overlapStart, 0, dst.overlapStart, 0, overlapCount);
        System.arraycopy(overlapEnd, 0, dst.overlapEnd, 0, overlapCount);
        dst.errorCode = errorCode;
        dst.reason = null;
    }

    /** Why the last decode did not return OK. */
    public String reason() {
        return reason;
    }

    public int xid() {
        return xid;
    }

    public int version() {
        return version;
    }

    public int credits() {
        return credits;
    }

    public int proc() {
        return proc;
    }

    /** Bytes of the transport header; for RDMA_MSG the RPC message follows. */
    public int headerLength() {
        return headerLength;
    }

    /** Bytes of the inline RPC message after the header. */
    public int bodyLength() {
        return length - headerLength;
    }

    public MemorySegment buffer() {
        return buf;
    }

    public int errorCode() {
        return errorCode;
    }

    public int versLow() {
        return versLow;
    }

    public int versHigh() {
        return versHigh;
    }

    public int readSegmentCount() {
        return readCount;
    }

    public int readPosition(int k) {
        return i(readAt[k]);
    }

    public int readHandle(int k) {
        return i(readAt[k] + 4);
    }

    public int readLength(int k) {
        return i(readAt[k] + 8);
    }

    public long readOffset(int k) {
        return l(readAt[k] + 12);
    }

    /** Total bytes of the read chunks. */
    public long readBytes() {
        long n = 0;
        for (int k = 0; k < readCount; k++) {
            n += Integer.toUnsignedLong(readLength(k));
        }
        return n;
    }

    public int writeChunkCount() {
        return writeCount;
    }

    public int writeSegmentCount(int chunk) {
        return i(writeAt[chunk]);
    }

    public int writeHandle(int chunk, int k) {
        return i(writeAt[chunk] + 4 + k * RpcRdma.SEGMENT_BYTES);
    }

    public int writeLength(int chunk, int k) {
        return i(writeAt[chunk] + 8 + k * RpcRdma.SEGMENT_BYTES);
    }

    public long writeOffset(int chunk, int k) {
        return l(writeAt[chunk] + 12 + k * RpcRdma.SEGMENT_BYTES);
    }

    public long writeChunkBytes(int chunk) {
        long n = 0;
        for (int k = 0; k < writeSegmentCount(chunk); k++) {
            n += Integer.toUnsignedLong(writeLength(chunk, k));
        }
        return n;
    }

    public boolean hasReplyChunk() {
        return replyAt >= 0;
    }

    public int replySegmentCount() {
        return replyAt < 0 ? 0 : i(replyAt);
    }

    public int replyHandle(int k) {
        return i(replyAt + 4 + k * RpcRdma.SEGMENT_BYTES);
    }

    public int replyLength(int k) {
        return i(replyAt + 8 + k * RpcRdma.SEGMENT_BYTES);
    }

    public long replyOffset(int k) {
        return l(replyAt + 12 + k * RpcRdma.SEGMENT_BYTES);
    }

    public long replyChunkBytes() {
        long n = 0;
        for (int k = 0; k < replySegmentCount(); k++) {
            n += Integer.toUnsignedLong(replyLength(k));
        }
        return n;
    }

    /**
     * The one rkey every segment of the call names, or 0 when they name several (or none): the
     * rkey a Send With Invalidate may invalidate (RFC 8797 §3.2, as svcrdma's
     * svc_rdma_get_inv_rkey decides).
     */
    public int singleRkey() {
        int key = 0;
        for (int k = 0; k < overlapCount; k++) {
            if (key == 0) {
                key = overlapHandle[k];
            } else if (overlapHandle[k] != key) {
                return 0;
            }
        }
        return key;
    }
}
