package io.rdmagate.vfs;

/**
 * The attributes every protocol needs of a file. Times are nanoseconds since the Unix epoch;
 * {@code mode} holds only the permission bits (07777), {@code type} the format.
 *
 * @param changeId a value that changes whenever data or attributes change (NFSv4 change attribute)
 * @param rdev     device number for block and character devices, else 0
 */
public record FileAttributes(
        FileType type,
        int mode,
        long nlink,
        int uid,
        int gid,
        long size,
        long spaceUsed,
        long fileId,
        int volumeId,
        long rdev,
        long atimeNanos,
        long mtimeNanos,
        long ctimeNanos,
        long birthTimeNanos,
        int dosAttributes,
        long changeId) {

    /** mode with the S_IFMT bits, as stat(2) reports it. */
    public int fullMode() {
        return type.formatBits() | (mode & 07777);
    }
}
