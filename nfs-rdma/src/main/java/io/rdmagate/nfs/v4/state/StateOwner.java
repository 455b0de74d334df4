package io.rdmagate.nfs.v4.state;

import static io.rdmagate.nfs.v4.Nfs4.*;

import io.rdmagate.nfs.v4.Nfs4Exception;

/**
 * An NFSv4.0 open-owner or lock-owner (RFC 7530 §9.1.5, §9.1.7): NFSv4.0 has no session slots, so
 * each owner numbers its state-changing requests (OPEN, OPEN_CONFIRM, OPEN_DOWNGRADE, CLOSE, LOCK,
 * LOCKU) with a seqid, and the server keeps the owner's last reply to answer a retransmission.
 *
 * <p>Operation: {@link #begin} takes a request's seqid: the owner's first request may carry any
 * seqid; then the last seqid again is a retransmission (its kept reply is the answer), the next
 * one is a new request, anything else is NFS4ERR_BAD_SEQID. {@link #end} keeps the reply and
 * moves the seqid on, except for the errors after which a client does not (§9.1.7: a stale or bad
 * stateid or clientid, a bad seqid, bad XDR, no resources, no filehandle, a moved filesystem).
 * One request of an owner runs at a time; one that arrives meanwhile is NFS4ERR_DELAY. Guarded by
 * its own monitor.
 */
public final class StateOwner {
    /** The reply of an owner's last request: its status and result, and the current filehandle after it. */
    public record Reply(byte[] result, Object currentFh) {
        public int status() {
            return java.nio.ByteBuffer.wrap(result).getInt();
        }
    }

    final ClientRecord client;
    final byte[] bytes;
    private boolean started;
    private boolean running;
    private int seqid;
    private int pending;
    private Reply reply;
    /** An open-owner's first open is confirmed by OPEN_CONFIRM before it may be used (§16.16.5). */
    volatile boolean confirmed;
    /** The opens (open-owner) or lock states (lock-owner) that name this owner now; under the state's monitor. */
    int states;
    /** When it last ran a request or held state, for the laundromat. */
    volatile long usedNanos;
    /** The stateid of the open this owner closed last: a retransmitted CLOSE is answered from the reply. */
    java.nio.ByteBuffer closed;

    StateOwner(ClientRecord client, byte[] bytes, long now) {
        this.client = client;
        this.bytes = bytes;
        this.usedNanos = now;
    }

    /**
     * Takes request {@code seqid}: true for a new request, which must be {@link #end ended}; false for
     * a retransmission of the last, whose kept reply {@link #replay} returns.
     */
    public synchronized boolean begin(int seqid, long now) throws Nfs4Exception {
        if (running) {
            throw new Nfs4Exception(NFS4ERR_DELAY, "a request of this owner is still running");
        }
        usedNanos = now;
        if (retransmission(seqid)) {
            return false;
        }
        if (started && seqid != this.seqid + 1) {
            throw new Nfs4Exception(NFS4ERR_BAD_SEQID, "seqid " + Integer.toUnsignedString(seqid) + " after "
                    + Integer.toUnsignedString(this.seqid));
        }
        running = true;
        pending = seqid;
        return true;
    }

    /** Whether request {@code seqid} is a retransmission of the last, answered from its kept reply. */
    synchronized boolean retransmission(int seqid) {
        return started && seqid == this.seqid && reply != null;
    }

    /** The reply kept for a retransmission. */
    public synchronized Reply replay() {
        return reply;
    }

    /** The request {@link #begin} took ended with {@code status}; {@code result} is kept for its retransmission. */
    public synchronized void end(int status, byte[] result, Object currentFh) {
        running = false;
        if (!movesSeqid(status)) {
            return;
        }
        started = true;
        seqid = pending;
        reply = new Reply(result, currentFh);
    }

    /**
     * A new lock-owner starts at the seqid its open_to_lock_owner4 gave (§16.10.4), once the open-owner's
     * request that named it succeeded.
     */
    synchronized void startAt(int seqid) {
        if (!running) {
            started = true;
            this.seqid = seqid;
            this.reply = null;
        }
    }

    public boolean confirmed() {
        return confirmed;
    }

    /** §9.1.7: the errors after which the seqid stays. */
    static boolean movesSeqid(int status) {
        return switch (status) {
            case NFS4ERR_STALE_CLIENTID, NFS4ERR_STALE_STATEID, NFS4ERR_BAD_STATEID, NFS4ERR_BAD_SEQID,
                    NFS4ERR_BADXDR, NFS4ERR_RESOURCE, NFS4ERR_NOFILEHANDLE, NFS4ERR_MOVED -> false;
            default -> true;
        };
    }
}
