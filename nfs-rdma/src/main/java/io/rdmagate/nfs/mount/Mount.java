package io.rdmagate.nfs.mount;

/** Numbers of the MOUNT protocol, RFC 1813 Appendix I (§5). */
public final class Mount {
    private Mount() {
    }

    public static final int PROGRAM = 100005;
    /** Versions 1 and 2 are served for EXPORT, DUMP and UMNT (showmount uses them); MNT needs 3. */
    public static final int LOW_VERSION = 1;
    public static final int VERSION = 3;
    /** §5.1.1 MNTPATHLEN, MNTNAMLEN. */
    public static final int MNTPATHLEN = 1024;
    public static final int MNTNAMLEN = 255;

    public static final int NULL = 0;
    public static final int MNT = 1;
    public static final int DUMP = 2;
    public static final int UMNT = 3;
    public static final int UMNTALL = 4;
    public static final int EXPORT = 5;

    /** §5.1.5 mountstat3. */
    public static final int MNT3_OK = 0;
    public static final int MNT3ERR_PERM = 1;
    public static final int MNT3ERR_NOENT = 2;
    public static final int MNT3ERR_IO = 5;
    public static final int MNT3ERR_ACCES = 13;
    public static final int MNT3ERR_NOTDIR = 20;
    public static final int MNT3ERR_INVAL = 22;
    public static final int MNT3ERR_NAMETOOLONG = 63;
    public static final int MNT3ERR_NOTSUPP = 10004;
    public static final int MNT3ERR_SERVERFAULT = 10006;
}
