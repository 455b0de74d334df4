package io.rdmagate.nfs;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.netty.buffer.ByteBuf;
import io.rdmagate.gateway.spi.log.RateLimitedLog;
import io.rdmagate.nfs.mount.Mount;
import io.rdmagate.nfs.nlm.Nlm4;
import io.rdmagate.nfs.v3.Nfs3;
import io.rdmagate.nfs.v3.Nfs3Status;
import io.rdmagate.nfs.v4.Nfs4;
import io.rdmagate.oncrpc.rpc.AuthSys;
import io.rdmagate.oncrpc.rpc.CallHeader;
import io.rdmagate.oncrpc.server.Connection;
import io.rdmagate.oncrpc.server.RpcObserver;
import io.rdmagate.oncrpc.server.RpcProgram;
import io.rdmagate.oncrpc.xdr.XdrMessage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * The NFS service's meters, fed by the oncrpc dispatcher and transports ({@link RpcObserver}) of
 * every NFS, MOUNT, NLM and NSM listener, over TCP, UDP and RPC-over-RDMA:
 * <ul>
 * <li>{@code rdmagate_nfs_requests_total{program,version,procedure,status}}: calls answered, by the
 * status in the reply (nfsstat3, mountstat3, nlm4_stats, NSM res; "OK" for procedures without one;
 * the RPC error for calls the program never answered: GARBAGE_ARGS, PROC_UNAVAIL, PROG_MISMATCH,
 * SYSTEM_ERR, MSG_DENIED; DROPPED for a retransmission dropped by the duplicate request cache);
 * <li>{@code rdmagate_nfs_request_seconds{program,version,procedure}}: a histogram of the time from
 * the dispatcher taking the record to the reply being ready (buckets {@link io.rdmagate.gateway.spi.RequestLatency#buckets()});
 * <li>{@code rdmagate_nfs_bytes_received_total{transport}}, {@code rdmagate_nfs_bytes_sent_total{transport}}:
 * RPC message bytes (calls and replies, payloads included; without TCP record marks or RPC-over-RDMA
 * transport headers);
 * <li>{@code rdmagate_nfs_connections{listener,transport}} (open now) and
 * {@code rdmagate_nfs_connections_accepted_total{listener,transport}}.
 * </ul>
 *
 * <p>Hot path: procedure, version and status are turned into array indexes (the status is read
 * from the reply header in place); a meter is built and registered the first time its combination
 * is seen, then found by index. Nothing is allocated per call. The cardinality is bounded by the
 * tables below: unknown procedures and statuses are counted as "OTHER" and "other".
 *
 * <p>Also logs NFS3ERR_ACCES and NFS3ERR_PERM answers (uid, client address, procedure), rate-limited
 * per client through {@link NfsExports#denials()}.
 */
public final class NfsMetrics {

    static final String[] TRANSPORTS = {"tcp", "udp", "rdma"};
    static final String[] LISTENERS = {"nfs", "mount", "nlm", "nsm"};

    /** RPC-level outcomes, shared by every program: status indexes 0..RPC_STATUSES-1. */
    private static final String[] RPC_STATUS = {
        "OK", "PROG_UNAVAIL", "PROG_MISMATCH", "PROC_UNAVAIL", "GARBAGE_ARGS", "SYSTEM_ERR", "MSG_DENIED", "DROPPED",
        "NOT_A_CALL", "other",
    };
    private static final int OK = 0;
    private static final int MSG_DENIED = 6;
    private static final int DROPPED = 7;
    private static final int NOT_A_CALL = 8;
    private static final int OTHER_STATUS = 9;

    private final MeterRegistry registry;
    private final RateLimitedLog denials;
    private final Counter[] received = new Counter[TRANSPORTS.length];
    private final Counter[] sent = new Counter[TRANSPORTS.length];
    private final Program nfs;
    private final Program nfs4;
    private final Program mount;
    private final Program nlm;
    private final Program nsm;
    private final Program unknown;
    private final int acces;
    private final java.util.Map<String, Listener> listeners = new java.util.concurrent.ConcurrentHashMap<>();
    private final int perm;

    /** How a program's procedures and statuses are named, and where its status lies in a reply. */
    private final class Program {
        final int number;
        final String name;
        final int lowVersion;
        final String[] versions;
        final String[] procedures; // by number; null: unknown, counted as OTHER
        final int[] statusValues; // the program's own statuses, status index RPC_STATUS.length + i
        final String[] statusNames;
        final StatusAt statusAt;
        final String[] statusTags;
        final AtomicReferenceArray<Counter> counters;
        final AtomicReferenceArray<Timer> timers;

        Program(int number, String name, int lowVersion, int highVersion, String[] procedures, int[] statusValues,
                String[] statusNames, StatusAt statusAt) {
            this.number = number;
            this.name = name;
            this.lowVersion = lowVersion;
            this.versions = new String[highVersion - lowVersion + 1];
            for (int v = lowVersion; v <= highVersion; v++) {
                versions[v - lowVersion] = Integer.toString(v);
            }
            this.procedures = procedures;
            this.statusValues = statusValues;
            this.statusNames = statusNames;
            this.statusAt = statusAt;
            this.statusTags = new String[RPC_STATUS.length + statusValues.length];
            System.arraycopy(RPC_STATUS, 0, statusTags, 0, RPC_STATUS.length);
            System.arraycopy(statusNames, 0, statusTags, RPC_STATUS.length, statusNames.length);
            int procs = procedures.length + 1;
            this.counters = new AtomicReferenceArray<>(versions.length * procs * statusTags.length);
            this.timers = new AtomicReferenceArray<>(versions.length * procs);
        }

        int procIndex(int procedure) {
            return procedure >= 0 && procedure < procedures.length && procedures[procedure] != null
                    ? procedure : procedures.length;
        }

        String procName(int index) {
            return index < procedures.length ? procedures[index] : "OTHER";
        }

        int versionIndex(int version) {
            int v = version - lowVersion;
            return v >= 0 && v < versions.length ? v : -1;
        }

        int statusIndex(int value) {
            for (int i = 0; i < statusValues.length; i++) {
                if (statusValues[i] == value) {
                    return RPC_STATUS.length + i;
                }
            }
            return OTHER_STATUS;
        }

        void record(int version, int procedure, int status, long nanos) {
            int v = versionIndex(version);
            if (v < 0) {
                v = 0; // PROG_MISMATCH: counted under the lowest version
            }
            int p = procIndex(procedure);
            int procs = procedures.length + 1;
            int ti = v * procs + p;
            Timer t = timers.get(ti);
            if (t == null) {
                t = Timer.builder("rdmagate.nfs.request").description("time to answer an RPC call")
                        .tag("program", name).tag("version", versions[v]).tag("procedure", procName(p))
                        .serviceLevelObjectives(io.rdmagate.gateway.spi.RequestLatency.buckets()).register(registry);
                timers.set(ti, t);
            }
            t.record(nanos, TimeUnit.NANOSECONDS);
            int ci = ti * statusTags.length + status;
            Counter c = counters.get(ci);
            if (c == null) {
                c = Counter.builder("rdmagate.nfs.requests").description("RPC calls answered, by status")
                        .tag("program", name).tag("version", versions[v]).tag("procedure", procName(p))
                        .tag("status", statusTags[status]).register(registry);
                counters.set(ci, c);
            }
            c.increment();
        }
    }

    /** Where a program's status word lies in a successful reply: its offset after accept_stat, or -1 for none. */
    @FunctionalInterface
    private interface StatusAt {
        /** @return the status index for {@code procedure}'s reply, whose results start at {@code at} in {@code head} */
        int status(Program p, int procedure, ByteBuf head, int at);
    }

    public NfsMetrics(MeterRegistry registry, RateLimitedLog denials) {
        this.registry = registry;
        this.denials = denials;
        for (int i = 0; i < TRANSPORTS.length; i++) {
            received[i] = Counter.builder("rdmagate.nfs.bytes.received").description("RPC call bytes received")
                    .tag("transport", TRANSPORTS[i]).register(registry);
            sent[i] = Counter.builder("rdmagate.nfs.bytes.sent").description("RPC reply bytes sent")
                    .tag("transport", TRANSPORTS[i]).register(registry);
        }
        nfs = new Program(Nfs3.PROGRAM, "nfs", Nfs3.VERSION, Nfs3.VERSION, new String[] {
            "NULL", "GETATTR", "SETATTR", "LOOKUP", "ACCESS", "READLINK", "READ", "WRITE", "CREATE", "MKDIR",
            "SYMLINK", "MKNOD", "REMOVE", "RMDIR", "RENAME", "LINK", "READDIR", "READDIRPLUS", "FSSTAT", "FSINFO",
            "PATHCONF", "COMMIT",
        }, new int[] {
            Nfs3Status.NFS3_OK, Nfs3Status.NFS3ERR_PERM, Nfs3Status.NFS3ERR_NOENT, Nfs3Status.NFS3ERR_IO,
            Nfs3Status.NFS3ERR_NXIO, Nfs3Status.NFS3ERR_ACCES, Nfs3Status.NFS3ERR_EXIST, Nfs3Status.NFS3ERR_XDEV,
            Nfs3Status.NFS3ERR_NODEV, Nfs3Status.NFS3ERR_NOTDIR, Nfs3Status.NFS3ERR_ISDIR, Nfs3Status.NFS3ERR_INVAL,
            Nfs3Status.NFS3ERR_FBIG, Nfs3Status.NFS3ERR_NOSPC, Nfs3Status.NFS3ERR_ROFS, Nfs3Status.NFS3ERR_MLINK,
            Nfs3Status.NFS3ERR_NAMETOOLONG, Nfs3Status.NFS3ERR_NOTEMPTY, Nfs3Status.NFS3ERR_DQUOT,
            Nfs3Status.NFS3ERR_STALE, Nfs3Status.NFS3ERR_REMOTE, Nfs3Status.NFS3ERR_BADHANDLE,
            Nfs3Status.NFS3ERR_NOT_SYNC, Nfs3Status.NFS3ERR_BAD_COOKIE, Nfs3Status.NFS3ERR_NOTSUPP,
            Nfs3Status.NFS3ERR_TOOSMALL, Nfs3Status.NFS3ERR_SERVERFAULT, Nfs3Status.NFS3ERR_BADTYPE,
            Nfs3Status.NFS3ERR_JUKEBOX,
        }, new String[] {
            "NFS3_OK", "NFS3ERR_PERM", "NFS3ERR_NOENT", "NFS3ERR_IO", "NFS3ERR_NXIO", "NFS3ERR_ACCES", "NFS3ERR_EXIST",
            "NFS3ERR_XDEV", "NFS3ERR_NODEV", "NFS3ERR_NOTDIR", "NFS3ERR_ISDIR", "NFS3ERR_INVAL", "NFS3ERR_FBIG",
            "NFS3ERR_NOSPC", "NFS3ERR_ROFS", "NFS3ERR_MLINK", "NFS3ERR_NAMETOOLONG", "NFS3ERR_NOTEMPTY",
            "NFS3ERR_DQUOT", "NFS3ERR_STALE", "NFS3ERR_REMOTE", "NFS3ERR_BADHANDLE", "NFS3ERR_NOT_SYNC",
            "NFS3ERR_BAD_COOKIE", "NFS3ERR_NOTSUPP", "NFS3ERR_TOOSMALL", "NFS3ERR_SERVERFAULT", "NFS3ERR_BADTYPE",
            "NFS3ERR_JUKEBOX",
        }, (p, proc, head, at) -> proc == Nfs3.NULL ? OK : wordAt(p, head, at)); // RFC 1813: every result opens with nfsstat3
        mount = new Program(Mount.PROGRAM, "mount", Mount.LOW_VERSION, Mount.VERSION, new String[] {
            "NULL", "MNT", "DUMP", "UMNT", "UMNTALL", "EXPORT",
        }, new int[] {
            Mount.MNT3_OK, Mount.MNT3ERR_PERM, Mount.MNT3ERR_NOENT, Mount.MNT3ERR_IO, Mount.MNT3ERR_ACCES,
            Mount.MNT3ERR_NOTDIR, Mount.MNT3ERR_INVAL, Mount.MNT3ERR_NAMETOOLONG, Mount.MNT3ERR_NOTSUPP,
            Mount.MNT3ERR_SERVERFAULT,
        }, new String[] {
            "MNT3_OK", "MNT3ERR_PERM", "MNT3ERR_NOENT", "MNT3ERR_IO", "MNT3ERR_ACCES", "MNT3ERR_NOTDIR",
            "MNT3ERR_INVAL", "MNT3ERR_NAMETOOLONG", "MNT3ERR_NOTSUPP", "MNT3ERR_SERVERFAULT",
        }, (p, proc, head, at) -> proc == Mount.MNT ? wordAt(p, head, at) : OK); // RFC 1813 §5.2.1 mountres3
        String[] nlmProcs = new String[24];
        String[] named = {
            "NULL", "TEST", "LOCK", "CANCEL", "UNLOCK", "GRANTED", "TEST_MSG", "LOCK_MSG", "CANCEL_MSG", "UNLOCK_MSG",
            "GRANTED_MSG", "TEST_RES", "LOCK_RES", "CANCEL_RES", "UNLOCK_RES", "GRANTED_RES",
        };
        System.arraycopy(named, 0, nlmProcs, 0, named.length);
        nlmProcs[20] = "SHARE";
        nlmProcs[21] = "UNSHARE";
        nlmProcs[Nlm4.NM_LOCK] = "NM_LOCK";
        nlmProcs[Nlm4.FREE_ALL] = "FREE_ALL";
        nlm = new Program(Nlm4.PROGRAM, "nlm", Nlm4.VERSION, Nlm4.VERSION, nlmProcs, new int[] {
            Nlm4.GRANTED_STAT, Nlm4.DENIED, Nlm4.DENIED_NOLOCKS, Nlm4.BLOCKED, Nlm4.DENIED_GRACE_PERIOD, Nlm4.DEADLCK,
            Nlm4.ROFS, Nlm4.STALE_FH, Nlm4.FBIG, Nlm4.FAILED,
        }, new String[] {
            "NLM4_GRANTED", "NLM4_DENIED", "NLM4_DENIED_NOLOCKS", "NLM4_BLOCKED", "NLM4_DENIED_GRACE_PERIOD",
            "NLM4_DEADLCK", "NLM4_ROFS", "NLM4_STALE_FH", "NLM4_FBIG", "NLM4_FAILED",
        }, NfsMetrics::nlmStatus);
        nsm = new Program(Nlm4.NSM_PROGRAM, "nsm", Nlm4.NSM_VERSION, Nlm4.NSM_VERSION, new String[] {
            "NULL", "STAT", "MON", "UNMON", "UNMON_ALL", "SIMU_CRASH", "NOTIFY",
        }, new int[] {0, 1}, new String[] {"STAT_SUCC", "STAT_FAIL"},
                (p, proc, head, at) -> proc == Nlm4.SM_STAT || proc == Nlm4.SM_MON ? wordAt(p, head, at) : OK);
        unknown = new Program(0, "unknown", 0, 0, new String[0], new int[0], new String[0], (p, proc, h, at) -> OK);
        nfs4 = nfs4Program();
        acces = nfs.statusIndex(Nfs3Status.NFS3ERR_ACCES);
        perm = nfs.statusIndex(Nfs3Status.NFS3ERR_PERM);
    }

    /** NFSv4 (RFC 8881 §16.2): a COMPOUND's reply opens with the status of its last operation. */
    private Program nfs4Program() {
        String[] names = {
            "NFS4_OK", "NFS4ERR_PERM", "NFS4ERR_NOENT", "NFS4ERR_IO", "NFS4ERR_ACCESS", "NFS4ERR_EXIST",
            "NFS4ERR_NOTDIR", "NFS4ERR_ISDIR", "NFS4ERR_INVAL", "NFS4ERR_NOSPC", "NFS4ERR_ROFS", "NFS4ERR_NAMETOOLONG",
            "NFS4ERR_STALE", "NFS4ERR_BADHANDLE", "NFS4ERR_NOTSUPP", "NFS4ERR_SERVERFAULT", "NFS4ERR_DELAY",
            "NFS4ERR_SHARE_DENIED", "NFS4ERR_NOFILEHANDLE", "NFS4ERR_MINOR_VERS_MISMATCH", "NFS4ERR_STALE_CLIENTID",
            "NFS4ERR_BAD_STATEID", "NFS4ERR_BADXDR", "NFS4ERR_BADNAME", "NFS4ERR_OP_ILLEGAL", "NFS4ERR_BADSESSION",
            "NFS4ERR_BADSLOT", "NFS4ERR_SEQ_MISORDERED", "NFS4ERR_RETRY_UNCACHED_REP", "NFS4ERR_TOO_MANY_OPS",
            "NFS4ERR_OP_NOT_IN_SESSION",
        };
        int[] values = {
            Nfs4.NFS4_OK, Nfs4.NFS4ERR_PERM, Nfs4.NFS4ERR_NOENT, Nfs4.NFS4ERR_IO, Nfs4.NFS4ERR_ACCESS, Nfs4.NFS4ERR_EXIST,
            Nfs4.NFS4ERR_NOTDIR, Nfs4.NFS4ERR_ISDIR, Nfs4.NFS4ERR_INVAL, Nfs4.NFS4ERR_NOSPC, Nfs4.NFS4ERR_ROFS,
            Nfs4.NFS4ERR_NAMETOOLONG, Nfs4.NFS4ERR_STALE, Nfs4.NFS4ERR_BADHANDLE, Nfs4.NFS4ERR_NOTSUPP,
            Nfs4.NFS4ERR_SERVERFAULT, Nfs4.NFS4ERR_DELAY, Nfs4.NFS4ERR_SHARE_DENIED, Nfs4.NFS4ERR_NOFILEHANDLE,
            Nfs4.NFS4ERR_MINOR_VERS_MISMATCH, Nfs4.NFS4ERR_STALE_CLIENTID, Nfs4.NFS4ERR_BAD_STATEID,
            Nfs4.NFS4ERR_BADXDR, Nfs4.NFS4ERR_BADNAME, Nfs4.NFS4ERR_OP_ILLEGAL, Nfs4.NFS4ERR_BADSESSION,
            Nfs4.NFS4ERR_BADSLOT, Nfs4.NFS4ERR_SEQ_MISORDERED, Nfs4.NFS4ERR_RETRY_UNCACHED_REP,
            Nfs4.NFS4ERR_TOO_MANY_OPS, Nfs4.NFS4ERR_OP_NOT_IN_SESSION,
        };
        return new Program(Nfs4.PROGRAM, "nfs", Nfs4.VERSION, Nfs4.VERSION, new String[] {"NULL", "COMPOUND"}, values,
                names, (p, proc, head, at) -> proc == Nfs4.PROC_NULL ? OK : wordAt(p, head, at));
    }

    /** RFC 1813 / NLM v4: TEST, LOCK, CANCEL, UNLOCK, GRANTED and NM_LOCK answer a cookie, then nlm4_stats. */
    private static int nlmStatus(Program p, int proc, ByteBuf head, int at) {
        if (proc < Nlm4.TEST || proc > Nlm4.GRANTED && proc != Nlm4.NM_LOCK) {
            return OK;
        }
        if (head.writerIndex() < at + 4) {
            return OTHER_STATUS;
        }
        long cookie = head.getUnsignedInt(at);
        return cookie > Nlm4.MAXNETOBJ_SZ ? OTHER_STATUS : wordAt(p, head, at + 4 + (int) ((cookie + 3) & ~3L));
    }

    private static int wordAt(Program p, ByteBuf head, int at) {
        return head.writerIndex() < at + 4 ? OTHER_STATUS : p.statusIndex(head.getInt(at));
    }

    /** The observer of one listener ("nfs", "mount", "nlm", "nsm"): its own connection meters, the shared call meters. */
    public RpcObserver listener(String listener) {
        return listeners.computeIfAbsent(listener, Listener::new); // a listener's TCP and RDMA servers share it
    }

    private static int transport(String t) {
        return switch (t) {
            case "tcp" -> 0;
            case "udp" -> 1;
            default -> 2;
        };
    }

    private Program program(RpcProgram p) {
        if (p == null) {
            return unknown;
        }
        return switch (p.program()) {
            case Nfs3.PROGRAM -> nfs;
            case Mount.PROGRAM -> mount;
            case Nlm4.PROGRAM -> nlm;
            case Nlm4.NSM_PROGRAM -> nsm;
            default -> unknown;
        };
    }

    void completed(Connection c, RpcProgram rp, CallHeader call, int callBytes, XdrMessage reply, long start) {
        long nanos = System.nanoTime() - start;
        int t = transport(c.transport());
        received[t].increment(callBytes);
        Program p = program(rp);
        if (p == nfs && call != null && call.version() == Nfs4.VERSION) {
            p = nfs4;
        }
        int status;
        if (reply == null) {
            status = call == null ? NOT_A_CALL : DROPPED;
        } else {
            sent[t].increment(reply.length());
            status = status(p, call, reply.head());
        }
        p.record(call == null ? p.lowVersion : call.version(), call == null ? -1 : call.procedure(), status, nanos);
        if (p == nfs && (status == acces || status == perm)) {
            logDenial(c, call, p.procName(p.procIndex(call.procedure())), p.statusTags[status]);
        }
    }

    /** Reads the outcome from the reply header in place (RFC 5531 §9 rpc_msg). */
    private static int status(Program p, CallHeader call, ByteBuf head) {
        int r = head.readerIndex();
        if (head.writerIndex() < r + 24) {
            return OTHER_STATUS;
        }
        if (head.getInt(r + 8) != 0) {
            return MSG_DENIED; // reply_stat MSG_DENIED
        }
        long verifier = head.getUnsignedInt(r + 16);
        if (verifier > 400) {
            return OTHER_STATUS;
        }
        int accept = r + 20 + (int) ((verifier + 3) & ~3L);
        if (head.writerIndex() < accept + 4) {
            return OTHER_STATUS;
        }
        int acceptStat = head.getInt(accept);
        if (acceptStat != 0) {
            return acceptStat >= 1 && acceptStat <= 5 ? acceptStat : OTHER_STATUS; // PROG_UNAVAIL..SYSTEM_ERR
        }
        return call == null ? OK : p.statusAt.status(p, call.procedure(), head, accept + 4);
    }

    private void logDenial(Connection c, CallHeader call, String procedure, String status) {
        String uid = call.credentials() instanceof AuthSys a ? Integer.toUnsignedString(a.uid()) : "none (AUTH_NONE)";
        String client = c.peer().getAddress().getHostAddress();
        denials.log(RateLimitedLog.Level.INFO, client, "NFS {} answered {}: uid {} from {}", procedure, status, uid,
                client);
    }

    private final class Listener implements RpcObserver {
        private final AtomicInteger[] open = new AtomicInteger[TRANSPORTS.length];
        private final Counter[] accepted = new Counter[TRANSPORTS.length];

        Listener(String listener) {
            for (int i = 0; i < TRANSPORTS.length; i++) {
                if (TRANSPORTS[i].equals("udp")) {
                    continue; // connectionless
                }
                AtomicInteger n = new AtomicInteger();
                open[i] = n;
                Gauge.builder("rdmagate.nfs.connections", n, AtomicInteger::get).description("connections open now")
                        .tag("listener", listener).tag("transport", TRANSPORTS[i]).register(registry);
                accepted[i] = Counter.builder("rdmagate.nfs.connections.accepted").description("connections accepted")
                        .tag("listener", listener).tag("transport", TRANSPORTS[i]).register(registry);
            }
        }

        @Override
        public void connectionOpened(String transport) {
            int t = transport(transport);
            if (open[t] != null) {
                open[t].incrementAndGet();
                accepted[t].increment();
            }
        }

        @Override
        public void connectionClosed(String transport) {
            int t = transport(transport);
            if (open[t] != null) {
                open[t].decrementAndGet();
            }
        }

        @Override
        public void completed(Connection connection, RpcProgram program, CallHeader call, int callBytes,
                XdrMessage reply, long startNanos) {
            NfsMetrics.this.completed(connection, program, call, callBytes, reply, startNanos);
        }
    }
}
