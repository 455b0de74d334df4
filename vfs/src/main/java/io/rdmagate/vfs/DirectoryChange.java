package io.rdmagate.vfs;

/** What happened to an entry of a watched directory. */
public enum DirectoryChange {
    /** An entry appeared: created, linked, or renamed into the directory. */
    ADDED,
    /** An entry went: removed, or renamed out of the directory. */
    REMOVED,
    /** An entry's data or attributes changed. */
    MODIFIED,
    /** Changes were lost (the kernel's queue overflowed): the directory should be read again. */
    OVERFLOW
}
