package io.rdmagate.rpcrdma.header;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.assertFalse;

import io.rdmagate.rpcrdma.header.TransportHeader.Verdict;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class TransportHeaderTest {
    private static final RpcRdmaLimits LIMITS = new RpcRdmaLimits(8, 2, 4, 1 << 20, 2L << 20, 2L << 20, 2L << 20);
    private final TransportHeader h = new TransportHeader(LIMITS);

    private static MemorySegment buf(int n) {
        return Arena.ofAuto().allocate(n);
    }

    /** A call header and {@code body} inline bytes after it. */
    private static MemorySegment call(int proc, List<ReadSegment> reads, List<List<Segment>> writes,
            List<Segment> reply, int body, int[] len) {
        MemorySegment m = buf(4096);
        int n = HeaderEncoder.call(m, 0, 0x1234, 32, proc, reads, writes, reply);
        len[0] = n + body;
        return m;
    }

    private Verdict decode(int proc, List<ReadSegment> reads, List<List<Segment>> writes, List<Segment> reply,
            int body) {
        int[] len = new int[1];
        MemorySegment m = call(proc, reads, writes, reply, body, len);
        return h.decodeCall(m, len[0]);
    }

    private static Segment seg(int handle, int length, long offset) {
        return new Segment(handle, length, offset);
    }

    private static ReadSegment read(int position, int handle, int length, long offset) {
        return new ReadSegment(position, seg(handle, length, offset));
    }

    @Test
    void callRoundTripWithEveryList() {
        int[] len = new int[1];
        MemorySegment m = call(RpcRdma.RDMA_MSG, List.of(read(128, 7, 4096, 0x1000), read(128, 7, 100, 0x3000)),
                List.of(List.of(seg(9, 65536, 0x10000), seg(10, 8192, 0)), List.of(seg(11, 4, 4))),
                List.of(seg(12, 16384, 0x40)), 200, len);
        assertEquals(Verdict.OK, h.decodeCall(m, len[0]), h.reason());
        assertEquals(0x1234, h.xid());
        assertEquals(1, h.version());
        assertEquals(32, h.credits());
        assertEquals(RpcRdma.RDMA_MSG, h.proc());
        assertEquals(2, h.readSegmentCount());
        assertEquals(128, h.readPosition(1));
        assertEquals(7, h.readHandle(1));
        assertEquals(100, h.readLength(1));
        assertEquals(0x3000, h.readOffset(1));
        assertEquals(4196, h.readBytes());
        assertEquals(2, h.writeChunkCount());
        assertEquals(2, h.writeSegmentCount(0));
        assertEquals(10, h.writeHandle(0, 1));
        assertEquals(8192, h.writeLength(0, 1));
        assertEquals(0x10000, h.writeOffset(0, 0));
        assertEquals(65536 + 8192, h.writeChunkBytes(0));
        assertTrue(h.hasReplyChunk());
        assertEquals(1, h.replySegmentCount());
        assertEquals(12, h.replyHandle(0));
        assertEquals(16384, h.replyChunkBytes());
        assertEquals(200, h.bodyLength());
        assertEquals(0, h.singleRkey(), "several handles");
    }

    @Test
    void replyEchoesChunksWithTheBytesPlaced() {
        int[] len = new int[1];
        MemorySegment m = call(RpcRdma.RDMA_MSG, List.of(),
                List.of(List.of(seg(9, 4096, 0), seg(9, 4096, 8192)), List.of(seg(11, 512, 0))),
                List.of(seg(12, 8192, 0x40)), 40, len);
        assertEquals(Verdict.OK, h.decodeCall(m, len[0]));
        assertEquals(0, h.singleRkey(), "handles 9, 11 and 12");
        MemorySegment out = buf(512);
        int n = HeaderEncoder.reply(out, 0, h.xid(), 64, RpcRdma.RDMA_NOMSG, h, 0, 5000, 3000);
        assertEquals(HeaderEncoder.replyLength(h, true), n);
        TransportHeader r = new TransportHeader(LIMITS);
        assertEquals(Verdict.OK, r.decodeReply(out, n), r.reason());
        assertEquals(RpcRdma.RDMA_NOMSG, r.proc());
        assertEquals(64, r.credits());
        assertEquals(2, r.writeChunkCount());
        assertEquals(4096, r.writeLength(0, 0));
        assertEquals(904, r.writeLength(0, 1));
        assertEquals(8192, r.writeOffset(0, 1));
        assertEquals(3000, r.replyChunkBytes());
        assertEquals(0, n - r.headerLength());
    }

    @Test
    void unusedWriteChunkComesBackEmptyAndUnusedReplyChunkAbsent() {
        int[] len = new int[1];
        MemorySegment m = call(RpcRdma.RDMA_MSG, List.of(), List.of(List.of(seg(9, 4096, 0))),
                List.of(seg(12, 8192, 0)), 40, len);
        assertEquals(Verdict.OK, h.decodeCall(m, len[0]));
        MemorySegment out = buf(512);
        int n = HeaderEncoder.reply(out, 0, 5, 64, RpcRdma.RDMA_MSG, h, -1, 0, -1);
        assertEquals(HeaderEncoder.replyLength(h, false), n);
        // a reply with nothing after the header is not a valid RDMA_MSG; add a body of 8 bytes
        TransportHeader r = new TransportHeader(LIMITS);
        assertEquals(Verdict.ERR_CHUNK, r.decodeReply(out, n));
        assertEquals(Verdict.OK, r.decodeReply(out, n + 8));
        assertEquals(1, r.writeChunkCount());
        assertFalse(r.hasReplyChunk());
        assertEquals(0, r.writeChunkBytes(0), "zero-length segments: nothing placed");
    }

    @Test
    void singleRkeyWhenEverySegmentNamesOne() {
        assertEquals(Verdict.OK, decode(RpcRdma.RDMA_MSG, List.of(), List.of(List.of(seg(9, 4096, 0))),
                List.of(seg(9, 4096, 4096)), 40));
        assertEquals(9, h.singleRkey());
    }

    @Test
    void errorsRoundTrip() {
        MemorySegment out = buf(64);
        int n = HeaderEncoder.error(out, 0, 77, 1, RpcRdma.ERR_VERS);
        assertEquals(28, n);
        assertEquals(Verdict.OK, h.decodeReply(out, n));
        assertEquals(RpcRdma.RDMA_ERROR, h.proc());
        assertEquals(RpcRdma.ERR_VERS, h.errorCode());
        assertEquals(1, h.versLow());
        assertEquals(1, h.versHigh());
        n = HeaderEncoder.error(out, 0, 78, 1, RpcRdma.ERR_CHUNK);
        assertEquals(20, n);
        assertEquals(Verdict.OK, h.decodeReply(out, n));
        assertEquals(RpcRdma.ERR_CHUNK, h.errorCode());
        assertEquals(Verdict.ERR_CHUNK, h.decodeReply(out, 18), "truncated error");
    }

    @Test
    void wrongVersionIsErrVersAndShortHeadersAreDropped() {
        int[] len = new int[1];
        MemorySegment m = call(RpcRdma.RDMA_MSG, List.of(), List.of(), null, 40, len);
        m.set(ValueLayout.JAVA_INT_UNALIGNED.withOrder(java.nio.ByteOrder.BIG_ENDIAN), 4, 2);
        assertEquals(Verdict.ERR_VERS, h.decodeCall(m, len[0]));
        assertEquals(0x1234, h.xid());
        assertEquals(Verdict.DROP, h.decodeCall(m, 7));
        assertEquals(Verdict.DROP, h.decodeCall(m, 0));
    }

    @Test
    void everyTruncationIsRefusedNeverThrown() {
        int[] len = new int[1];
        MemorySegment m = call(RpcRdma.RDMA_MSG, List.of(read(64, 7, 4096, 0)),
                List.of(List.of(seg(9, 4096, 0))), List.of(seg(12, 4096, 0)), 0, len);
        int header = len[0];
        for (int n = 0; n < header; n++) {
            Verdict v = h.decodeCall(m, n);
            assertNotEquals(Verdict.OK, v, "truncated at " + n);
            assertTrue(n < 8 ? v == Verdict.DROP : v == Verdict.ERR_CHUNK, n + ": " + v);
        }
    }

    @Test
    void deprecatedAndUnknownProcedures() {
        assertEquals(Verdict.ERR_CHUNK, decode(RpcRdma.RDMA_MSGP, List.of(), List.of(), null, 40));
        assertEquals(Verdict.DROP, decode(RpcRdma.RDMA_DONE, List.of(), List.of(), null, 40));
        assertEquals(Verdict.DROP, decode(RpcRdma.RDMA_ERROR, List.of(), List.of(), null, 40));
        assertEquals(Verdict.ERR_CHUNK, decode(9, List.of(), List.of(), null, 40));
        assertEquals(Verdict.ERR_CHUNK, decode(-1, List.of(), List.of(), null, 40));
    }

    @Test
    void segmentCounts() {
        List<ReadSegment> nine = new ArrayList<>();
        for (int k = 0; k < 9; k++) {
            nine.add(read(8, 7, 16, k * 16L));
        }
        assertEquals(Verdict.ERR_CHUNK, decode(RpcRdma.RDMA_MSG, nine, List.of(), null, 40), "too many reads");
        assertEquals(Verdict.OK, decode(RpcRdma.RDMA_MSG, nine.subList(0, 8), List.of(), null, 40));
        assertEquals(Verdict.ERR_CHUNK, decode(RpcRdma.RDMA_MSG, List.of(), List.of(List.of()), null, 40),
                "zero-segment write chunk");
        assertEquals(Verdict.ERR_CHUNK, decode(RpcRdma.RDMA_MSG, List.of(), List.of(), List.of(), 40),
                "zero-segment reply chunk");
        List<Segment> five = List.of(seg(1, 8, 0), seg(1, 8, 8), seg(1, 8, 16), seg(1, 8, 24), seg(1, 8, 32));
        assertEquals(Verdict.ERR_CHUNK, decode(RpcRdma.RDMA_MSG, List.of(), List.of(five), null, 40));
        assertEquals(Verdict.ERR_CHUNK, decode(RpcRdma.RDMA_MSG, List.of(), List.of(), five, 40));
        List<Segment> one = List.of(seg(1, 8, 0));
        assertEquals(Verdict.ERR_CHUNK, decode(RpcRdma.RDMA_MSG, List.of(),
                List.of(one, List.of(seg(2, 8, 0)), List.of(seg(3, 8, 0))), null, 40), "too many write chunks");
        // a huge count announced, with the bytes for none of it
        int[] len = new int[1];
        MemorySegment m = call(RpcRdma.RDMA_MSG, List.of(), List.of(one), null, 0, len);
        var be = ValueLayout.JAVA_INT_UNALIGNED.withOrder(java.nio.ByteOrder.BIG_ENDIAN);
        m.set(be, 24, 0xffffffff);
        assertEquals(Verdict.ERR_CHUNK, h.decodeCall(m, len[0] + 40));
        m.set(be, 24, 4);
        assertEquals(Verdict.ERR_CHUNK, h.decodeCall(m, len[0]), "count within limit but truncated");
    }

    @Test
    void segmentSizes() {
        assertEquals(Verdict.ERR_CHUNK, decode(RpcRdma.RDMA_MSG, List.of(read(8, 1, 0, 0)), List.of(), null, 40),
                "empty read segment");
        assertEquals(Verdict.ERR_CHUNK, decode(RpcRdma.RDMA_MSG, List.of(read(8, 1, (1 << 20) + 1, 0)), List.of(),
                null, 40), "read segment over the limit");
        assertEquals(Verdict.ERR_CHUNK, decode(RpcRdma.RDMA_MSG, List.of(read(8, 1, -1, 0)), List.of(), null, 40),
                "4 GiB segment");
        assertEquals(Verdict.ERR_CHUNK, decode(RpcRdma.RDMA_MSG, List.of(read(8, 1, 16, -8)), List.of(), null, 40),
                "segment wraps");
        assertEquals(Verdict.ERR_CHUNK, decode(RpcRdma.RDMA_MSG, List.of(),
                List.of(List.of(seg(1, 1 << 20, 0), seg(1, 1 << 20, 1 << 20), seg(1, 1, 2 << 20))), null, 40),
                "write chunk total over the limit");
        List<ReadSegment> big = List.of(read(8, 1, 1 << 20, 0), read(8, 1, 1 << 20, 1 << 20), read(8, 1, 1, 2 << 20));
        assertEquals(Verdict.ERR_CHUNK, decode(RpcRdma.RDMA_MSG, big, List.of(), null, 40), "read total");
    }

    @Test
    void overlappingSegments() {
        assertEquals(Verdict.ERR_CHUNK, decode(RpcRdma.RDMA_MSG,
                List.of(read(8, 1, 4096, 0), read(8, 1, 4096, 4095)), List.of(), null, 40));
        assertEquals(Verdict.OK, decode(RpcRdma.RDMA_MSG,
                List.of(read(8, 1, 4096, 0), read(8, 1, 4096, 4096)), List.of(), null, 40), "adjacent is fine");
        assertEquals(Verdict.OK, decode(RpcRdma.RDMA_MSG,
                List.of(read(8, 1, 4096, 0), read(8, 2, 4096, 0)), List.of(), null, 40), "other handle");
        assertEquals(Verdict.ERR_CHUNK, decode(RpcRdma.RDMA_MSG, List.of(), List.of(List.of(seg(5, 100, 50))),
                List.of(seg(5, 100, 0)), 40), "write chunk over the reply chunk");
    }

    @Test
    void positions() {
        assertEquals(Verdict.ERR_CHUNK, decode(RpcRdma.RDMA_MSG, List.of(read(6, 1, 8, 0)), List.of(), null, 40),
                "unaligned");
        assertEquals(Verdict.ERR_CHUNK, decode(RpcRdma.RDMA_MSG, List.of(read(44, 1, 8, 0)), List.of(), null, 40),
                "beyond the inline message");
        assertEquals(Verdict.OK, decode(RpcRdma.RDMA_MSG, List.of(read(40, 1, 8, 0)), List.of(), null, 40),
                "at its end");
        assertEquals(Verdict.ERR_CHUNK, decode(RpcRdma.RDMA_MSG,
                List.of(read(16, 1, 8, 0), read(8, 1, 8, 8)), List.of(), null, 40), "decreasing");
        assertEquals(Verdict.ERR_CHUNK, decode(RpcRdma.RDMA_MSG,
                List.of(read(8, 1, 8, 0), read(16, 1, 8, 8)), List.of(), null, 40), "two positions");
        assertEquals(Verdict.ERR_CHUNK, decode(RpcRdma.RDMA_MSG, List.of(read(-4, 1, 8, 0)), List.of(), null, 40),
                "negative");
        assertEquals(Verdict.ERR_CHUNK, decode(RpcRdma.RDMA_MSG,
                List.of(read(0, 1, 8, 0), read(16, 1, 8, 8)), List.of(), null, 40), "position zero before another");
    }

    @Test
    void chunksOnTheWrongMessageType() {
        assertEquals(Verdict.ERR_CHUNK, decode(RpcRdma.RDMA_MSG, List.of(read(0, 1, 8, 0)), List.of(), null, 40),
                "position zero with RDMA_MSG");
        assertEquals(Verdict.OK, decode(RpcRdma.RDMA_NOMSG, List.of(read(0, 1, 8, 0)), List.of(), null, 0));
        assertEquals(Verdict.ERR_CHUNK, decode(RpcRdma.RDMA_NOMSG, List.of(), List.of(), List.of(seg(1, 8, 0)), 0),
                "RDMA_NOMSG call with no message");
        assertEquals(Verdict.ERR_CHUNK, decode(RpcRdma.RDMA_NOMSG, List.of(read(8, 1, 8, 0)), List.of(), null, 0),
                "RDMA_NOMSG with a non-zero position");
        assertEquals(Verdict.ERR_CHUNK, decode(RpcRdma.RDMA_NOMSG, List.of(read(0, 1, 8, 0)), List.of(), null, 8),
                "RDMA_NOMSG with an inline body");
        assertEquals(Verdict.ERR_CHUNK, decode(RpcRdma.RDMA_MSG, List.of(), List.of(), null, 0),
                "RDMA_MSG with no message");
        int[] len = new int[1];
        MemorySegment m = call(RpcRdma.RDMA_MSG, List.of(read(8, 1, 8, 0)), List.of(), null, 40, len);
        assertEquals(Verdict.ERR_CHUNK, h.decodeReply(m, len[0]), "read list in a reply");
        m = call(RpcRdma.RDMA_NOMSG, List.of(), List.of(), null, 0, len);
        assertEquals(Verdict.ERR_CHUNK, h.decodeReply(m, len[0]), "RDMA_NOMSG reply without a reply chunk");
    }

    @Test
    void badDiscriminators() {
        var be = ValueLayout.JAVA_INT_UNALIGNED.withOrder(java.nio.ByteOrder.BIG_ENDIAN);
        int[] len = new int[1];
        for (int at : new int[] {16, 20, 24}) {
            MemorySegment m = call(RpcRdma.RDMA_MSG, List.of(), List.of(), null, 40, len);
            m.set(be, at, 2);
            assertEquals(Verdict.ERR_CHUNK, h.decodeCall(m, len[0]), "discriminator at " + at);
        }
    }

    @Test
    void randomBytesNeverThrow() {
        Random r = new Random(8166);
        MemorySegment m = buf(256);
        ByteBuffer bb = m.asByteBuffer();
        for (int k = 0; k < 50_000; k++) {
            byte[] b = new byte[r.nextInt(256)];
            r.nextBytes(b);
            if (b.length >= 8 && r.nextBoolean()) {
                b[4] = 0;
                b[5] = 0;
                b[6] = 0;
                b[7] = 1;
                if (b.length >= 16) {
                    b[12] = b[13] = b[14] = 0;
                    b[15] = (byte) r.nextInt(5);
                }
            }
            bb.clear();
            bb.put(b);
            if (h.decodeCall(m, b.length) == Verdict.OK) {
                assertTrue(h.headerLength() <= b.length);
            }
        }
    }

    @Test
    void privateDataRoundTrip() {
        ConnectPrivateData p = new ConnectPrivateData(true, 4096, 8192);
        byte[] b = p.encode();
        assertEquals(8, b.length);
        assertEquals(3, b[6]); // (4096 >> 10) - 1, RFC 8797 §4
        assertEquals(7, b[7]);
        assertEquals(p, ConnectPrivateData.decode(b));
        assertEquals(ConnectPrivateData.NONE, ConnectPrivateData.decode(null));
        assertEquals(ConnectPrivateData.NONE, ConnectPrivateData.decode(new byte[] {1, 2, 3}));
        b[4] = 2;
        assertEquals(ConnectPrivateData.NONE, ConnectPrivateData.decode(b), "another version");
        assertEquals(1024, ConnectPrivateData.NONE.sendSize());
    }
}
