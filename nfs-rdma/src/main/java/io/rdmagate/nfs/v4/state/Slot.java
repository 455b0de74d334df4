package io.rdmagate.nfs.v4.state;

/**
 * One slot of a session's fore channel (RFC 8881 §2.10.6.1): the last sequence id seen on it, whether
 * a request on it is being served, and the reply to replay when that request is retried.
 */
public final class Slot {
    int seqid;
    boolean inUse;
    /** The last reply's COMPOUND4res, or null when it was not kept (then a retry gets NFS4ERR_RETRY_UNCACHED_REP). */
    byte[] reply;
    /** The SEQUENCE result of the last request, kept always (the first operation of any retry). */
    byte[] sequenceResult;

    public int seqid() {
        return seqid;
    }
}
