package io.rdmagate.rdma;

/** Rights a memory region grants (ibv_access_flags). Local read is always granted. */
public enum Access {
    /** The device may write into the region: receive buffers and RDMA Read targets. */
    LOCAL_WRITE,
    /** A peer may RDMA Read from the region with its rkey. */
    REMOTE_READ,
    /** A peer may RDMA Write into the region with its rkey. */
    REMOTE_WRITE
}
