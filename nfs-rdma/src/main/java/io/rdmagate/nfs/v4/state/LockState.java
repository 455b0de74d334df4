package io.rdmagate.nfs.v4.state;

import io.rdmagate.nfs.NfsExports.Target;
import io.rdmagate.vfs.lock.LockOwner;

/**
 * The locks of one lock-owner on one file (RFC 8881 §9.1.4.2): what a lock stateid names. It is
 * derived from an open of the same client; each LOCK and LOCKU bumps its seqid. The locks themselves
 * live in the volume's {@link io.rdmagate.vfs.lock.LockManager}, shared with NLM and SMB, under
 * {@link #owner()}.
 */
public final class LockState {
    final byte[] other;
    final OpenState open;
    final byte[] ownerBytes;
    final LockOwner owner;
    int seqid = 1;
    /** The NFSv4.0 lock-owner (null for NFSv4.1): its seqid orders LOCK and LOCKU. */
    StateOwner owner40;

    LockState(byte[] other, OpenState open, byte[] ownerBytes) {
        this.other = other;
        this.open = open;
        this.ownerBytes = ownerBytes;
        this.owner = owner(open.client.clientId, ownerBytes);
    }

    /** The vfs lock owner of an NFSv4 lock-owner: its client and its bytes. */
    public static LockOwner owner(long clientId, byte[] ownerBytes) {
        String client = clientKey(clientId);
        return new LockOwner(client + ":" + java.util.HexFormat.of().formatHex(ownerBytes), client, 0, ownerBytes);
    }

    /** The {@link LockOwner#client()} of every lock of an NFSv4 client. */
    public static String clientKey(long clientId) {
        return "nfs4:" + Long.toHexString(clientId);
    }

    public synchronized Stateid stateid() {
        return new Stateid(seqid, other.clone());
    }

    synchronized Stateid bump() {
        seqid++;
        return new Stateid(seqid, other.clone());
    }

    public LockOwner owner() {
        return owner;
    }

    /** The lock-owner as the client names it (lock_owner4's owner). */
    public byte[] ownerBytes() {
        return ownerBytes.clone();
    }

    public long clientId() {
        return open.client.clientId;
    }

    /**
     * Watches for the range a blocking LOCK of this owner waited for (CB_NOTIFY_LOCK): one at a
     * time, a newer one replaces the last.
     */
    public synchronized void waitingFor(java.util.concurrent.CompletableFuture<Void> watch) {
        if (this.watch != null) {
            this.watch.cancel(false);
        }
        this.watch = watch;
    }

    private java.util.concurrent.CompletableFuture<Void> watch;

    /** Its NFSv4.0 lock-owner; null for NFSv4.1. */
    public StateOwner owner40() {
        return owner40;
    }

    public OpenState open() {
        return open;
    }

    public Target file() {
        return open.file;
    }
}
