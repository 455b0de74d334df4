package io.rdmagate.vfs.state;

/**
 * A protocol server whose clients cache files (SMB leases and oplocks; NFSv4 delegations): the part
 * of the one state of a volume that another protocol's operation must break. Its opens, with their
 * share modes, are in the volume's {@link ShareReservations}. Implementations never block in these
 * methods; they start breaks and return.
 *
 * <p>An operation names its <em>breaker</em>: the state that asks (an NFSv4 client record), whose
 * own opens and caching the holder leaves alone, as a client's own operations never break its own
 * delegation (RFC 8881 §10.4.1). Protocols without state of their own pass null; a holder is never
 * asked about its own operations at all ({@link FileStates#begin(long, Conflict, Object)}).
 */
public interface CacheHolder {
    /** The protocol, as metrics name it ("smb"). */
    String protocol();

    /**
     * Whether any client of this holder has a file open or cached now: one volatile read, so that
     * the other protocols' hot paths pay nothing while no client of this holder is there.
     */
    boolean holdsAnything();

    /**
     * Starts breaking what clients of this holder cache of the file that {@code conflict} makes
     * untrue, and returns a break to wait for, or null when nothing held needs an acknowledgment
     * (breaks that need none are sent before this returns). Called again after the returned break
     * resolves, until it returns null. {@code breaker} is the state that asks, or null.
     *
     * <p>The file is its inode number and {@code generation}: what clients hold of an earlier file
     * that had the same inode number (removed while open or cached) is left alone. A generation of 0
     * means any file with that inode number, for callers that know only the number.
     */
    Recall recall(int volumeId, long fileId, long generation, Conflict conflict, Object breaker);
}
