package io.rdmagate.rdma;

import java.util.List;

/** A receive queue work request (ibv_recv_wr): where the next incoming Send lands. */
public record RecvWr(long wrId, List<Sge> sgl) {
    public RecvWr {
        sgl = List.copyOf(sgl);
    }

    public static RecvWr of(long wrId, Sge... sgl) {
        return new RecvWr(wrId, List.of(sgl));
    }

    public long length() {
        long n = 0;
        for (Sge s : sgl) {
            n += s.length();
        }
        return n;
    }
}
