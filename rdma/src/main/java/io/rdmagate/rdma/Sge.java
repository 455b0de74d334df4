package io.rdmagate.rdma;

/** A scatter/gather entry (ibv_sge): {@code length} bytes at {@code address} in the region of {@code lkey}. */
public record Sge(long address, int length, int lkey) {
    public Sge {
        if (length < 0) {
            throw new IllegalArgumentException("negative SGE length");
        }
    }
}
