package io.rdmagate.rpcrdma.header;

/**
 * Implementation limits every transport header is held to before any of its chunks is used
 * (before an RDMA Read is posted or an RDMA Write aimed), as svcrdma's xdr_check_read_list and
 * xdr_check_write_list do. A header beyond any of them is answered with RDMA_ERROR ERR_CHUNK.
 *
 * @param maxReadSegments     segments in the read list, all chunks together
 * @param maxWriteChunks      chunks in the write list
 * @param maxChunkSegments    segments in one write chunk or in the reply chunk
 * @param maxSegmentBytes     bytes of one segment (a server's lease for one read segment)
 * @param maxReadBytes        bytes of all read chunks of one call
 * @param maxWriteChunkBytes  bytes of one write chunk
 * @param maxReplyChunkBytes  bytes of the reply chunk
 */
public record RpcRdmaLimits(int maxReadSegments, int maxWriteChunks, int maxChunkSegments, int maxSegmentBytes,
        long maxReadBytes, long maxWriteChunkBytes, long maxReplyChunkBytes) {

    /** Enough for 1 MiB NFS READ/WRITE in page-sized segments and for long replies of 2 MiB. */
    public static final RpcRdmaLimits DEFAULT = new RpcRdmaLimits(272, 4, 272, 1 << 20, 2L << 20, 2L << 20, 2L << 20);

    public RpcRdmaLimits {
        if (maxReadSegments < 1 || maxWriteChunks < 1 || maxChunkSegments < 1 || maxSegmentBytes < 1
                || maxReadBytes < 1 || maxWriteChunkBytes < 1 || maxReplyChunkBytes < 1) {
            throw new IllegalArgumentException("RPC-over-RDMA limits must be positive");
        }
    }
}
