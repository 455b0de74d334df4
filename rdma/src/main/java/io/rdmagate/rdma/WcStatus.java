package io.rdmagate.rdma;

/** Completion status (ibv_wc_status, the ones these providers report). */
public enum WcStatus {
    SUCCESS,
    /** A receive buffer too small for the incoming message, or a message over the device limit. */
    LOCAL_LENGTH_ERROR,
    /** An SGE outside its region, an invalid lkey, or a missing local right. */
    LOCAL_PROTECTION_ERROR,
    /** The queue pair could not run the request (e.g. RDMA Read with ORD 0). */
    LOCAL_QP_OPERATION_ERROR,
    /** The queue pair went to error before the request ran. */
    WR_FLUSH_ERROR,
    /** The peer refused a tagged access: bad or invalidated rkey, out of bounds, missing right. */
    REMOTE_ACCESS_ERROR,
    /** The peer could not take the message: no receive posted (iWARP: DDP "no buffer"). */
    REMOTE_OPERATION_ERROR,
    /** The peer refused the request as malformed (e.g. Send with Invalidate of a foreign STag). */
    REMOTE_INVALID_REQUEST_ERROR,
    /** The connection failed (transport error, peer gone). */
    FATAL_ERROR
}
