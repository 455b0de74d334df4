package io.rdmagate.vfs;

/** FILE_ATTRIBUTE_* bits (MS-FSCC 2.6) that the vfs keeps beside the POSIX attributes. */
public final class DosAttributes {
    public static final int READONLY = 0x1;
    public static final int HIDDEN = 0x2;
    public static final int SYSTEM = 0x4;
    public static final int DIRECTORY = 0x10;
    public static final int ARCHIVE = 0x20;
    public static final int NORMAL = 0x80;
    public static final int TEMPORARY = 0x100;
    public static final int SPARSE_FILE = 0x200;
    public static final int REPARSE_POINT = 0x400;

    /** The bits a client may set; the others are derived from the file. */
    public static final int SETTABLE = HIDDEN | SYSTEM | ARCHIVE | READONLY | TEMPORARY;
    /**
     * The bits the vfs stores; a file's READONLY is stored as the absence of write permission, a
     * directory's (which protects nothing on Windows either) beside them. SPARSE_FILE is set and
     * cleared by FSCTL_SET_SPARSE only, never by a client's attributes (MS-FSA 2.1.5.14.2).
     */
    public static final int STORED = HIDDEN | SYSTEM | ARCHIVE | TEMPORARY | SPARSE_FILE;
    /** What a set of a file's attributes says: the stored bits and READONLY. */
    public static final int KEPT = STORED | READONLY;

    private DosAttributes() {
    }

    /** The bits to store of a set of attributes {@code bits} on an object of {@code type}. */
    public static int toStore(int bits, FileType type) {
        return bits & (type == FileType.DIRECTORY ? KEPT : STORED);
    }

    /** Combines stored bits with what the type and mode imply. */
    public static int derive(int stored, FileType type, int mode) {
        int a = stored & STORED;
        if (type == FileType.DIRECTORY) {
            a |= DIRECTORY | stored & READONLY;
        }
        if (type == FileType.SYMLINK) {
            a |= REPARSE_POINT;
        }
        if ((mode & 0222) == 0 && type != FileType.DIRECTORY) {
            a |= READONLY;
        }
        return a == 0 ? NORMAL : a;
    }
}
