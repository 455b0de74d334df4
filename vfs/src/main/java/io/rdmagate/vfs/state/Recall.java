package io.rdmagate.vfs.state;

/**
 * A break a {@link CacheHolder} started and has not seen acknowledged yet. Its holder enforces its
 * own acknowledgment timer (MS-SMB2 3.3.2: the lease and oplock break acknowledgment timers):
 * once that passes, the holder takes the caching state away itself and the recall is resolved.
 */
public interface Recall {
    /** How a wait for a break ended. */
    enum Outcome {
        /** Not resolved within the time the caller gave. */
        PENDING,
        /** The client acknowledged, or closed what it held. */
        ACKNOWLEDGED,
        /** The acknowledgment timer passed; the holder took the caching state away itself. */
        TIMED_OUT
    }

    /** Waits up to {@code maxNanos} for the break to resolve. */
    Outcome await(long maxNanos) throws InterruptedException;
}
