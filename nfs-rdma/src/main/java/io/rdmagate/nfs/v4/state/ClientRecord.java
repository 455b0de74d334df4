package io.rdmagate.nfs.v4.state;

import java.util.ArrayList;
import java.util.List;

/**
 * A client of NFSv4.1 (RFC 8881 §2.4): the owner it named in EXCHANGE_ID, the clientid it was given,
 * whether a CREATE_SESSION confirmed it, and its lease. Guarded by the {@link Nfs4State} that holds it.
 */
public final class ClientRecord {
    final long clientId;
    final byte[] ownerId;
    final byte[] verifier;
    final String principal;
    boolean confirmed;
    /** eir_sequenceid: the csa_sequence the next CREATE_SESSION must carry. */
    int sequence = 1;
    /** The last CREATE_SESSION's result, replayed when that request is retried (§18.36.4). */
    byte[] lastCreateSession;
    boolean reclaimComplete;
    volatile long renewedNanos;
    /** Delegations revoked and not freed yet (SEQ4_STATUS_RECALLABLE_STATE_REVOKED); changed by {@link Delegations}. */
    volatile int revokedDelegations;
    final List<Session> sessions = new ArrayList<>();

    ClientRecord(long clientId, byte[] ownerId, byte[] verifier, String principal, long now) {
        this.clientId = clientId;
        this.ownerId = ownerId;
        this.verifier = verifier;
        this.principal = principal;
        this.renewedNanos = now;
    }

    public long clientId() {
        return clientId;
    }

    public boolean confirmed() {
        return confirmed;
    }

    public String principal() {
        return principal;
    }

    /** Whether a delegation of this client was revoked and the client has not freed its stateid yet. */
    public boolean revokedDelegations() {
        return revokedDelegations > 0;
    }
}
