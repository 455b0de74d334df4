package io.rdmagate.nfs.v4.state;

import io.rdmagate.nfs.NfsExports.Target;

/**
 * An open of a file by one open-owner (RFC 8881 §9.1.4): the state an OPEN stateid names. A second OPEN of
 * the same file by the same owner adds to its access and bumps the stateid's seqid (§9.11).
 */
public final class OpenState {
    final byte[] other;
    final ClientRecord client;
    final byte[] owner;
    final Target file;
    int seqid = 1;
    int access;
    int deny;
    /** The NFSv4.0 open-owner that holds it (null for NFSv4.1): its seqid orders the open's changes. */
    StateOwner owner40;
    /** The lock states derived from this open; under the state's lock. */
    final java.util.List<LockState> lockStates = new java.util.ArrayList<>(0);

    /** Its access and deny in the volume's share reservations, where other protocols' opens see them. */
    final io.rdmagate.vfs.state.ShareReservations.Reservation reservation;

    OpenState(byte[] other, ClientRecord client, byte[] owner, Target file,
            io.rdmagate.vfs.state.ShareReservations.Reservation reservation) {
        this.other = other;
        this.client = client;
        this.owner = owner;
        this.file = file;
        this.reservation = reservation;
    }

    public synchronized Stateid stateid() {
        return new Stateid(seqid, other.clone());
    }

    public Target file() {
        return file;
    }

    public synchronized int access() {
        return access;
    }

    public ClientRecord client() {
        return client;
    }

    /** Its NFSv4.0 open-owner; null for NFSv4.1. */
    public StateOwner owner40() {
        return owner40;
    }
}
