package io.rdmagate.vfs;

/** What happened to an entry of a watched directory. */
public enum DirectoryChange {
    /** An entry appeared: created, linked, or renamed into the directory from another. */
    ADDED,
    /** An entry went: removed, or renamed out of the directory into another. */
    REMOVED,
    /** An entry's data or attributes changed. */
    MODIFIED,
    /** An entry was renamed within the directory: its old name (followed by {@link #RENAMED_TO}). */
    RENAMED_FROM,
    /** An entry was renamed within the directory: its new name (after {@link #RENAMED_FROM}). */
    RENAMED_TO,
    /** Changes were lost (the kernel's queue overflowed): the directory should be read again. */
    OVERFLOW
}
