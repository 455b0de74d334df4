package io.rdmagate.vfs.lock;

/** Whose rules a lock follows. Locks of both kinds live in one table, so NFS and SMB see each other. */
public enum LockSemantics {
    /**
     * fcntl/NLM: a length of 0 means "to the end of the file"; an owner's locks merge, split and
     * change type in place; an owner never conflicts with itself.
     */
    POSIX,
    /**
     * MS-FSA 2.1.5.8: every lock is distinct and must be unlocked with its exact range; ranges may be
     * empty; an exclusive lock conflicts with any overlapping lock, even the same owner's, except
     * that a shared lock may stack on the same owner's exclusive lock.
     */
    WINDOWS
}
