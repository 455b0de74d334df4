package io.rdmagate.nfs.v4.op;

import io.rdmagate.oncrpc.xdr.XdrDecoder;
import io.rdmagate.oncrpc.xdr.XdrEncoder;
import io.rdmagate.oncrpc.xdr.XdrException;

/** channel_attrs4 (RFC 8881 §18.36): the sizes of a session's channel; {@code rdmaIrd} is -1 when absent. */
record ChannelAttrs(int headerPad, int maxRequest, int maxResponse, int maxResponseCached, int maxOperations,
        int maxRequests, int rdmaIrd) {

    static ChannelAttrs read(XdrDecoder in) throws XdrException {
        int pad = in.readInt();
        int req = in.readInt();
        int resp = in.readInt();
        int cached = in.readInt();
        int ops = in.readInt();
        int reqs = in.readInt();
        int ird = in.readLength(1) == 1 ? in.readInt() : -1;
        return new ChannelAttrs(pad, req, resp, cached, ops, reqs, ird);
    }

    void write(XdrEncoder out) {
        out.writeInt(headerPad);
        out.writeInt(maxRequest);
        out.writeInt(maxResponse);
        out.writeInt(maxResponseCached);
        out.writeInt(maxOperations);
        out.writeInt(maxRequests);
        if (rdmaIrd >= 0) {
            out.writeInt(1);
            out.writeInt(rdmaIrd);
        } else {
            out.writeInt(0);
        }
    }

    static int min(int asked, int limit) {
        return asked < 0 ? limit : Math.min(asked, limit); // counts are unsigned: a huge one reads negative
    }
}
