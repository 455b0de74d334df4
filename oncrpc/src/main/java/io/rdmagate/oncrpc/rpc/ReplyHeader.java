package io.rdmagate.oncrpc.rpc;

import io.rdmagate.oncrpc.xdr.XdrDecoder;
import io.rdmagate.oncrpc.xdr.XdrException;

/**
 * A decoded RFC 5531 §9 reply header, as a client sees it.
 *
 * <p>Accepts: msg_type REPLY, MSG_ACCEPTED with a verifier of at most 400 bytes (skipped) and any
 * accept_stat (PROG_MISMATCH with its version range), MSG_DENIED with RPC_MISMATCH (its range) or
 * AUTH_ERROR (its auth_stat). Refuses with {@link XdrException}: another msg_type or reply_stat,
 * an unknown reject_stat, a truncated header.
 *
 * @param acceptStat for MSG_ACCEPTED; -1 otherwise
 * @param rejectStat for MSG_DENIED; -1 otherwise
 * @param authStat   for AUTH_ERROR; -1 otherwise
 * @param low        PROG_MISMATCH or RPC_MISMATCH low version; -1 otherwise
 */
public record ReplyHeader(int xid, int replyStat, int acceptStat, int rejectStat, int authStat, int low, int high) {

    public boolean isSuccess() {
        return replyStat == Rpc.MSG_ACCEPTED && acceptStat == Rpc.SUCCESS;
    }

    /** Reads a reply header; the decoder is left on the results of a SUCCESS reply. */
    public static ReplyHeader decode(XdrDecoder x) throws XdrException {
        int xid = x.readInt();
        int msgType = x.readInt();
        if (msgType != Rpc.REPLY) {
            throw new XdrException("msg_type " + msgType + " is not REPLY");
        }
        int replyStat = x.readInt();
        if (replyStat == Rpc.MSG_ACCEPTED) {
            x.readInt(); // verifier flavor
            x.skipOpaque(Rpc.MAX_AUTH_BYTES);
            int accept = x.readInt();
            if (accept == Rpc.PROG_MISMATCH) {
                return new ReplyHeader(xid, replyStat, accept, -1, -1, x.readInt(), x.readInt());
            }
            return new ReplyHeader(xid, replyStat, accept, -1, -1, -1, -1);
        }
        if (replyStat != Rpc.MSG_DENIED) {
            throw new XdrException("reply_stat " + replyStat);
        }
        int reject = x.readInt();
        return switch (reject) {
            case Rpc.RPC_MISMATCH -> new ReplyHeader(xid, replyStat, -1, reject, -1, x.readInt(), x.readInt());
            case Rpc.AUTH_ERROR -> new ReplyHeader(xid, replyStat, -1, reject, x.readInt(), -1, -1);
            default -> throw new XdrException("reject_stat " + reject);
        };
    }

    @Override
    public String toString() {
        if (replyStat == Rpc.MSG_ACCEPTED) {
            return "xid " + Integer.toUnsignedString(xid) + " MSG_ACCEPTED accept_stat " + acceptStat
                    + (low >= 0 ? " [" + low + ".." + high + "]" : "");
        }
        return "xid " + Integer.toUnsignedString(xid) + " MSG_DENIED " + (rejectStat == Rpc.RPC_MISMATCH
                ? "RPC_MISMATCH [" + low + ".." + high + "]" : "AUTH_ERROR auth_stat " + authStat);
    }
}
