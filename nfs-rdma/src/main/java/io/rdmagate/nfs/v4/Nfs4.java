package io.rdmagate.nfs.v4;

/**
 * Numbers of NFS version 4, minor versions 1 (RFC 8881 §16-18; RFC 5662, the protocol's XDR) and 2
 * (RFC 7862, RFC 7863; extended attributes RFC 8276).
 */
public final class Nfs4 {
    private Nfs4() {
    }

    public static final int PROGRAM = 100003;
    public static final int VERSION = 4;
    /** NFSv4.0 (RFC 7530): client ids by SETCLIENTID, opens ordered by their owners' seqids. */
    public static final int MINOR_VERSION_0 = 0;
    public static final int MINOR_VERSION = 1;
    /** NFSv4.2: minor version 1 and the operations and attributes of RFC 7862 and RFC 8276. */
    public static final int MINOR_VERSION_2 = 2;

    public static final int PROC_NULL = 0;
    public static final int PROC_COMPOUND = 1;

    // ---- operations (nfs_opnum4)
    public static final int OP_ACCESS = 3;
    public static final int OP_CLOSE = 4;
    public static final int OP_COMMIT = 5;
    public static final int OP_CREATE = 6;
    public static final int OP_DELEGPURGE = 7;
    public static final int OP_DELEGRETURN = 8;
    public static final int OP_GETATTR = 9;
    public static final int OP_GETFH = 10;
    public static final int OP_LINK = 11;
    public static final int OP_LOCK = 12;
    public static final int OP_LOCKT = 13;
    public static final int OP_LOCKU = 14;
    public static final int OP_LOOKUP = 15;
    public static final int OP_LOOKUPP = 16;
    public static final int OP_NVERIFY = 17;
    public static final int OP_OPEN = 18;
    public static final int OP_OPENATTR = 19;
    public static final int OP_OPEN_CONFIRM = 20;
    public static final int OP_OPEN_DOWNGRADE = 21;
    public static final int OP_PUTFH = 22;
    public static final int OP_PUTPUBFH = 23;
    public static final int OP_PUTROOTFH = 24;
    public static final int OP_READ = 25;
    public static final int OP_READDIR = 26;
    public static final int OP_READLINK = 27;
    public static final int OP_REMOVE = 28;
    public static final int OP_RENAME = 29;
    public static final int OP_RENEW = 30;
    public static final int OP_RESTOREFH = 31;
    public static final int OP_SAVEFH = 32;
    public static final int OP_SECINFO = 33;
    public static final int OP_SETATTR = 34;
    public static final int OP_SETCLIENTID = 35;
    public static final int OP_SETCLIENTID_CONFIRM = 36;
    public static final int OP_VERIFY = 37;
    public static final int OP_WRITE = 38;
    public static final int OP_RELEASE_LOCKOWNER = 39;
    public static final int OP_BACKCHANNEL_CTL = 40;
    public static final int OP_BIND_CONN_TO_SESSION = 41;
    public static final int OP_EXCHANGE_ID = 42;
    public static final int OP_CREATE_SESSION = 43;
    public static final int OP_DESTROY_SESSION = 44;
    public static final int OP_FREE_STATEID = 45;
    public static final int OP_GET_DIR_DELEGATION = 46;
    public static final int OP_GETDEVICEINFO = 47;
    public static final int OP_GETDEVICELIST = 48;
    public static final int OP_LAYOUTCOMMIT = 49;
    public static final int OP_LAYOUTGET = 50;
    public static final int OP_LAYOUTRETURN = 51;
    public static final int OP_SECINFO_NO_NAME = 52;
    public static final int OP_SEQUENCE = 53;
    public static final int OP_SET_SSV = 54;
    public static final int OP_TEST_STATEID = 55;
    public static final int OP_WANT_DELEGATION = 56;
    public static final int OP_DESTROY_CLIENTID = 57;
    public static final int OP_RECLAIM_COMPLETE = 58;
    // NFSv4.2 (RFC 7862 §11.1, RFC 8276 §8.3)
    public static final int OP_ALLOCATE = 59;
    public static final int OP_COPY = 60;
    public static final int OP_COPY_NOTIFY = 61;
    public static final int OP_DEALLOCATE = 62;
    public static final int OP_IO_ADVISE = 63;
    public static final int OP_LAYOUTERROR = 64;
    public static final int OP_LAYOUTSTATS = 65;
    public static final int OP_OFFLOAD_CANCEL = 66;
    public static final int OP_OFFLOAD_STATUS = 67;
    public static final int OP_READ_PLUS = 68;
    public static final int OP_SEEK = 69;
    public static final int OP_WRITE_SAME = 70;
    public static final int OP_CLONE = 71;
    public static final int OP_GETXATTR = 72;
    public static final int OP_SETXATTR = 73;
    public static final int OP_LISTXATTRS = 74;
    public static final int OP_REMOVEXATTR = 75;
    public static final int OP_ILLEGAL = 10044;

    // ---- nfsstat4
    public static final int NFS4_OK = 0;
    public static final int NFS4ERR_PERM = 1;
    public static final int NFS4ERR_NOENT = 2;
    public static final int NFS4ERR_IO = 5;
    public static final int NFS4ERR_NXIO = 6;
    public static final int NFS4ERR_ACCESS = 13;
    public static final int NFS4ERR_EXIST = 17;
    public static final int NFS4ERR_XDEV = 18;
    public static final int NFS4ERR_NOTDIR = 20;
    public static final int NFS4ERR_ISDIR = 21;
    public static final int NFS4ERR_INVAL = 22;
    public static final int NFS4ERR_FBIG = 27;
    public static final int NFS4ERR_NOSPC = 28;
    public static final int NFS4ERR_ROFS = 30;
    public static final int NFS4ERR_MLINK = 31;
    public static final int NFS4ERR_NAMETOOLONG = 63;
    public static final int NFS4ERR_NOTEMPTY = 66;
    public static final int NFS4ERR_DQUOT = 69;
    public static final int NFS4ERR_STALE = 70;
    public static final int NFS4ERR_BADHANDLE = 10001;
    public static final int NFS4ERR_BAD_COOKIE = 10003;
    public static final int NFS4ERR_NOTSUPP = 10004;
    public static final int NFS4ERR_TOOSMALL = 10005;
    public static final int NFS4ERR_SERVERFAULT = 10006;
    public static final int NFS4ERR_BADTYPE = 10007;
    public static final int NFS4ERR_DELAY = 10008;
    public static final int NFS4ERR_SAME = 10009;
    public static final int NFS4ERR_DENIED = 10010;
    public static final int NFS4ERR_EXPIRED = 10011;
    public static final int NFS4ERR_LOCKED = 10012;
    public static final int NFS4ERR_GRACE = 10013;
    public static final int NFS4ERR_FHEXPIRED = 10014;
    public static final int NFS4ERR_SHARE_DENIED = 10015;
    public static final int NFS4ERR_WRONGSEC = 10016;
    public static final int NFS4ERR_CLID_INUSE = 10017;
    public static final int NFS4ERR_RESOURCE = 10018;
    public static final int NFS4ERR_MOVED = 10019;
    public static final int NFS4ERR_NOFILEHANDLE = 10020;
    public static final int NFS4ERR_MINOR_VERS_MISMATCH = 10021;
    public static final int NFS4ERR_STALE_CLIENTID = 10022;
    public static final int NFS4ERR_STALE_STATEID = 10023;
    public static final int NFS4ERR_OLD_STATEID = 10024;
    public static final int NFS4ERR_BAD_STATEID = 10025;
    public static final int NFS4ERR_BAD_SEQID = 10026;
    public static final int NFS4ERR_NOT_SAME = 10027;
    public static final int NFS4ERR_LOCK_RANGE = 10028;
    public static final int NFS4ERR_SYMLINK = 10029;
    public static final int NFS4ERR_RESTOREFH = 10030;
    public static final int NFS4ERR_ATTRNOTSUPP = 10032;
    public static final int NFS4ERR_NO_GRACE = 10033;
    public static final int NFS4ERR_RECLAIM_BAD = 10034;
    public static final int NFS4ERR_BADXDR = 10036;
    public static final int NFS4ERR_LOCKS_HELD = 10037;
    public static final int NFS4ERR_OPENMODE = 10038;
    public static final int NFS4ERR_BADOWNER = 10039;
    public static final int NFS4ERR_BADCHAR = 10040;
    public static final int NFS4ERR_BADNAME = 10041;
    public static final int NFS4ERR_BAD_RANGE = 10042;
    public static final int NFS4ERR_LOCK_NOTSUPP = 10043;
    public static final int NFS4ERR_OP_ILLEGAL = 10044;
    public static final int NFS4ERR_DEADLOCK = 10045;
    public static final int NFS4ERR_FILE_OPEN = 10046;
    public static final int NFS4ERR_ADMIN_REVOKED = 10047;
    public static final int NFS4ERR_CB_PATH_DOWN = 10048;
    public static final int NFS4ERR_BADIOMODE = 10049;
    public static final int NFS4ERR_BADLAYOUT = 10050;
    public static final int NFS4ERR_BAD_SESSION_DIGEST = 10051;
    public static final int NFS4ERR_BADSESSION = 10052;
    public static final int NFS4ERR_BADSLOT = 10053;
    public static final int NFS4ERR_COMPLETE_ALREADY = 10054;
    public static final int NFS4ERR_CONN_NOT_BOUND_TO_SESSION = 10055;
    public static final int NFS4ERR_DELEG_ALREADY_WANTED = 10056;
    public static final int NFS4ERR_BACK_CHAN_BUSY = 10057;
    public static final int NFS4ERR_LAYOUTTRYLATER = 10058;
    public static final int NFS4ERR_LAYOUTUNAVAILABLE = 10059;
    public static final int NFS4ERR_NOMATCHING_LAYOUT = 10060;
    public static final int NFS4ERR_RECALLCONFLICT = 10061;
    public static final int NFS4ERR_UNKNOWN_LAYOUTTYPE = 10062;
    public static final int NFS4ERR_SEQ_MISORDERED = 10063;
    public static final int NFS4ERR_SEQUENCE_POS = 10064;
    public static final int NFS4ERR_REQ_TOO_BIG = 10065;
    public static final int NFS4ERR_REP_TOO_BIG = 10066;
    public static final int NFS4ERR_REP_TOO_BIG_TO_CACHE = 10067;
    public static final int NFS4ERR_RETRY_UNCACHED_REP = 10068;
    public static final int NFS4ERR_UNSAFE_COMPOUND = 10069;
    public static final int NFS4ERR_TOO_MANY_OPS = 10070;
    public static final int NFS4ERR_OP_NOT_IN_SESSION = 10071;
    public static final int NFS4ERR_HASH_ALG_UNSUPP = 10072;
    public static final int NFS4ERR_CLIENTID_BUSY = 10074;
    public static final int NFS4ERR_PNFS_IO_HOLE = 10075;
    public static final int NFS4ERR_SEQ_FALSE_RETRY = 10076;
    public static final int NFS4ERR_BAD_HIGH_SLOT = 10077;
    public static final int NFS4ERR_DEADSESSION = 10078;
    public static final int NFS4ERR_ENCR_ALG_UNSUPP = 10079;
    public static final int NFS4ERR_PNFS_NO_LAYOUT = 10080;
    public static final int NFS4ERR_NOT_ONLY_OP = 10081;
    public static final int NFS4ERR_WRONG_CRED = 10082;
    public static final int NFS4ERR_WRONG_TYPE = 10083;
    public static final int NFS4ERR_DIRDELEG_UNAVAIL = 10084;
    public static final int NFS4ERR_REJECT_DELEG = 10085;
    public static final int NFS4ERR_RETURNCONFLICT = 10086;
    public static final int NFS4ERR_DELEG_REVOKED = 10087;
    // NFSv4.2 (RFC 7862 §11.2, RFC 8276 §8.1)
    public static final int NFS4ERR_PARTNER_NOTSUPP = 10088;
    public static final int NFS4ERR_PARTNER_NO_AUTH = 10089;
    public static final int NFS4ERR_UNION_NOTSUPP = 10090;
    public static final int NFS4ERR_OFFLOAD_DENIED = 10091;
    public static final int NFS4ERR_WRONG_LFS = 10092;
    public static final int NFS4ERR_BADLABEL = 10093;
    public static final int NFS4ERR_OFFLOAD_NO_REQS = 10094;
    public static final int NFS4ERR_NOXATTR = 10095;
    public static final int NFS4ERR_XATTR2BIG = 10096;

    // ---- data_content4 (RFC 7862 §11.3): SEEK's what, READ_PLUS's segments
    public static final int NFS4_CONTENT_DATA = 0;
    public static final int NFS4_CONTENT_HOLE = 1;

    // ---- nfs_ftype4
    public static final int NF4REG = 1;
    public static final int NF4DIR = 2;
    public static final int NF4BLK = 3;
    public static final int NF4CHR = 4;
    public static final int NF4LNK = 5;
    public static final int NF4SOCK = 6;
    public static final int NF4FIFO = 7;

    // ---- sizes (RFC 8881 §3.2)
    public static final int NFS4_FHSIZE = 128;
    public static final int NFS4_VERIFIER_SIZE = 8;
    public static final int NFS4_OPAQUE_LIMIT = 1024;
    public static final int NFS4_SESSIONID_SIZE = 16;
    public static final int STATEID_OTHER_SIZE = 12;

    // ---- EXCHANGE_ID (§18.35)
    public static final int EXCHGID4_FLAG_SUPP_MOVED_REFER = 0x00000001;
    public static final int EXCHGID4_FLAG_SUPP_MOVED_MIGR = 0x00000002;
    public static final int EXCHGID4_FLAG_BIND_PRINC_STATEID = 0x00000100;
    public static final int EXCHGID4_FLAG_USE_NON_PNFS = 0x00010000;
    public static final int EXCHGID4_FLAG_USE_PNFS_MDS = 0x00020000;
    public static final int EXCHGID4_FLAG_USE_PNFS_DS = 0x00040000;
    public static final int EXCHGID4_FLAG_MASK_PNFS = 0x00070000;
    public static final int EXCHGID4_FLAG_UPD_CONFIRMED_REC_A = 0x40000000;
    public static final int EXCHGID4_FLAG_CONFIRMED_R = 0x80000000;
    public static final int EXCHGID4_FLAG_MASK_A = 0x40070103;
    public static final int SP4_NONE = 0;
    public static final int SP4_MACH_CRED = 1;
    public static final int SP4_SSV = 2;

    // ---- CREATE_SESSION (§18.36)
    /** RFC 8881 §18.46.3 sr_status_flags. */
    public static final int SEQ4_STATUS_CB_PATH_DOWN = 0x00000001;
    /** A delegation of the client was revoked; it finds which by TEST_STATEID and frees it (§8.2.4). */
    public static final int SEQ4_STATUS_RECALLABLE_STATE_REVOKED = 0x00000040;
    public static final int CREATE_SESSION4_FLAG_PERSIST = 0x00000001;
    public static final int CREATE_SESSION4_FLAG_CONN_BACK_CHAN = 0x00000002;
    public static final int CREATE_SESSION4_FLAG_CONN_RDMA = 0x00000004;

    // ---- OPEN (§18.16)
    public static final int OPEN4_SHARE_ACCESS_READ = 1;
    public static final int OPEN4_SHARE_ACCESS_WRITE = 2;
    public static final int OPEN4_SHARE_ACCESS_BOTH = 3;
    public static final int OPEN4_SHARE_ACCESS_WANT_DELEG_MASK = 0xFF00;
    public static final int OPEN4_SHARE_DENY_NONE = 0;
    public static final int OPEN4_SHARE_DENY_READ = 1;
    public static final int OPEN4_SHARE_DENY_WRITE = 2;
    public static final int OPEN4_SHARE_DENY_BOTH = 3;
    public static final int OPEN4_NOCREATE = 0;
    public static final int OPEN4_CREATE = 1;
    public static final int CLAIM_NULL = 0;
    public static final int CLAIM_PREVIOUS = 1;
    public static final int CLAIM_DELEGATE_CUR = 2;
    public static final int CLAIM_DELEGATE_PREV = 3;
    public static final int CLAIM_FH = 4;
    public static final int CLAIM_DELEG_CUR_FH = 5;
    public static final int CLAIM_DELEG_PREV_FH = 6;
    /** RFC 7530 §16.16.5: NFSv4.0's new open-owner confirms its first open with OPEN_CONFIRM. */
    public static final int OPEN4_RESULT_CONFIRM = 0x00000002;
    public static final int OPEN4_RESULT_LOCKTYPE_POSIX = 0x00000004;
    /** RFC 8881 §18.16.4: the server may send CB_NOTIFY_LOCK for this file's blocking locks. */
    public static final int OPEN4_RESULT_MAY_NOTIFY_LOCK = 0x00000020;
    public static final int OPEN_DELEGATE_NONE = 0;
    public static final int OPEN_DELEGATE_READ = 1;
    public static final int OPEN_DELEGATE_WRITE = 2;
    /** RFC 8881 §18.16.3: none, with the reason (why_no_delegation4) for a client that said what it wants. */
    public static final int OPEN_DELEGATE_NONE_EXT = 3;
    /** nfs_space_limit4's limit_by4: a write delegation's space limit as a file size. */
    public static final int NFS_LIMIT_SIZE = 1;
    /** share_access's want bits (§18.16.3). */
    public static final int OPEN4_SHARE_ACCESS_WANT_NO_PREFERENCE = 0x0000;
    public static final int OPEN4_SHARE_ACCESS_WANT_READ_DELEG = 0x0100;
    public static final int OPEN4_SHARE_ACCESS_WANT_WRITE_DELEG = 0x0200;
    public static final int OPEN4_SHARE_ACCESS_WANT_ANY_DELEG = 0x0300;
    public static final int OPEN4_SHARE_ACCESS_WANT_NO_DELEG = 0x0400;
    public static final int OPEN4_SHARE_ACCESS_WANT_CANCEL = 0x0500;
    /** why_no_delegation4. */
    public static final int WND4_NOT_WANTED = 0;
    public static final int WND4_CONTENTION = 1;
    public static final int WND4_RESOURCE = 2;
    public static final int WND4_NOT_SUPP_FTYPE = 3;
    public static final int WND4_WRITE_DELEG_NOT_SUPP_FTYPE = 4;
    public static final int WND4_CANCELLED = 7;

    // ---- flavors (SECINFO)
    public static final int AUTH_NONE = 0;
    public static final int AUTH_SYS = 1;
    public static final int RPCSEC_GSS = 6;
}
