package io.rdmagate.nfs.nlm;

/** Numbers of NLM version 4 (RFC 1813 Appendix II, §6; X/Open XNFS) and of NSM. */
public final class Nlm4 {
    private Nlm4() {
    }

    public static final int PROGRAM = 100021;
    public static final int VERSION = 4;
    /** §6.1 LM_MAXSTRLEN: caller names and netobjs. */
    public static final int LM_MAXSTRLEN = 1024;
    public static final int MAXNETOBJ_SZ = 1024;

    public static final int NULL = 0;
    public static final int TEST = 1;
    public static final int LOCK = 2;
    public static final int CANCEL = 3;
    public static final int UNLOCK = 4;
    public static final int GRANTED = 5;
    public static final int NM_LOCK = 22;
    public static final int FREE_ALL = 23;

    /** §6.1 nlm4_stats. */
    public static final int GRANTED_STAT = 0;
    public static final int DENIED = 1;
    public static final int DENIED_NOLOCKS = 2;
    public static final int BLOCKED = 3;
    public static final int DENIED_GRACE_PERIOD = 4;
    public static final int DEADLCK = 5;
    public static final int ROFS = 6;
    public static final int STALE_FH = 7;
    public static final int FBIG = 8;
    public static final int FAILED = 9;

    /** NSM (status monitor) program 100024 version 1. */
    public static final int NSM_PROGRAM = 100024;
    public static final int NSM_VERSION = 1;
    public static final int SM_NULL = 0;
    public static final int SM_STAT = 1;
    public static final int SM_MON = 2;
    public static final int SM_UNMON = 3;
    public static final int SM_UNMON_ALL = 4;
    public static final int SM_SIMU_CRASH = 5;
    public static final int SM_NOTIFY = 6;
    public static final int STAT_SUCC = 0;
}
