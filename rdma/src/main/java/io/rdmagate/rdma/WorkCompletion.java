package io.rdmagate.rdma;

/**
 * A completion (ibv_wc).
 *
 * @param byteLength      for receives, the bytes placed
 * @param invalidatedRkey for a receive of a Send with Invalidate, the rkey it invalidated; else 0
 * @param solicited       for receives, whether the Send asked for a solicited event
 */
public record WorkCompletion(long wrId, Kind kind, WcStatus status, long byteLength, int invalidatedRkey,
        boolean solicited, QueuePair queuePair) {

    public enum Kind {
        SEND, RDMA_WRITE, RDMA_READ, RECV
    }

    public boolean ok() {
        return status == WcStatus.SUCCESS;
    }

    static Kind kindOf(Opcode op) {
        return switch (op) {
            case RDMA_WRITE -> Kind.RDMA_WRITE;
            case RDMA_READ -> Kind.RDMA_READ;
            default -> Kind.SEND;
        };
    }

    public static WorkCompletion forSend(SendWr wr, WcStatus status, QueuePair qp) {
        return new WorkCompletion(wr.wrId(), kindOf(wr.opcode()), status, wr.length(), 0, false, qp);
    }
}
