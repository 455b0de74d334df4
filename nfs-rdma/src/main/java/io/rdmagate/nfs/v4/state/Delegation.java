package io.rdmagate.nfs.v4.state;

import io.rdmagate.nfs.NfsExports.Target;
import java.util.concurrent.CompletableFuture;

/**
 * A read delegation (RFC 8881 §10.2): a client may open the file for reading, read it and cache
 * its data and attributes without asking the server, until the server recalls it (CB_RECALL) and
 * the client gives it back (DELEGRETURN). Its stateid's seqid stays 1 (§8.2.2: delegation stateids
 * do not change). Guarded by the {@link Delegations} that holds it.
 */
public final class Delegation {
    final byte[] other;
    final ClientRecord client;
    final Target file;
    /** Completed when the delegation ends: returned, revoked, or its client dropped. */
    final CompletableFuture<Void> ended = new CompletableFuture<>();
    /** When the recall went out (server time); 0 while none did. */
    long recalledAt;

    Delegation(byte[] other, ClientRecord client, Target file) {
        this.other = other;
        this.client = client;
        this.file = file;
    }

    public Stateid stateid() {
        return new Stateid(1, other.clone());
    }

    public ClientRecord client() {
        return client;
    }

    public Target file() {
        return file;
    }

    /** Completes when the delegation ends: returned, revoked, withdrawn, or its client gone. */
    public CompletableFuture<Void> ended() {
        return ended;
    }
}
