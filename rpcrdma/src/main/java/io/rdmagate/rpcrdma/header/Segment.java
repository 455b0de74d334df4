package io.rdmagate.rpcrdma.header;

/** One xdr_rdma_segment (RFC 8166 §4): memory a peer may reach with RDMA Read or Write. */
public record Segment(int handle, int length, long offset) {
}
