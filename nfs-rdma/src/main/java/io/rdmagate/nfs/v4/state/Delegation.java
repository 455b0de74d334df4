package io.rdmagate.nfs.v4.state;

import io.rdmagate.nfs.NfsExports.Target;
import java.util.concurrent.CompletableFuture;

/**
 * A delegation (RFC 8881 §10.2): with a read delegation a client may open the file for reading,
 * read it and cache its data and attributes without asking the server; with a write delegation it
 * may also open it for writing and keep its writes, size and times to itself. Either lasts until
 * the server recalls it (CB_RECALL) and the client, having written back what it kept, gives it back
 * (DELEGRETURN). Its stateid's seqid stays 1 (§8.2.2: delegation stateids do not change). Guarded
 * by the {@link Delegations} that holds it.
 */
public final class Delegation {
    final byte[] other;
    final ClientRecord client;
    final Target file;
    /** OPEN_DELEGATE_READ or OPEN_DELEGATE_WRITE. */
    final int type;
    /** Completed when the delegation ends: returned, revoked, or its client dropped. */
    final CompletableFuture<Void> ended = new CompletableFuture<>();
    /** When the recall went out (server time); 0 while none did. */
    long recalledAt;

    Delegation(byte[] other, ClientRecord client, Target file, int type) {
        this.other = other;
        this.client = client;
        this.file = file;
        this.type = type;
    }

    /** OPEN_DELEGATE_READ or OPEN_DELEGATE_WRITE. */
    public int type() {
        return type;
    }

    public boolean writes() {
        return type == io.rdmagate.nfs.v4.Nfs4.OPEN_DELEGATE_WRITE;
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
