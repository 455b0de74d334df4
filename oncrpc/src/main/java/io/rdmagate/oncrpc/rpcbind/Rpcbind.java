package io.rdmagate.oncrpc.rpcbind;

/** RFC 1833 program, versions and procedure numbers. */
public final class Rpcbind {
    public static final int PROGRAM = 100000;
    public static final int PORT = 111;

    // RFC 1833 §3.1 portmap version 2
    public static final int PMAP_VERS = 2;
    public static final int PMAPPROC_NULL = 0;
    public static final int PMAPPROC_SET = 1;
    public static final int PMAPPROC_UNSET = 2;
    public static final int PMAPPROC_GETPORT = 3;
    public static final int PMAPPROC_DUMP = 4;
    public static final int PMAPPROC_CALLIT = 5;
    public static final int IPPROTO_TCP = 6;
    public static final int IPPROTO_UDP = 17;

    // RFC 1833 §2.1 rpcbind versions 3 and 4
    public static final int RPCBPROC_NULL = 0;
    public static final int RPCBPROC_SET = 1;
    public static final int RPCBPROC_UNSET = 2;
    public static final int RPCBPROC_GETADDR = 3;
    public static final int RPCBPROC_DUMP = 4;
    public static final int RPCBPROC_CALLIT = 5; // v4: RPCBPROC_BCAST
    public static final int RPCBPROC_GETTIME = 6;
    public static final int RPCBPROC_UADDR2TADDR = 7;
    public static final int RPCBPROC_TADDR2UADDR = 8;
    public static final int RPCBPROC_GETVERSADDR = 9;
    public static final int RPCBPROC_INDIRECT = 10;
    public static final int RPCBPROC_GETADDRLIST = 11;
    public static final int RPCBPROC_GETSTAT = 12;

    /** Our limits on RFC 1833's unbounded strings (netids are "tcp", "udp6"...; uaddrs fit 64). */
    static final int MAX_NETID = 32;
    static final int MAX_UADDR = 64;
    static final int MAX_OWNER = 255;

    private Rpcbind() {
    }
}
