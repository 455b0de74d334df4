package io.rdmagate.rdma.verbs;

import io.rdmagate.rdma.Opcode;
import io.rdmagate.rdma.QueuePair;
import io.rdmagate.rdma.RecvWr;
import io.rdmagate.rdma.SendWr;
import io.rdmagate.rdma.Sge;
import io.rdmagate.rdma.WcStatus;
import io.rdmagate.rdma.WorkCompletion;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;

/**
 * The work requests of one queue (send or receive) of one queue pair, laid out once in native
 * memory and reused: one {@code struct ibv_send_wr} (128 bytes) or {@code struct ibv_recv_wr} (32
 * bytes) per slot, each with its own array of {@code maxSge} {@code struct ibv_sge}, as many slots
 * as the queue is deep. Nothing is allocated per post.
 *
 * <p>Operation: a poster (holding the queue pair's lock for this queue) writes a request into the
 * next free slot with {@link #addSend} or {@link #addRecv}; requests written and not yet posted are
 * linked through their {@code next} fields, so a chain of deferred sends goes to
 * {@code ibv_post_send} as one list ({@link #firstUnposted}, then {@link #posted}). man
 * ibv_post_send: the library copies the requests during the call, so a slot could be rewritten at
 * once; it is kept until its completion anyway, because the slot also holds what the completion
 * reports ({@link #retire}): the caller's wr_id, the opcode and length (ibv_wc's opcode and byte_len
 * are not valid for a completion in error: man ibv_poll_cq), and whether the caller asked for a
 * completion on success.
 *
 * <p>The hardware wr_id of a slot is {@code serial << 32 | (receive ? 1 << 31 : 0) | slot}: the
 * completion poller finds the queue pair by its serial ({@link QueuePairTable}) and the slot here.
 * Every request is posted signaled (the queue pair is created with {@code sq_sig_all = 1}), so each
 * slot gets exactly one completion, in posting order (a queue's completions are in order on a
 * reliable connection, flushes included); a request the caller posted unsignaled has its success
 * completion dropped here. That costs a CQE per request and buys exact slot accounting: a queue is
 * full exactly when {@code depth} requests are outstanding, and teardown knows when every request
 * has completed.
 *
 * <p>Not thread-safe: the owner holds its queue's lock.
 */
final class WorkRequestRing {
    private static final long RECEIVE_BIT = 1L << 31;
    private static final Opcode[] OPCODES = Opcode.values();

    private final boolean receive;
    private final int depth;
    private final int maxSge;
    private final long serialBits;
    private final MemorySegment[] wr;
    private final MemorySegment[] sges;
    private final long[] userWrId;
    private final byte[] opcode;
    private final long[] length;
    private final boolean[] reportSuccess;
    private int head;
    private int tail;
    private int outstanding;
    private int unposted;

    WorkRequestRing(Arena arena, boolean receive, int serial, int depth, int maxSge) {
        this.receive = receive;
        this.depth = depth;
        this.maxSge = maxSge;
        this.serialBits = (long) serial << 32 | (receive ? RECEIVE_BIT : 0);
        long wrBytes = receive ? IbvAbi.RECV_WR_BYTES : IbvAbi.SEND_WR_BYTES;
        MemorySegment wrs = arena.allocate(wrBytes * depth, 8);
        MemorySegment sgl = arena.allocate(IbvAbi.SGE_BYTES * maxSge * depth, 8);
        this.wr = new MemorySegment[depth];
        this.sges = new MemorySegment[depth];
        for (int i = 0; i < depth; i++) {
            wr[i] = wrs.asSlice(i * wrBytes, wrBytes);
            sges[i] = sgl.asSlice(i * IbvAbi.SGE_BYTES * maxSge, IbvAbi.SGE_BYTES * maxSge);
            // sg_list never changes: each slot has its own SGE array
            wr[i].set(ValueLayout.ADDRESS, receive ? IbvAbi.RECV_WR_SG_LIST : IbvAbi.SEND_WR_SG_LIST, sges[i]);
        }
        this.userWrId = new long[depth];
        this.opcode = new byte[depth];
        this.length = new long[depth];
        this.reportSuccess = new boolean[depth];
    }

    int depth() {
        return depth;
    }

    /** Requests written and not yet completed (posted or waiting for a doorbell). */
    int outstanding() {
        return outstanding;
    }

    /** Requests written and not yet handed to the device. */
    int unposted() {
        return unposted;
    }

    boolean full() {
        return outstanding == depth;
    }

    /** Writes a send request into the next slot (the caller checked {@link #full} and the SGE count). */
    void addSend(SendWr w) {
        int slot = take(w.wrId(), w.opcode(), w.length(), w.signaled());
        MemorySegment s = wr[slot];
        int ibvOpcode;
        int flags = IbvAbi.SEND_SIGNALED;
        switch (w.opcode()) {
            case SEND -> ibvOpcode = IbvAbi.WR_SEND;
            case SEND_WITH_INVALIDATE -> ibvOpcode = IbvAbi.WR_SEND_WITH_INV;
            case SEND_WITH_SOLICITED_EVENT -> {
                ibvOpcode = IbvAbi.WR_SEND;
                flags |= IbvAbi.SEND_SOLICITED;
            }
            case SEND_WITH_SOLICITED_EVENT_AND_INVALIDATE -> {
                ibvOpcode = IbvAbi.WR_SEND_WITH_INV;
                flags |= IbvAbi.SEND_SOLICITED;
            }
            case RDMA_WRITE -> ibvOpcode = IbvAbi.WR_RDMA_WRITE;
            case RDMA_READ -> ibvOpcode = IbvAbi.WR_RDMA_READ;
            default -> throw new IllegalArgumentException(w.opcode().toString());
        }
        s.set(ValueLayout.JAVA_LONG, IbvAbi.SEND_WR_ID, serialBits | slot);
        s.set(ValueLayout.ADDRESS, IbvAbi.SEND_WR_NEXT, MemorySegment.NULL);
        s.set(ValueLayout.JAVA_INT, IbvAbi.SEND_WR_NUM_SGE, writeSges(slot, w.sgl()));
        s.set(ValueLayout.JAVA_INT, IbvAbi.SEND_WR_OPCODE, ibvOpcode);
        s.set(ValueLayout.JAVA_INT, IbvAbi.SEND_WR_SEND_FLAGS, flags);
        s.set(ValueLayout.JAVA_INT, IbvAbi.SEND_WR_INVALIDATE_RKEY, w.opcode().invalidates() ? w.invalidateRkey() : 0);
        boolean tagged = !w.opcode().isSend();
        s.set(ValueLayout.JAVA_LONG, IbvAbi.SEND_WR_RDMA_REMOTE_ADDR, tagged ? w.remoteAddress() : 0);
        s.set(ValueLayout.JAVA_INT, IbvAbi.SEND_WR_RDMA_RKEY, tagged ? w.rkey() : 0);
        link(slot, IbvAbi.SEND_WR_NEXT);
    }

    /** Writes a receive request into the next slot (the caller checked {@link #full} and the SGE count). */
    void addRecv(RecvWr w) {
        int slot = take(w.wrId(), null, 0, true);
        MemorySegment s = wr[slot];
        s.set(ValueLayout.JAVA_LONG, IbvAbi.RECV_WR_ID, serialBits | slot);
        s.set(ValueLayout.ADDRESS, IbvAbi.RECV_WR_NEXT, MemorySegment.NULL);
        s.set(ValueLayout.JAVA_INT, IbvAbi.RECV_WR_NUM_SGE, writeSges(slot, w.sgl()));
        link(slot, IbvAbi.RECV_WR_NEXT);
    }

    private int take(long wrId, Opcode op, long bytes, boolean signaled) {
        int slot = tail;
        tail = next(tail);
        outstanding++;
        userWrId[slot] = wrId;
        opcode[slot] = (byte) (op == null ? -1 : op.ordinal());
        length[slot] = bytes;
        reportSuccess[slot] = signaled;
        return slot;
    }

    private int writeSges(int slot, List<Sge> sgl) {
        MemorySegment a = sges[slot];
        int n = sgl.size();
        for (int i = 0; i < n; i++) {
            Sge g = sgl.get(i);
            long base = i * IbvAbi.SGE_BYTES;
            a.set(ValueLayout.JAVA_LONG, base + IbvAbi.SGE_ADDR, g.address());
            a.set(ValueLayout.JAVA_INT, base + IbvAbi.SGE_LENGTH, g.length());
            a.set(ValueLayout.JAVA_INT, base + IbvAbi.SGE_LKEY, g.lkey());
        }
        return n;
    }

    /** Chains {@code slot} behind the unposted requests before it. */
    private void link(int slot, long nextOffset) {
        if (unposted > 0) {
            wr[prev(slot)].set(ValueLayout.ADDRESS, nextOffset, wr[slot]);
        }
        unposted++;
    }

    /** The first request of the unposted chain (there is one). */
    MemorySegment firstUnposted() {
        return wr[index(tail - unposted)];
    }

    /** The whole unposted chain went to the device. */
    void posted() {
        unposted = 0;
    }

    /**
     * After a failed post: the request at {@code badWr} (what the library set {@code *bad_wr} to) and
     * every one after it were not posted. Takes them back and returns their completions with
     * {@code first} for the one that failed and {@link WcStatus#WR_FLUSH_ERROR} for the rest; the
     * chain before {@code badWr} counts as posted.
     */
    List<WorkCompletion> takeBackFrom(long badWr, WcStatus first, QueuePair qp) {
        int start = index(tail - unposted);
        int n = unposted;
        int skip = n;
        for (int i = 0; i < n; i++) {
            if (wr[index(start + i)].address() == badWr) {
                skip = i;
                break;
            }
        }
        if (skip == n) {
            skip = 0; // not one of ours: count none as posted
        }
        List<WorkCompletion> out = new ArrayList<>(n - skip);
        for (int i = skip; i < n; i++) {
            int slot = index(start + i);
            out.add(completion(slot, i == skip ? first : WcStatus.WR_FLUSH_ERROR, length[slot], 0, qp));
        }
        tail = index(start + skip);
        outstanding -= n - skip;
        unposted = 0;
        return out;
    }

    /** Takes back the unposted chain (the queue pair failed before its doorbell); their flush completions. */
    List<WorkCompletion> takeBackUnposted(QueuePair qp) {
        return unposted == 0 ? List.of() : takeBackFrom(firstUnposted().address(), WcStatus.WR_FLUSH_ERROR, qp);
    }

    /**
     * The device completed {@code slot}: frees it (and, were any skipped, the older ones) and returns
     * the completion to report, or null for a success the caller did not ask for.
     */
    WorkCompletion retire(int slot, WcStatus status, long byteLength, int invalidatedRkey, QueuePair qp) {
        if (slot < 0 || slot >= depth || outstanding == 0) {
            return null;
        }
        while (head != slot && outstanding > 1) {
            // cannot happen with every request signaled and in-order completions; keep the count right if it does
            head = next(head);
            outstanding--;
        }
        head = next(head);
        outstanding--;
        if (status == WcStatus.SUCCESS && !reportSuccess[slot]) {
            return null;
        }
        return completion(slot, status, receive ? byteLength : length[slot], invalidatedRkey, qp);
    }

    /** Every request still outstanding, as flushed; the ring is then empty (forced teardown). */
    List<WorkCompletion> flushAll(QueuePair qp) {
        List<WorkCompletion> out = new ArrayList<>(outstanding);
        for (int i = 0; i < outstanding; i++) {
            int slot = index(head + i);
            out.add(completion(slot, WcStatus.WR_FLUSH_ERROR, length[slot], 0, qp));
        }
        head = tail;
        outstanding = 0;
        unposted = 0;
        return out;
    }

    private WorkCompletion completion(int slot, WcStatus status, long bytes, int invalidatedRkey, QueuePair qp) {
        WorkCompletion.Kind kind = receive ? WorkCompletion.Kind.RECV : switch (OPCODES[opcode[slot]]) {
            case RDMA_WRITE -> WorkCompletion.Kind.RDMA_WRITE;
            case RDMA_READ -> WorkCompletion.Kind.RDMA_READ;
            default -> WorkCompletion.Kind.SEND;
        };
        // solicited: ibv_wc carries no such flag, a verbs receiver cannot tell (man ibv_poll_cq)
        return new WorkCompletion(userWrId[slot], kind, status, bytes, invalidatedRkey, false, qp);
    }

    private int next(int i) {
        return i + 1 == depth ? 0 : i + 1;
    }

    private int prev(int i) {
        return i == 0 ? depth - 1 : i - 1;
    }

    private int index(int i) {
        return Math.floorMod(i, depth);
    }

    int maxSge() {
        return maxSge;
    }
}
