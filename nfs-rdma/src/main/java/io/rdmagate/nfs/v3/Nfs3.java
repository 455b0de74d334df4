package io.rdmagate.nfs.v3;

/** Numbers of RFC 1813: the program, its procedures (§3.3) and the enums of §2.5 and §3.3. */
public final class Nfs3 {
    private Nfs3() {
    }

    public static final int PROGRAM = 100003;
    public static final int VERSION = 3;
    /** RFC 1813 §2.5 NFS3_FHSIZE. */
    public static final int FHSIZE = 64;
    /** RFC 1813 §2.5: cookieverf3, createverf3, writeverf3 are 8 bytes. */
    public static final int VERIFIER_SIZE = 8;
    /** Longest filename3 read off the wire; longer is GARBAGE_ARGS, 256..this is NAMETOOLONG. */
    public static final int MAX_WIRE_NAME = 1024;
    /** Longest nfspath3 (symlink target) accepted, PATH_MAX. */
    public static final int MAX_PATH = 4096;

    public static final int NULL = 0;
    public static final int GETATTR = 1;
    public static final int SETATTR = 2;
    public static final int LOOKUP = 3;
    public static final int ACCESS = 4;
    public static final int READLINK = 5;
    public static final int READ = 6;
    public static final int WRITE = 7;
    public static final int CREATE = 8;
    public static final int MKDIR = 9;
    public static final int SYMLINK = 10;
    public static final int MKNOD = 11;
    public static final int REMOVE = 12;
    public static final int RMDIR = 13;
    public static final int RENAME = 14;
    public static final int LINK = 15;
    public static final int READDIR = 16;
    public static final int READDIRPLUS = 17;
    public static final int FSSTAT = 18;
    public static final int FSINFO = 19;
    public static final int PATHCONF = 20;
    public static final int COMMIT = 21;
    public static final int PROCEDURES = 22;

    /** §2.5 ftype3. */
    public static final int NF3REG = 1;
    public static final int NF3DIR = 2;
    public static final int NF3BLK = 3;
    public static final int NF3CHR = 4;
    public static final int NF3LNK = 5;
    public static final int NF3SOCK = 6;
    public static final int NF3FIFO = 7;

    /** §2.5 time_how. */
    public static final int DONT_CHANGE = 0;
    public static final int SET_TO_SERVER_TIME = 1;
    public static final int SET_TO_CLIENT_TIME = 2;

    /** §3.3.7 stable_how. */
    public static final int UNSTABLE = 0;
    public static final int DATA_SYNC = 1;
    public static final int FILE_SYNC = 2;

    /** §3.3.8 createmode3. */
    public static final int UNCHECKED = 0;
    public static final int GUARDED = 1;
    public static final int EXCLUSIVE = 2;

    /** §3.3.19 FSINFO properties. */
    public static final int FSF3_LINK = 0x0001;
    public static final int FSF3_SYMLINK = 0x0002;
    public static final int FSF3_HOMOGENEOUS = 0x0008;
    public static final int FSF3_CANSETTIME = 0x0010;
}
