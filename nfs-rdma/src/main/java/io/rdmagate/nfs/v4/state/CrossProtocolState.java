package io.rdmagate.nfs.v4.state;

import io.rdmagate.vfs.state.CacheHolder;
import io.rdmagate.vfs.state.Conflict;
import io.rdmagate.vfs.state.Recall;

/**
 * The NFSv4.1 server's part of each volume's one state ({@link io.rdmagate.vfs.state.FileStates}),
 * as SMB's is its open table: an operation of another protocol, or of another NFSv4.1 client, on
 * a file recalls the delegations it conflicts with ({@link Delegations#recall}). The opens, with
 * their share access and deny, are the volume's share reservations, held by this holder. A
 * client's own operations leave its own delegations and opens alone: it passes itself as the
 * breaker.
 */
public final class CrossProtocolState implements CacheHolder {
    private final Nfs4State state;

    CrossProtocolState(Nfs4State state) {
        this.state = state;
    }

    @Override
    public String protocol() {
        return "nfs4";
    }

    @Override
    public boolean holdsAnything() {
        return state.delegations().any();
    }

    @Override
    public Recall recall(int volumeId, long fileId, long generation, Conflict conflict, Object breaker) {
        return state.delegations().recall(volumeId, fileId, generation, conflict,
                breaker instanceof ClientRecord c ? c : null);
    }
}
