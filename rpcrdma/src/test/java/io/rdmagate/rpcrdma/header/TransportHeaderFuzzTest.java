package io.rdmagate.rpcrdma.header;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.rdmagate.rpcrdma.header.TransportHeader.Verdict;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The transport header decoder against hostile input. Whatever the bytes, it returns a verdict
 * without throwing, and a header it accepts keeps every promise its class comment makes: inside
 * the message, within every limit, no empty or wrapping or overlapping segment, read positions
 * aligned, ordered and inside the inline body, position zero only with RDMA_NOMSG.
 *
 * <p>{@link #fuzzDecoder} is a Jazzer target (JAZZER_FUZZ=1 fuzzes; otherwise it replays its
 * inputs); {@link #mutatedHeadersKeepTheDecodersPromises} runs a fixed-seed mutation campaign
 * over valid headers of every shape in every build ({@code -Drdmagate.fuzz.rounds=N} for a long run).
 */
class TransportHeaderFuzzTest {
    private static final RpcRdmaLimits LIMITS = new RpcRdmaLimits(8, 2, 4, 1 << 20, 2L << 20, 2L << 20, 2L << 20);
    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    private final TransportHeader h = new TransportHeader(LIMITS);
    private final MemorySegment buf = Arena.ofAuto().allocate(8192);

    @FuzzTest(maxDuration = "30s")
    void fuzzDecoder(byte[] input) {
        check(java.util.Arrays.copyOf(input, Math.min(input.length, 8192)));
    }

    @Test
    void mutatedHeadersKeepTheDecodersPromises() {
        Random rnd = new Random(8166_5);
        List<byte[]> seeds = validHeaders();
        int accepted = 0;
        int rounds = Integer.getInteger("rdmagate.fuzz.rounds", 40_000);
        for (int round = 0; round < rounds; round++) {
            byte[] m = seeds.get(rnd.nextInt(seeds.size())).clone();
            int mutations = 1 + rnd.nextInt(3);
            for (int k = 0; k < mutations && m.length > 0; k++) {
                int word = rnd.nextInt(Math.max(1, m.length / 4)) * 4;
                switch (rnd.nextInt(6)) {
                    case 0 -> m[rnd.nextInt(m.length)] ^= (byte) (1 << rnd.nextInt(8));
                    case 1 -> putInt(m, word, rnd.nextInt(4)); // small values: discriminators, counts
                    case 2 -> putInt(m, word, rnd.nextInt()); // anything
                    case 3 -> putInt(m, word, -1 - rnd.nextInt(4)); // near 2^32
                    case 4 -> m = java.util.Arrays.copyOf(m, rnd.nextInt(m.length + 1)); // truncated
                    default -> m = java.util.Arrays.copyOf(m, m.length + 4 * rnd.nextInt(8)); // trailing bytes
                }
            }
            if (check(m)) {
                accepted++;
            }
        }
        System.out.printf("TransportHeaderFuzzTest: %d mutated headers, %d accepted as calls%n", rounds, accepted);
        assertTrue(accepted > rounds / 400, "the campaign also exercised accepted headers (" + accepted + ")");
    }

    /** Decodes {@code m} as a call and as a reply; true when the call decode accepted it. */
    private boolean check(byte[] m) {
        MemorySegment.copy(m, 0, buf, ValueLayout.JAVA_BYTE, 0, m.length);
        Verdict reply = h.decodeReply(buf, m.length);
        if (reply == Verdict.OK) {
            promisesKept(m.length, false);
        }
        Verdict call = h.decodeCall(buf, m.length);
        if (call == Verdict.OK) {
            promisesKept(m.length, true);
        }
        if (call == Verdict.ERR_VERS) {
            assertTrue(m.length >= 8 && buf.get(INT, 4) != RpcRdma.VERSION, "ERR_VERS only for another version");
        }
        return call == Verdict.OK;
    }

    private void promisesKept(int length, boolean isCall) {
        int least = h.proc() == RpcRdma.RDMA_ERROR ? RpcRdma.FIXED_BYTES + 4 : RpcRdma.MIN_HEADER_BYTES;
        assertTrue(h.headerLength() >= least && h.headerLength() <= length, "header inside");
        assertEquals(length - h.headerLength(), h.bodyLength(), "body is the rest");
        assertTrue(h.proc() == RpcRdma.RDMA_MSG || h.proc() == RpcRdma.RDMA_NOMSG
                || h.proc() == RpcRdma.RDMA_ERROR && !isCall, "procedure " + h.proc());
        List<long[]> spans = new ArrayList<>();
        int reads = h.readSegmentCount();
        assertTrue(reads <= LIMITS.maxReadSegments());
        assertTrue(isCall || reads == 0, "a reply carries no read list");
        long readBytes = 0;
        int lastPosition = 0;
        for (int k = 0; k < reads; k++) {
            int pos = h.readPosition(k);
            assertTrue(pos % 4 == 0 && pos >= lastPosition && pos <= h.bodyLength(), "position " + pos);
            assertTrue(pos != 0 || h.proc() == RpcRdma.RDMA_NOMSG, "position zero only with RDMA_NOMSG: proc "
                    + h.proc() + ", " + reads + " reads, body " + h.bodyLength() + ", header " + h.headerLength());
            lastPosition = pos;
            segment(h.readHandle(k), h.readLength(k), h.readOffset(k), spans, isCall);
            readBytes += Integer.toUnsignedLong(h.readLength(k));
        }
        assertTrue(readBytes <= LIMITS.maxReadBytes());
        if (isCall && h.proc() == RpcRdma.RDMA_NOMSG) {
            assertTrue(reads > 0 && h.bodyLength() == 0, "RDMA_NOMSG: a position-zero chunk and no inline body");
        }
        assertTrue(h.writeChunkCount() <= LIMITS.maxWriteChunks());
        for (int c = 0; c < h.writeChunkCount(); c++) {
            int n = h.writeSegmentCount(c);
            assertTrue(n >= 1 && n <= LIMITS.maxChunkSegments());
            long bytes = 0;
            for (int k = 0; k < n; k++) {
                segment(h.writeHandle(c, k), h.writeLength(c, k), h.writeOffset(c, k), spans, isCall);
                bytes += Integer.toUnsignedLong(h.writeLength(c, k));
            }
            assertEquals(bytes, h.writeChunkBytes(c));
            assertTrue(bytes <= LIMITS.maxWriteChunkBytes());
        }
        if (h.hasReplyChunk()) {
            int n = h.replySegmentCount();
            assertTrue(n >= 1 && n <= LIMITS.maxChunkSegments());
            for (int k = 0; k < n; k++) {
                segment(h.replyHandle(k), h.replyLength(k), h.replyOffset(k), spans, isCall);
            }
            assertTrue(h.replyChunkBytes() <= LIMITS.maxReplyChunkBytes());
        }
    }

    /** Checks one segment and, for a call, that it overlaps no earlier one with its handle. */
    private static void segment(int handle, int length, long offset, List<long[]> spans, boolean isCall) {
        long len = Integer.toUnsignedLong(length);
        assertTrue(len <= LIMITS.maxSegmentBytes(), "segment of " + len + " bytes");
        if (!isCall) {
            return;
        }
        assertTrue(len > 0, "no empty segment in a call");
        long end = offset + len;
        assertTrue(Long.compareUnsigned(end, offset) > 0, "segment wraps the address space");
        for (long[] s : spans) {
            boolean overlap = s[0] == handle && Long.compareUnsigned(offset, s[2]) < 0
                    && Long.compareUnsigned(s[1], end) < 0;
            assertTrue(!overlap, "segments of handle " + handle + " overlap");
        }
        spans.add(new long[] {handle, offset, end});
    }

    private static void putInt(byte[] m, int at, int v) {
        if (at + 4 <= m.length) {
            m[at] = (byte) (v >>> 24);
            m[at + 1] = (byte) (v >>> 16);
            m[at + 2] = (byte) (v >>> 8);
            m[at + 3] = (byte) v;
        }
    }

    /** One valid header of each shape a requester or responder sends, with a short body. */
    private static List<byte[]> validHeaders() {
        List<byte[]> out = new ArrayList<>();
        Segment a = new Segment(7, 4096, 0x10000);
        Segment b = new Segment(7, 4096, 0x11000);
        Segment c = new Segment(9, 1 << 20, 0x200000);
        out.add(header(RpcRdma.RDMA_MSG, List.of(), List.of(), null, 64));
        out.add(header(RpcRdma.RDMA_MSG, List.of(new ReadSegment(32, a), new ReadSegment(32, b)), List.of(), null, 64));
        out.add(header(RpcRdma.RDMA_NOMSG, List.of(new ReadSegment(0, c)), List.of(), null, 0));
        out.add(header(RpcRdma.RDMA_MSG, List.of(), List.of(List.of(a, b)), null, 64));
        out.add(header(RpcRdma.RDMA_MSG, List.of(), List.of(List.of(a), List.of(b)), List.of(c), 64));
        out.add(header(RpcRdma.RDMA_NOMSG, List.of(), List.of(), List.of(c), 0));
        byte[] err = new byte[28];
        MemorySegment e = MemorySegment.ofArray(err);
        int n = HeaderEncoder.error(e, 0, 0x99, 8, RpcRdma.ERR_VERS);
        out.add(java.util.Arrays.copyOf(err, n));
        return out;
    }

    private static byte[] header(int proc, List<ReadSegment> reads, List<List<Segment>> writes, List<Segment> reply,
            int body) {
        byte[] m = new byte[1024];
        int n = HeaderEncoder.call(MemorySegment.ofArray(m), 0, 0x1234, 32, proc, reads, writes, reply);
        return java.util.Arrays.copyOf(m, n + body);
    }
}
