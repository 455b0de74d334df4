package io.rdmagate.nfs.v4.state;

import java.util.ArrayList;
import java.util.List;

/**
 * A client of NFSv4.1 (RFC 8881 §2.4): the owner it named in EXCHANGE_ID, the clientid it was given,
 * whether a CREATE_SESSION confirmed it, and its lease; or of NFSv4.0 (RFC 7530 §9.1.1), named by
 * SETCLIENTID and confirmed by SETCLIENTID_CONFIRM, with its open-owners and lock-owners. Guarded by the {@link Nfs4State} that holds it.
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

    // NFSv4.0 (RFC 7530 §16.33-34): a client that SETCLIENTID made, confirmed by SETCLIENTID_CONFIRM
    /** Whether SETCLIENTID made it (an NFSv4.0 client, without sessions). */
    boolean v40;
    /** The setclientid_confirm verifier that confirmed it, or will. */
    byte[] confirm;
    /** Where the client takes callbacks; a SETCLIENTID of the confirmed client changes it once confirmed. */
    volatile Callback40 callback;
    byte[] pendingConfirm;
    Callback40 pendingCallback;
    /** Its open-owners and lock-owners by their bytes; under the state's monitor. */
    final java.util.Map<java.nio.ByteBuffer, StateOwner> openOwners = new java.util.HashMap<>();
    final java.util.Map<java.nio.ByteBuffer, StateOwner> lockOwners = new java.util.HashMap<>();

    /** cb_client4 and callback_ident of SETCLIENTID: the program and address the client takes callbacks on. */
    public record Callback40(int program, String netid, String address, int ident) {
    }

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

    /** Whether SETCLIENTID made this client (NFSv4.0). */
    public boolean v40() {
        return v40;
    }

    /** Where an NFSv4.0 client takes callbacks (null for NFSv4.1 clients). */
    public Callback40 callback() {
        return callback;
    }

    /** Whether a delegation of this client was revoked and the client has not freed its stateid yet. */
    public boolean revokedDelegations() {
        return revokedDelegations > 0;
    }
}
