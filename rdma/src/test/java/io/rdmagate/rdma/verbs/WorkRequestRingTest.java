package io.rdmagate.rdma.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rdmagate.rdma.Access;
import io.rdmagate.rdma.RecvWr;
import io.rdmagate.rdma.SendWr;
import io.rdmagate.rdma.Sge;
import io.rdmagate.rdma.WcStatus;
import io.rdmagate.rdma.WorkCompletion;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.EnumSet;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The native layout of the work requests the verbs provider posts, byte for byte against the
 * offsets of rdma-core 44's {@code struct ibv_send_wr}, {@code ibv_recv_wr} and {@code ibv_sge}, and
 * the slot accounting completions rely on. Needs no RDMA device.
 */
class WorkRequestRingTest {
    private static final int SERIAL = 0x123;

    private final Arena arena = Arena.ofConfined();

    private static long field(MemorySegment wr, long offset) {
        return wr.reinterpret(128).get(ValueLayout.JAVA_LONG, offset);
    }

    private static int int32(MemorySegment wr, long offset) {
        return wr.reinterpret(128).get(ValueLayout.JAVA_INT, offset);
    }

    @Test
    void aSendIsLaidOutAsIbvSendWrWithItsSges() {
        WorkRequestRing ring = new WorkRequestRing(arena, false, SERIAL, 4, 2);
        ring.addSend(SendWr.send(77, new Sge(0x1000, 5, 0xaa), new Sge(0x2000, 7, 0xbb)));
        MemorySegment wr = ring.firstUnposted();
        assertEquals((long) SERIAL << 32, field(wr, 0), "wr_id: serial, send queue, slot 0");
        assertEquals(0, field(wr, 8), "next");
        assertEquals(2, int32(wr, 24), "num_sge");
        assertEquals(2, int32(wr, 28), "IBV_WR_SEND");
        assertEquals(2, int32(wr, 32), "IBV_SEND_SIGNALED");
        MemorySegment sges = MemorySegment.ofAddress(field(wr, 16)).reinterpret(32);
        assertEquals(0x1000, sges.get(ValueLayout.JAVA_LONG, 0));
        assertEquals(5, sges.get(ValueLayout.JAVA_INT, 8));
        assertEquals(0xaa, sges.get(ValueLayout.JAVA_INT, 12));
        assertEquals(0x2000, sges.get(ValueLayout.JAVA_LONG, 16));
        assertEquals(7, sges.get(ValueLayout.JAVA_INT, 24));
        assertEquals(0xbb, sges.get(ValueLayout.JAVA_INT, 28));
    }

    @Test
    void opcodesFlagsAndTheRdmaUnion() {
        WorkRequestRing ring = new WorkRequestRing(arena, false, SERIAL, 8, 1);
        Sge s = new Sge(0x1000, 8, 1);
        ring.addSend(new SendWr(1, io.rdmagate.rdma.Opcode.SEND_WITH_SOLICITED_EVENT_AND_INVALIDATE, List.of(s), 0, 0,
                0x4242, true));
        MemorySegment first = ring.firstUnposted();
        ring.posted();
        assertEquals(9, int32(first, 28), "IBV_WR_SEND_WITH_INV");
        assertEquals(2 | 4, int32(first, 32), "signaled and solicited");
        assertEquals(0x4242, int32(first, 36), "invalidate_rkey");
        ring.addSend(SendWr.write(2, 0xdead0000L, 0x77, s));
        MemorySegment write = ring.firstUnposted();
        ring.posted();
        assertEquals(0, int32(write, 28), "IBV_WR_RDMA_WRITE");
        assertEquals(0xdead0000L, field(write, 40), "wr.rdma.remote_addr");
        assertEquals(0x77, int32(write, 48), "wr.rdma.rkey");
        ring.addSend(SendWr.read(3, 0xbeef0000L, 0x78, s));
        MemorySegment read = ring.firstUnposted();
        assertEquals(4, int32(read, 28), "IBV_WR_RDMA_READ");
        assertEquals(0xbeef0000L, field(read, 40));
        assertEquals(0x78, int32(read, 48));
    }

    @Test
    void deferredRequestsAreChainedThroughNext() {
        WorkRequestRing ring = new WorkRequestRing(arena, false, SERIAL, 4, 1);
        Sge s = new Sge(0x1000, 8, 1);
        ring.addSend(SendWr.send(1, s));
        ring.posted();
        ring.addSend(SendWr.send(2, s));
        MemorySegment a = ring.firstUnposted();
        ring.addSend(SendWr.send(3, s));
        ring.addSend(SendWr.send(4, s));
        assertEquals(3, ring.unposted());
        assertEquals(a.address(), ring.firstUnposted().address());
        MemorySegment b = MemorySegment.ofAddress(field(a, 8));
        MemorySegment c = MemorySegment.ofAddress(field(b, 8));
        assertEquals((long) SERIAL << 32 | 2, field(b, 0), "the second deferred request is slot 2");
        assertEquals((long) SERIAL << 32 | 3, field(c, 0));
        assertEquals(0, field(c, 8), "the chain ends");
        assertTrue(ring.full());
    }

    @Test
    void aRefusedChainIsTakenBackFromTheBadRequest() {
        WorkRequestRing ring = new WorkRequestRing(arena, false, SERIAL, 4, 1);
        Sge s = new Sge(0x1000, 8, 1);
        ring.addSend(SendWr.send(1, s));
        ring.addSend(SendWr.send(2, s));
        ring.addSend(SendWr.send(3, s));
        MemorySegment second = MemorySegment.ofAddress(field(ring.firstUnposted(), 8));
        List<WorkCompletion> back = ring.takeBackFrom(second.address(), WcStatus.LOCAL_QP_OPERATION_ERROR, null);
        assertEquals(List.of(2L, 3L), back.stream().map(WorkCompletion::wrId).toList());
        assertEquals(WcStatus.LOCAL_QP_OPERATION_ERROR, back.get(0).status());
        assertEquals(WcStatus.WR_FLUSH_ERROR, back.get(1).status());
        assertEquals(1, ring.outstanding(), "the first was posted");
        assertEquals(0, ring.unposted());
    }

    @Test
    void retiringReportsWhatTheCallerAskedFor() {
        WorkRequestRing ring = new WorkRequestRing(arena, false, SERIAL, 2, 1);
        Sge s = new Sge(0x1000, 8, 1);
        for (int round = 0; round < 5; round++) { // wraps around the two slots
            ring.addSend(SendWr.read(10 + round, 0, 0, s).unsignaled());
            ring.addSend(SendWr.write(20 + round, 0, 0, s));
            ring.posted();
            assertTrue(ring.full());
            // two slots, both retired every round: each round uses slots 0 and 1
            assertNull(ring.retire(0, WcStatus.SUCCESS, 0, 0, null), "an unsignaled success is not reported");
            WorkCompletion w = ring.retire(1, WcStatus.SUCCESS, 0, 0, null);
            assertEquals(20 + round, w.wrId());
            assertEquals(WorkCompletion.Kind.RDMA_WRITE, w.kind());
            assertEquals(8, w.byteLength(), "a send's length is its request's");
            assertFalse(ring.full());
            assertEquals(0, ring.outstanding());
        }
        ring.addSend(SendWr.read(99, 0, 0, s).unsignaled());
        ring.posted();
        WorkCompletion failed = ring.retire(0, WcStatus.REMOTE_ACCESS_ERROR, 0, 0, null);
        assertEquals(99, failed.wrId(), "errors are reported unsignaled or not");
        assertEquals(WorkCompletion.Kind.RDMA_READ, failed.kind());
    }

    @Test
    void receivesReportTheBytesPlacedAndFlushAllEmptiesTheRing() {
        WorkRequestRing ring = new WorkRequestRing(arena, true, SERIAL, 3, 2);
        ring.addRecv(RecvWr.of(5, new Sge(0x1000, 64, 1)));
        MemorySegment wr = ring.firstUnposted();
        ring.posted();
        assertEquals((long) SERIAL << 32 | 1L << 31, wr.reinterpret(32).get(ValueLayout.JAVA_LONG, 0), "receive bit");
        assertEquals(1, wr.reinterpret(32).get(ValueLayout.JAVA_INT, 24), "num_sge");
        WorkCompletion w = ring.retire(0, WcStatus.SUCCESS, 12, 0x99, null);
        assertEquals(WorkCompletion.Kind.RECV, w.kind());
        assertEquals(12, w.byteLength());
        assertEquals(0x99, w.invalidatedRkey());
        ring.addRecv(RecvWr.of(6, new Sge(0x1000, 64, 1)));
        ring.addRecv(RecvWr.of(7, new Sge(0x1000, 64, 1)));
        ring.posted();
        assertEquals(List.of(6L, 7L), ring.flushAll(null).stream().map(WorkCompletion::wrId).toList());
        assertEquals(0, ring.outstanding());
    }

    @Test
    void accessFlagsFollowIbvRegMr() {
        assertEquals(0, VerbsProtectionDomain.flags(EnumSet.noneOf(Access.class)));
        assertEquals(1, VerbsProtectionDomain.flags(EnumSet.of(Access.LOCAL_WRITE)));
        assertEquals(1 | 2, VerbsProtectionDomain.flags(EnumSet.of(Access.REMOTE_WRITE)), "remote write needs local write");
        assertEquals(4, VerbsProtectionDomain.flags(EnumSet.of(Access.REMOTE_READ)));
        assertEquals(7, VerbsProtectionDomain.flags(EnumSet.allOf(Access.class)));
    }
}
