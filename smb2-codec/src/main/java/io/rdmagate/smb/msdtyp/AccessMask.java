package io.rdmagate.smb.msdtyp;

/** ACCESS_MASK (MS-DTYP 2.4.3) bits an ACE grants on a file, and the file generic mapping (MS-FSA 2.1.5.1.2.1). */
public final class AccessMask {
    public static final int FILE_READ_DATA = 0x1;
    public static final int FILE_WRITE_DATA = 0x2;
    public static final int FILE_APPEND_DATA = 0x4;
    public static final int FILE_EXECUTE = 0x20;
    public static final int FILE_DELETE_CHILD = 0x40;
    public static final int DELETE = 0x10000;
    public static final int READ_CONTROL = 0x20000;
    public static final int WRITE_DAC = 0x40000;
    public static final int WRITE_OWNER = 0x80000;
    public static final int ACCESS_SYSTEM_SECURITY = 0x1000000;
    public static final int MAXIMUM_ALLOWED = 0x2000000;
    public static final int GENERIC_ALL = 0x10000000;
    public static final int GENERIC_EXECUTE = 0x20000000;
    public static final int GENERIC_WRITE = 0x40000000;
    public static final int GENERIC_READ = 0x80000000;
    public static final int GENERIC = GENERIC_ALL | GENERIC_EXECUTE | GENERIC_WRITE | GENERIC_READ;

    public static final int FILE_ALL_ACCESS = 0x001F01FF;
    public static final int FILE_GENERIC_READ = 0x00120089;
    public static final int FILE_GENERIC_WRITE = 0x00120116;
    public static final int FILE_GENERIC_EXECUTE = 0x001200A0;

    private AccessMask() {
    }

    /** Replaces GENERIC_* bits by the file rights they stand for. */
    public static int mapGeneric(int mask) {
        int m = mask & ~GENERIC;
        if ((mask & GENERIC_READ) != 0) {
            m |= FILE_GENERIC_READ;
        }
        if ((mask & GENERIC_WRITE) != 0) {
            m |= FILE_GENERIC_WRITE;
        }
        if ((mask & GENERIC_EXECUTE) != 0) {
            m |= FILE_GENERIC_EXECUTE;
        }
        if ((mask & GENERIC_ALL) != 0) {
            m |= FILE_ALL_ACCESS;
        }
        return m;
    }
}
