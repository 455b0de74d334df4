package io.rdmagate.vfs;

/** The kind of object a handle names (the S_IFMT classes of POSIX). */
public enum FileType {
    REGULAR, DIRECTORY, SYMLINK, BLOCK_DEVICE, CHAR_DEVICE, FIFO, SOCKET;

    /** The S_IFMT bits of this type. */
    public int formatBits() {
        return switch (this) {
            case REGULAR -> 0100000;
            case DIRECTORY -> 0040000;
            case SYMLINK -> 0120000;
            case BLOCK_DEVICE -> 0060000;
            case CHAR_DEVICE -> 0020000;
            case FIFO -> 0010000;
            case SOCKET -> 0140000;
        };
    }

    public static FileType fromMode(int mode) {
        return switch (mode & 0170000) {
            case 0040000 -> DIRECTORY;
            case 0120000 -> SYMLINK;
            case 0060000 -> BLOCK_DEVICE;
            case 0020000 -> CHAR_DEVICE;
            case 0010000 -> FIFO;
            case 0140000 -> SOCKET;
            default -> REGULAR;
        };
    }
}
