package io.rdmagate.nfs.v4.state;

import static io.rdmagate.nfs.v4.Nfs4.OPEN4_SHARE_DENY_WRITE;

import io.rdmagate.vfs.state.CacheHolder;
import io.rdmagate.vfs.state.Conflict;
import io.rdmagate.vfs.state.Recall;

/**
 * The NFSv4.1 server's part of each volume's one state ({@link io.rdmagate.vfs.state.FileStates}),
 * as SMB's is its open table: an operation of another protocol, or of another NFSv4.1 client, on
 * a file recalls the delegations it conflicts with ({@link Delegations#recall}) and is refused
 * when an NFSv4.1 open denies writing to others (OPEN4_SHARE_DENY_WRITE). A client's own
 * operations leave its own delegations and opens alone: it passes itself as the breaker.
 */
public final class CrossProtocolState implements CacheHolder {
    private final Nfs4State state;

    public CrossProtocolState(Nfs4State state) {
        this.state = state;
    }

    @Override
    public String protocol() {
        return "nfs4";
    }

    @Override
    public boolean holdsAnything() {
        return state.delegations().any() || state.denyingOpens() > 0;
    }

    @Override
    public Recall recall(int volumeId, long fileId, Conflict conflict, Object breaker) {
        return state.delegations().recall(volumeId, fileId, conflict, breaker instanceof ClientRecord c ? c : null);
    }

    @Override
    public boolean denies(int volumeId, long fileId, Conflict conflict, Object breaker) {
        return conflict == Conflict.WRITE && state.denies(volumeId, fileId, OPEN4_SHARE_DENY_WRITE, breaker);
    }

    @Override
    public boolean opened(int volumeId, long fileId, boolean forWriting) {
        return state.opened(volumeId, fileId, forWriting, null);
    }
}
