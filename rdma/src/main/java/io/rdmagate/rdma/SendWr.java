package io.rdmagate.rdma;

import java.util.List;

/**
 * A send queue work request (ibv_send_wr). For RDMA Write the local list is the source and
 * (remoteAddress, rkey) the target; for RDMA Read the other way round.
 *
 * @param signaled whether a successful completion is reported (errors always are)
 */
public record SendWr(long wrId, Opcode opcode, List<Sge> sgl, long remoteAddress, int rkey, int invalidateRkey,
        boolean signaled) {

    public SendWr {
        sgl = List.copyOf(sgl);
    }

    public static SendWr send(long wrId, Sge... sgl) {
        return new SendWr(wrId, Opcode.SEND, List.of(sgl), 0, 0, 0, true);
    }

    public static SendWr sendWithInvalidate(long wrId, int invalidateRkey, Sge... sgl) {
        return new SendWr(wrId, Opcode.SEND_WITH_INVALIDATE, List.of(sgl), 0, 0, invalidateRkey, true);
    }

    public static SendWr sendWithSolicitedEvent(long wrId, Sge... sgl) {
        return new SendWr(wrId, Opcode.SEND_WITH_SOLICITED_EVENT, List.of(sgl), 0, 0, 0, true);
    }

    public static SendWr write(long wrId, long remoteAddress, int rkey, Sge... sgl) {
        return new SendWr(wrId, Opcode.RDMA_WRITE, List.of(sgl), remoteAddress, rkey, 0, true);
    }

    public static SendWr read(long wrId, long remoteAddress, int rkey, Sge... sgl) {
        return new SendWr(wrId, Opcode.RDMA_READ, List.of(sgl), remoteAddress, rkey, 0, true);
    }

    public SendWr unsignaled() {
        return new SendWr(wrId, opcode, sgl, remoteAddress, rkey, invalidateRkey, false);
    }

    /** Total bytes of the local list. */
    public long length() {
        long n = 0;
        for (Sge s : sgl) {
            n += s.length();
        }
        return n;
    }
}
