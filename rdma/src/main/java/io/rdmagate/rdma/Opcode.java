package io.rdmagate.rdma;

/** Send queue operations (ibv_wr_opcode, RFC 5040 §4.3 RDMA messages). */
public enum Opcode {
    SEND,
    /** Send that also invalidates the peer's region named by {@link SendWr#invalidateRkey()}. */
    SEND_WITH_INVALIDATE,
    /** Send that asks the peer to be woken (solicited event). */
    SEND_WITH_SOLICITED_EVENT,
    SEND_WITH_SOLICITED_EVENT_AND_INVALIDATE,
    RDMA_WRITE,
    RDMA_READ;

    public boolean isSend() {
        return this != RDMA_WRITE && this != RDMA_READ;
    }

    public boolean invalidates() {
        return this == SEND_WITH_INVALIDATE || this == SEND_WITH_SOLICITED_EVENT_AND_INVALIDATE;
    }

    public boolean solicited() {
        return this == SEND_WITH_SOLICITED_EVENT || this == SEND_WITH_SOLICITED_EVENT_AND_INVALIDATE;
    }
}
