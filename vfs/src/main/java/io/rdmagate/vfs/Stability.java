package io.rdmagate.vfs;

/** How durable a write must be before it returns (RFC 1813 stable_how). */
public enum Stability {
    /** May stay in the page cache until commit. */
    UNSTABLE,
    /** Data (and the metadata needed to read it) on stable storage. */
    DATA_SYNC,
    /** Data and all metadata on stable storage. */
    FILE_SYNC
}
