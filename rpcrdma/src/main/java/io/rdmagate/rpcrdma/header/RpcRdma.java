package io.rdmagate.rpcrdma.header;

/** Constants of RPC-over-RDMA version 1 (RFC 8166 §4, the XDR definition of the transport header). */
public final class RpcRdma {
    private RpcRdma() {
    }

    /** rdma_vers: the only version this implementation speaks (RFC 8166 §4). */
    public static final int VERSION = 1;

    // rdma_proc, RFC 8166 §4
    public static final int RDMA_MSG = 0;
    public static final int RDMA_NOMSG = 1;
    /** Deprecated (RFC 8166 §4.5): refused with ERR_CHUNK. */
    public static final int RDMA_MSGP = 2;
    /** Deprecated (RFC 8166 §4.5): dropped. */
    public static final int RDMA_DONE = 3;
    public static final int RDMA_ERROR = 4;

    // rpcrdma_errcode, RFC 8166 §4 and §5
    public static final int ERR_VERS = 1;
    public static final int ERR_CHUNK = 2;

    /** xid, vers, credits, proc. */
    public static final int FIXED_BYTES = 16;
    /** Fixed part plus the three empty chunk lists: the smallest RDMA_MSG/RDMA_NOMSG header. */
    public static final int MIN_HEADER_BYTES = FIXED_BYTES + 12;
    /** One xdr_rdma_segment: handle, length, offset (RFC 8166 §4). */
    public static final int SEGMENT_BYTES = 16;

    /** The IANA-assigned port of NFS over RPC-over-RDMA ("nfsrdma"). */
    public static final int NFS_RDMA_PORT = 20049;
}
