package io.rdmagate.smb.server;

import io.rdmagate.smb.msdtyp.AccessMask;

/**
 * Access mask bits (MS-SMB2 2.2.13.1.1) and their generic mapping (MS-FSA 2.1.5.1.2.1): the rights an
 * ACE grants are msdtyp's {@link AccessMask}, with the file-specific rights SMB names besides.
 */
public final class Access {
    public static final int FILE_READ_DATA = AccessMask.FILE_READ_DATA;
    /** FILE_READ_DATA's bit on a directory (MS-SMB2 2.2.13.1.2). */
    public static final int FILE_LIST_DIRECTORY = 0x1;
    public static final int FILE_WRITE_DATA = AccessMask.FILE_WRITE_DATA;
    public static final int FILE_APPEND_DATA = AccessMask.FILE_APPEND_DATA;
    public static final int FILE_READ_EA = 0x8;
    public static final int FILE_WRITE_EA = 0x10;
    public static final int FILE_EXECUTE = AccessMask.FILE_EXECUTE;
    public static final int FILE_DELETE_CHILD = AccessMask.FILE_DELETE_CHILD;
    public static final int FILE_READ_ATTRIBUTES = 0x80;
    public static final int FILE_WRITE_ATTRIBUTES = 0x100;
    public static final int DELETE = AccessMask.DELETE;
    public static final int READ_CONTROL = AccessMask.READ_CONTROL;
    public static final int WRITE_DAC = AccessMask.WRITE_DAC;
    public static final int WRITE_OWNER = AccessMask.WRITE_OWNER;
    public static final int SYNCHRONIZE = 0x100000;
    public static final int ACCESS_SYSTEM_SECURITY = AccessMask.ACCESS_SYSTEM_SECURITY;
    public static final int MAXIMUM_ALLOWED = AccessMask.MAXIMUM_ALLOWED;
    public static final int GENERIC_ALL = AccessMask.GENERIC_ALL;
    public static final int GENERIC_EXECUTE = AccessMask.GENERIC_EXECUTE;
    public static final int GENERIC_WRITE = AccessMask.GENERIC_WRITE;
    public static final int GENERIC_READ = AccessMask.GENERIC_READ;

    public static final int FILE_ALL_ACCESS = AccessMask.FILE_ALL_ACCESS;
    public static final int FILE_GENERIC_READ = AccessMask.FILE_GENERIC_READ;
    public static final int FILE_GENERIC_WRITE = AccessMask.FILE_GENERIC_WRITE;
    public static final int FILE_GENERIC_EXECUTE = AccessMask.FILE_GENERIC_EXECUTE;
    public static final int WRITE_BITS = FILE_WRITE_DATA | FILE_APPEND_DATA | FILE_WRITE_EA | FILE_WRITE_ATTRIBUTES
            | DELETE | FILE_DELETE_CHILD | WRITE_DAC | WRITE_OWNER;
    public static final int READ_ONLY_MAXIMAL = FILE_GENERIC_READ | FILE_GENERIC_EXECUTE;

    private Access() {
    }

    /**
     * MS-FSA 2.1.5.1.2.1: replaces GENERIC_* bits by the file-specific rights they stand for, and
     * MAXIMUM_ALLOWED by {@code maximal}.
     */
    public static int map(int desired, int maximal) {
        int a = AccessMask.mapGeneric(desired);
        if ((a & MAXIMUM_ALLOWED) != 0) {
            a |= maximal;
        }
        return a & ~MAXIMUM_ALLOWED;
    }
}
