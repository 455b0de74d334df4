package io.rdmagate.vfs;

/**
 * Every way a {@link VirtualFileSystem} operation can fail. Each protocol maps these to its own
 * codes (NFS3ERR_*, NFS4ERR_*, NTSTATUS), so the set is the union of what they distinguish.
 */
public enum VfsError {
    /** The name does not exist in the directory. */
    NOT_FOUND,
    /** The name already exists (guarded/exclusive create, mkdir, link, rename without replace). */
    EXISTS,
    /** The caller lacks a permission the mode bits require. */
    ACCESS,
    /** The operation needs ownership or privilege (chown, chmod by non-owner). */
    NOT_OWNER,
    NOT_DIRECTORY,
    IS_DIRECTORY,
    NOT_EMPTY,
    /** The handle was valid once but its file is gone. */
    STALE,
    /** The handle is malformed (wrong length, version or layout) or belongs to another volume. */
    BAD_HANDLE,
    NAME_TOO_LONG,
    /** A name with '/', NUL, "." or "..", or an argument out of range. */
    INVALID,
    NO_SPACE,
    QUOTA,
    READ_ONLY,
    /** The operation would cross a mount point or a volume. */
    CROSS_DEVICE,
    /** A symlink was found where it is not followed, or readlink on a non-link. */
    NOT_SYMLINK,
    /** Resolution would leave the export root (.., absolute or outward symlink, foreign handle). */
    ESCAPE,
    FILE_TOO_BIG,
    /** Too many symlinks while resolving a path. */
    LOOP,
    TOO_MANY_LINKS,
    NOT_SUPPORTED,
    NO_XATTR,
    /** A byte-range lock conflicts with another owner's. */
    LOCK_CONFLICT,
    /** An open of another client (another protocol's share mode) denies this access to everyone else. */
    SHARING_VIOLATION,
    /** Waiting for the lock would deadlock. */
    DEADLOCK,
    /** Unlock of a range that is not locked (Windows semantics). */
    RANGE_NOT_LOCKED,
    /** A bounded resource (I/O memory, open files) is exhausted; the caller may retry. */
    NO_RESOURCES,
    /** A directory cookie or its verifier no longer applies. */
    BAD_COOKIE,
    /** An I/O error from the backing store. */
    IO
}
