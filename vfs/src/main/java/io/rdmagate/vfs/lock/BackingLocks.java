package io.rdmagate.vfs.lock;

import java.util.List;

/**
 * Where granted locks are also taken outside the gateway, so that processes on the host (and a
 * second gateway over the same directory) see them and are seen (DESIGN.md, "One state under
 * every protocol"; Samba's POSIX locking does the same). The local backend takes them as open
 * file description locks on the backing file, one description per lock owner.
 */
public interface BackingLocks {
    /** No backing file: the lock table alone decides (the in-memory backend). */
    BackingLocks NONE = new BackingLocks() {
        @Override
        public boolean sync(long fileId, LockOwner owner, List<ByteRangeLock> held) {
            return true;
        }

        @Override
        public void forget(long fileId) {
        }

        @Override
        public boolean lockedOutside(long fileId, ByteRangeLock probe) {
            return false;
        }
    };

    /**
     * Makes what {@code owner} holds on the backing file of {@code fileId} exactly {@code held}
     * (empty: nothing). Returns false, leaving what was held before, when a process outside the
     * gateway holds a lock that conflicts with a range being added. Never blocks.
     */
    boolean sync(long fileId, LockOwner owner, List<ByteRangeLock> held);

    /** The file is gone: whatever is held on it is dropped. */
    void forget(long fileId);

    /**
     * Whether a lock on the backing file conflicts with {@code probe} (its range, exclusive or
     * shared) for its owner: one held by a host process or another gateway, or by another owner of
     * the lock table, so callers ask where the table itself found no conflict.
     */
    boolean lockedOutside(long fileId, ByteRangeLock probe);
}
