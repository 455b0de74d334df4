package io.rdmagate.vfs.state;

/**
 * What an operation of one protocol does to a file that clients of another protocol may be
 * caching, and so what it recalls (MS-FSA 2.1.4.12, the conditions under which an operation
 * breaks an oplock or lease; RFC 8881 §10.4.1 for delegations):
 *
 * <ul>
 * <li>{@link #READ}: data or attributes are read; write caching (a W lease, an Exclusive or Batch
 * oplock) must be flushed first, read caching may stay.</li>
 * <li>{@link #WRITE}: data, size or attributes change; nothing cached of the file stays true, every
 * caching level goes.</li>
 * <li>{@link #NAMESPACE}: the file is removed, renamed, replaced or linked; handle caching (H,
 * Batch) goes so its holder closes the handles it keeps.</li>
 * <li>{@link #LOCK}: a byte-range lock is asked for; write caching goes, so that locks its holder
 * took locally reach the one lock table first, and read caching too (MS-FSA 2.1.5.7).</li>
 * </ul>
 */
public enum Conflict {
    READ,
    WRITE,
    NAMESPACE,
    LOCK;

    /** Whether the operation changes the file, so no new caching may be granted while it runs. */
    public boolean changes() {
        return this != READ;
    }
}
