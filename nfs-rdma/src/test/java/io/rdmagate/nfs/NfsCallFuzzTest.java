package io.rdmagate.nfs;

import io.rdmagate.oncrpc.rpc.CallMutator;
import io.rdmagate.oncrpc.rpc.Dispatched;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.netty.buffer.UnpooledByteBufAllocator;
import io.rdmagate.nfs.client.Nfs3Client;
import io.rdmagate.nfs.mount.Mount;
import io.rdmagate.nfs.mount.MountProgram;
import io.rdmagate.nfs.nlm.Nlm4;
import io.rdmagate.nfs.nlm.NlmService;
import io.rdmagate.nfs.v3.Nfs3;
import io.rdmagate.nfs.v3.Nfs3Program;
import io.rdmagate.oncrpc.rpc.Rpc;
import io.rdmagate.oncrpc.server.Connection;
import io.rdmagate.oncrpc.server.RpcDispatcher;
import io.rdmagate.oncrpc.xdr.XdrEncoder;
import io.rdmagate.vfs.Caller;
import io.rdmagate.vfs.CreateMode;
import io.rdmagate.vfs.ExportOptions;
import io.rdmagate.vfs.SetAttributes;
import io.rdmagate.vfs.inmemory.InMemoryFileSystem;
import io.rdmagate.vfs.memory.IoMemoryPool;
import io.rdmagate.vfs.memory.MemoryRegistrar;
import io.rdmagate.vfs.memory.PayloadCopies;
import io.rdmagate.vfs.memory.PoolLimits;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * NFSv3, MOUNT, NLM and NSM calls from a hostile client, through the same dispatcher the TCP, UDP
 * and RDMA listeners use, over an in-memory export: whatever the bytes, the call is answered
 * (a result, GARBAGE_ARGS, PROG_UNAVAIL/PROC_UNAVAIL/PROG_MISMATCH, an auth or RPC-version
 * rejection) or, when it is not a call, dropped; never SYSTEM_ERR (a procedure that threw) and
 * never an exception out of the dispatcher.
 *
 * <p>{@link #mutatedCallsOfEveryProcedureAreAnswered} runs a fixed-seed, structure-aware mutation
 * campaign over valid calls of every procedure of the four programs in every build (100,000
 * calls; {@code -Drdmagate.fuzz.rounds=N} for a long run). {@link #fuzzCall} and
 * {@link #fuzzRecord} are Jazzer targets (JAZZER_FUZZ=1 fuzzes; otherwise they replay their
 * inputs); Jazzer 0.24 cannot instrument Java 25 class files, so its runs are not coverage-guided.
 */
class NfsCallFuzzTest {
    private static final int[][] PROGRAMS = {
        {Nfs3.PROGRAM, Nfs3.VERSION}, {Mount.PROGRAM, Mount.VERSION}, {Nlm4.PROGRAM, Nlm4.VERSION},
        {Nlm4.NSM_PROGRAM, Nlm4.NSM_VERSION}};
    private static final Connection CONNECTION = new Connection(1,
            new InetSocketAddress(InetAddress.getLoopbackAddress(), 801),
            new InetSocketAddress(InetAddress.getLoopbackAddress(), 2049), "tcp");

    private static final IoMemoryPool POOL = new IoMemoryPool(PoolLimits.DEFAULT, MemoryRegistrar.NONE);
    private static final InMemoryFileSystem FS = InMemoryFileSystem.create(7, ExportOptions.DEFAULT);
    private static final NfsExport EXPORT = NfsFixture.export(0, "data", FS,
            NfsFixture.rule("*", io.rdmagate.gateway.spi.config.ClientRule.Access.RW, false, false));
    private static final NfsExports EXPORTS = new NfsExports(List.of(EXPORT));
    private static final RpcDispatcher DISPATCHER;
    private static final byte[] ROOT;
    private static final byte[] FILE;

    static {
        NlmService nlm = new NlmService(EXPORTS, a -> new InetSocketAddress(InetAddress.getLoopbackAddress(), 1));
        DISPATCHER = new RpcDispatcher(null, UnpooledByteBufAllocator.DEFAULT)
                .register(new Nfs3Program(EXPORTS, new ConnectionAccounts(POOL), new PayloadCopies(), 1 << 20))
                .register(new MountProgram(EXPORTS)).register(nlm.nlm()).register(nlm.nsm());
        try {
            ROOT = NfsExports.wire(EXPORT, FS.root());
            FILE = NfsExports.wire(EXPORT, FS.create(Caller.ROOT, FS.root(), "f", CreateMode.GUARDED,
                    SetAttributes.NONE, 0).handle());
            FS.mkdir(Caller.ROOT, FS.root(), "d", SetAttributes.NONE);
        } catch (Exception e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    @AfterAll
    static void close() {
        FS.close();
        POOL.close();
    }

    /** Input: program (byte 0), procedure (byte 1), credential (byte 2), then the arguments. */
    @FuzzTest(maxDuration = "30s")
    void fuzzCall(byte[] input) {
        if (input.length < 3) {
            return;
        }
        int[] prog = PROGRAMS[(input[0] & 0xff) % PROGRAMS.length];
        answered(call(7, prog[0], prog[1], input[1] & 0x1f, (input[2] & 1) == 0,
                Arrays.copyOfRange(input, 3, input.length)));
    }

    /** Input: a whole RPC message, header included. */
    @FuzzTest(maxDuration = "30s")
    void fuzzRecord(byte[] input) {
        answered(input);
    }

    @Test
    void mutatedCallsOfEveryProcedureAreAnswered() {
        Random rnd = new Random(1813);
        List<byte[]> seeds = new ArrayList<>(validCalls());
        seeds.addAll(recordedCalls());
        int[] byStat = new int[8];
        int rounds = Integer.getInteger("rdmagate.fuzz.rounds", 100_000);
        for (int round = 0; round < rounds; round++) {
            byte[] m = seeds.get(rnd.nextInt(seeds.size())).clone();
            m = CallMutator.mutate(m, rnd);
            int stat = answered(m);
            if (stat >= 0) {
                byStat[stat]++;
            }
        }
        System.out.printf("NfsCallFuzzTest: %d mutated calls, accept_stat counts %s, 0 SYSTEM_ERR%n", rounds,
                Arrays.toString(byStat));
        assertTrue(byStat[Rpc.SUCCESS] > 1000, "many mutated calls still ran their procedure: " + Arrays.toString(byStat));
        assertTrue(byStat[Rpc.GARBAGE_ARGS] > 100, "and many were refused as garbage: " + Arrays.toString(byStat));
    }

    /**
     * The calls libnfs made to a real gateway ({@code bench/run seeds}): each is answered with a
     * result (its file handles name files of another server, so mostly a STALE or NOENT status),
     * never GARBAGE_ARGS, so the decoders take every argument a real client sends.
     */
    @Test
    void everyCallLibnfsMadeIsAnswered() throws Exception {
        List<byte[]> recorded = recorded("libnfs");
        assertTrue(recorded.size() >= 20, "the corpus holds MOUNT and NFSv3 calls: " + recorded.size());
        for (byte[] call : recorded) {
            assertEquals(Rpc.SUCCESS, answered(call), "call " + Arrays.toString(Arrays.copyOf(call, 24)));
        }
    }

    /**
     * The MOUNT and NFSv3 calls the Linux kernel client made to a real gateway
     * ({@code interop/lab/lab.sh seeds}: mount, the common workload, unmount): each is answered
     * with a result, never GARBAGE_ARGS; its probe of NFS_ACL (100227), which the gateway does not
     * serve, with PROG_UNAVAIL, as knfsd without ACL support answers.
     */
    @Test
    void everyCallTheKernelClientMadeIsAnswered() throws Exception {
        List<byte[]> recorded = recorded("kernel-nfs3");
        assertTrue(recorded.size() >= 20, "the corpus holds MOUNT and NFSv3 calls: " + recorded.size());
        int nfsAcl = 100227;
        for (byte[] call : recorded) {
            int program = ByteBuffer.wrap(call).getInt(12);
            assertEquals(program == nfsAcl ? Rpc.PROG_UNAVAIL : Rpc.SUCCESS, answered(call),
                    "call " + Arrays.toString(Arrays.copyOf(call, 24)));
        }
    }

    /** The seed corpora recorded from libnfs and the kernel client: whole RPC calls, one per file, in {@code index.txt}'s order. */
    private static List<byte[]> recordedCalls() {
        List<byte[]> calls = new ArrayList<>(recorded("libnfs"));
        calls.addAll(recorded("kernel-nfs3"));
        return calls;
    }

    /** A corpus {@code bench/run seeds} recorded under {@code seeds/NAME}: whole RPC calls, in {@code index.txt}'s order. */
    static List<byte[]> recorded(String name) {
        try {
            java.nio.file.Path dir = java.nio.file.Path.of(NfsCallFuzzTest.class.getResource("/seeds/" + name + "/index.txt")
                    .toURI()).getParent();
            List<byte[]> out = new ArrayList<>();
            for (String file : java.nio.file.Files.readAllLines(dir.resolve("index.txt"))) {
                if (!file.isBlank()) {
                    out.add(java.nio.file.Files.readAllBytes(dir.resolve(file)));
                }
            }
            return out;
        } catch (java.io.IOException | java.net.URISyntaxException e) {
            throw new IllegalStateException("the seed corpus " + name, e);
        }
    }

    @Test
    void everySeedIsAValidCall() {
        for (byte[] seed : validCalls()) {
            assertEquals(Rpc.SUCCESS, answered(seed), "seed " + Arrays.toString(Arrays.copyOf(seed, 24)));
        }
    }

    /**
     * Dispatches one message; returns its accept_stat, or -1 when it was rejected or not answered.
     * Fails on SYSTEM_ERR, a reply that is not one, or anything thrown.
     */
    private static int answered(byte[] message) {
        return Dispatched.acceptStat(DISPATCHER, message, CONNECTION);
    }

    private static byte[] call(int xid, int prog, int vers, int proc, boolean root, byte[] args) {
        return Nfs3Client.encode(e -> {
            e.writeInt(xid).writeInt(Rpc.CALL).writeInt(Rpc.VERSION).writeInt(prog).writeInt(vers).writeInt(proc);
            // AUTH_SYS: stamp, machine name, uid, gid, gids
            byte[] cred = Nfs3Client.encode(c -> c.writeInt(1).writeString("fuzz").writeInt(root ? 0 : 1000)
                    .writeInt(root ? 0 : 1000).writeInt(1).writeInt(1000));
            e.writeInt(1).writeOpaque(cred).writeInt(0).writeInt(0);
            e.writeFixedOpaque(args);
        });
    }

    private static byte[] args(Consumer<XdrEncoder> a) {
        return Nfs3Client.encode(a);
    }

    private static void sattr(XdrEncoder e) {
        e.writeBool(true).writeInt(0644).writeBool(false).writeBool(false).writeBool(true).writeHyper(3)
                .writeInt(Nfs3.DONT_CHANGE).writeInt(Nfs3.DONT_CHANGE);
    }

    private static void lock(XdrEncoder e, byte[] fh) {
        e.writeString("fuzz").writeOpaque(fh).writeOpaque(new byte[] {1, 2}).writeInt(42).writeHyper(0).writeHyper(10);
    }

    private static void myId(XdrEncoder e) {
        e.writeString("fuzz").writeInt(Nlm4.PROGRAM).writeInt(Nlm4.VERSION).writeInt(16);
    }

    /** One valid call of every procedure of the four programs, against the export's files. */
    private static List<byte[]> validCalls() {
        List<byte[]> c = new ArrayList<>();
        int n = 0;
        byte[][] nfs = new byte[Nfs3.PROCEDURES][];
        nfs[Nfs3.NULL] = new byte[0];
        nfs[Nfs3.GETATTR] = args(e -> e.writeOpaque(FILE));
        nfs[Nfs3.SETATTR] = args(e -> {
            e.writeOpaque(FILE);
            sattr(e);
            e.writeBool(false);
        });
        nfs[Nfs3.LOOKUP] = args(e -> e.writeOpaque(ROOT).writeString("f"));
        nfs[Nfs3.ACCESS] = args(e -> e.writeOpaque(FILE).writeInt(0x3f));
        nfs[Nfs3.READLINK] = args(e -> e.writeOpaque(FILE)); // NFS3ERR_INVAL: still a procedure result
        nfs[Nfs3.READ] = Nfs3Client.readArgs(FILE, 0, 4096);
        nfs[Nfs3.WRITE] = Nfs3Client.writeArgs(FILE, 0, new byte[64], 0, 64, 2);
        nfs[Nfs3.CREATE] = args(e -> {
            e.writeOpaque(ROOT).writeString("c").writeInt(0);
            sattr(e);
        });
        nfs[Nfs3.MKDIR] = args(e -> {
            e.writeOpaque(ROOT).writeString("m");
            sattr(e);
        });
        nfs[Nfs3.SYMLINK] = args(e -> {
            e.writeOpaque(ROOT).writeString("s");
            sattr(e);
            e.writeString("f");
        });
        nfs[Nfs3.MKNOD] = args(e -> {
            e.writeOpaque(ROOT).writeString("p").writeInt(7); // NF3FIFO
            sattr(e);
        });
        nfs[Nfs3.REMOVE] = args(e -> e.writeOpaque(ROOT).writeString("c"));
        nfs[Nfs3.RMDIR] = args(e -> e.writeOpaque(ROOT).writeString("m"));
        nfs[Nfs3.RENAME] = args(e -> e.writeOpaque(ROOT).writeString("s").writeOpaque(ROOT).writeString("s2"));
        nfs[Nfs3.LINK] = args(e -> e.writeOpaque(FILE).writeOpaque(ROOT).writeString("l"));
        nfs[Nfs3.READDIR] = args(e -> e.writeOpaque(ROOT).writeHyper(0).writeFixedOpaque(new byte[8]).writeInt(4096));
        nfs[Nfs3.READDIRPLUS] = args(e -> e.writeOpaque(ROOT).writeHyper(0).writeFixedOpaque(new byte[8]).writeInt(4096)
                .writeInt(8192));
        nfs[Nfs3.FSSTAT] = args(e -> e.writeOpaque(ROOT));
        nfs[Nfs3.FSINFO] = args(e -> e.writeOpaque(ROOT));
        nfs[Nfs3.PATHCONF] = args(e -> e.writeOpaque(ROOT));
        nfs[Nfs3.COMMIT] = args(e -> e.writeOpaque(FILE).writeHyper(0).writeInt(0));
        for (int p = 0; p < nfs.length; p++) {
            c.add(call(++n, Nfs3.PROGRAM, Nfs3.VERSION, p, true, nfs[p]));
        }
        c.add(call(++n, Mount.PROGRAM, Mount.VERSION, Mount.NULL, true, new byte[0]));
        c.add(call(++n, Mount.PROGRAM, Mount.VERSION, Mount.MNT, true, args(e -> e.writeString("/data"))));
        c.add(call(++n, Mount.PROGRAM, Mount.VERSION, Mount.DUMP, true, new byte[0]));
        c.add(call(++n, Mount.PROGRAM, Mount.VERSION, Mount.UMNT, true, args(e -> e.writeString("/data"))));
        c.add(call(++n, Mount.PROGRAM, Mount.VERSION, Mount.UMNTALL, true, new byte[0]));
        c.add(call(++n, Mount.PROGRAM, Mount.VERSION, 5, true, new byte[0])); // EXPORT
        c.add(call(++n, Nlm4.PROGRAM, Nlm4.VERSION, Nlm4.NULL, true, new byte[0]));
        c.add(call(++n, Nlm4.PROGRAM, Nlm4.VERSION, Nlm4.TEST, true, args(e -> {
            e.writeOpaque(new byte[] {9}).writeBool(true);
            lock(e, FILE);
        })));
        c.add(call(++n, Nlm4.PROGRAM, Nlm4.VERSION, Nlm4.LOCK, true, args(e -> {
            e.writeOpaque(new byte[] {9}).writeBool(false).writeBool(true);
            lock(e, FILE);
            e.writeBool(false).writeInt(1);
        })));
        c.add(call(++n, Nlm4.PROGRAM, Nlm4.VERSION, Nlm4.CANCEL, true, args(e -> {
            e.writeOpaque(new byte[] {9}).writeBool(false).writeBool(true);
            lock(e, FILE);
        })));
        c.add(call(++n, Nlm4.PROGRAM, Nlm4.VERSION, Nlm4.UNLOCK, true, args(e -> {
            e.writeOpaque(new byte[] {9});
            lock(e, FILE);
        })));
        c.add(call(++n, Nlm4.PROGRAM, Nlm4.VERSION, Nlm4.FREE_ALL, true, args(e -> e.writeString("other").writeInt(2))));
        c.add(call(++n, Nlm4.NSM_PROGRAM, Nlm4.NSM_VERSION, Nlm4.SM_NULL, true, new byte[0]));
        c.add(call(++n, Nlm4.NSM_PROGRAM, Nlm4.NSM_VERSION, Nlm4.SM_STAT, true, args(e -> e.writeString("fuzz"))));
        c.add(call(++n, Nlm4.NSM_PROGRAM, Nlm4.NSM_VERSION, Nlm4.SM_MON, true, args(e -> {
            e.writeString("fuzz");
            myId(e);
            e.writeFixedOpaque(new byte[16]);
        })));
        c.add(call(++n, Nlm4.NSM_PROGRAM, Nlm4.NSM_VERSION, Nlm4.SM_UNMON, true, args(e -> {
            e.writeString("fuzz");
            myId(e);
        })));
        c.add(call(++n, Nlm4.NSM_PROGRAM, Nlm4.NSM_VERSION, Nlm4.SM_UNMON_ALL, true, args(NfsCallFuzzTest::myId)));
        return c;
    }
}
