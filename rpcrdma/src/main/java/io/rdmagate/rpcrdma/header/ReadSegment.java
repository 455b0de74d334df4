package io.rdmagate.rpcrdma.header;

/** One entry of a read list (RFC 8166 §4): a segment and the XDR position of its data. */
public record ReadSegment(int position, Segment segment) {
}
