package io.rdmagate.nfs;

import io.rdmagate.oncrpc.rpc.CallMutator;
import io.rdmagate.oncrpc.rpc.Dispatched;
import static io.rdmagate.nfs.v4.Nfs4.*;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.UnpooledByteBufAllocator;
import io.rdmagate.nfs.client.Nfs3Client;
import io.rdmagate.nfs.v3.Nfs3Program;
import io.rdmagate.nfs.v4.Fattr4;
import io.rdmagate.nfs.v4.Nfs4Program;
import io.rdmagate.nfs.v4.Nfs4Server;
import io.rdmagate.oncrpc.rpc.Rpc;
import io.rdmagate.oncrpc.server.Connection;
import io.rdmagate.oncrpc.server.RpcDispatcher;
import io.rdmagate.oncrpc.server.RpcVersions;
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
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;

/**
 * NFSv4.1 and NFSv4.2 COMPOUNDs from a hostile client, through the dispatcher the listeners use, over an
 * in-memory export: valid COMPOUNDs of every operation this server performs (on a live session,
 * its slot's next sequence id filled in each round) are mutated (bit flips, small values and values
 * near 2^32 over words, truncation, trailing bytes). Each is answered with a COMPOUND result or
 * GARBAGE_ARGS, never SYSTEM_ERR and never NFS4ERR_SERVERFAULT (an operation that threw), and a valid
 * COMPOUND still works afterwards. {@code -Drdmagate.fuzz.rounds=N} for a long run.
 */
class Nfs4CompoundFuzzTest {
    private static final Connection CONNECTION = new Connection(1,
            new InetSocketAddress(InetAddress.getLoopbackAddress(), 801),
            new InetSocketAddress(InetAddress.getLoopbackAddress(), 2049), "tcp");
    private static final IoMemoryPool POOL = new IoMemoryPool(PoolLimits.DEFAULT, MemoryRegistrar.NONE);
    private static final InMemoryFileSystem FS = InMemoryFileSystem.create(7, ExportOptions.DEFAULT);
    private static final NfsExports EXPORTS = new NfsExports(List.of(NfsFixture.export(0, "data", FS,
            NfsFixture.rule("*", io.rdmagate.gateway.spi.config.ClientRule.Access.RW, false, false))));
    private static final Nfs4Server SERVER = new Nfs4Server(EXPORTS, Nfs4Server.Options.DEFAULT, 1 << 20);
    private static final RpcDispatcher DISPATCHER;

    static {
        ConnectionAccounts accounts = new ConnectionAccounts(POOL);
        DISPATCHER = new RpcDispatcher(null, UnpooledByteBufAllocator.DEFAULT).register(RpcVersions.of(
                new Nfs3Program(EXPORTS, accounts, new PayloadCopies(), 1 << 20), new Nfs4Program(SERVER, accounts, new PayloadCopies())));
        try {
            FS.create(Caller.ROOT, FS.root(), "f", CreateMode.GUARDED, SetAttributes.NONE, 0);
            FS.mkdir(Caller.ROOT, FS.root(), "d", SetAttributes.NONE);
            FS.create(Caller.ROOT, FS.root(), "s", CreateMode.GUARDED, SetAttributes.NONE, 0);
            FS.create(Caller.ROOT, FS.root(), "t", CreateMode.GUARDED, SetAttributes.NONE, 0);
        } catch (Exception e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    @AfterAll
    static void close() {
        SERVER.close();
        FS.close();
        POOL.close();
    }

    @Test
    void mutatedCompoundsOfEveryOperationAreAnswered() {
        byte[] session = establish();
        List<Consumer<XdrEncoder>> seeds = seeds(session);
        campaign("COMPOUNDs", 8881, (round, rnd) -> {
            int seq = SERVER.state().sessionSlotSeqid(session, 0) + 1;
            Consumer<XdrEncoder> ops = seeds.get(rnd.nextInt(seeds.size()));
            return compound(round, e -> {
                e.writeInt(OP_SEQUENCE);
                Nfs4TestClient.sequenceArgs(e, session, seq, 0);
                ops.accept(e);
            }, 1 + opsIn(ops));
        });
        int seq = SERVER.state().sessionSlotSeqid(session, 0) + 1;
        assertEquals(NFS4_OK, answered(compound(1, e -> {
            e.writeInt(OP_SEQUENCE);
            Nfs4TestClient.sequenceArgs(e, session, seq, 0);
            e.writeInt(OP_PUTROOTFH);
        }, 2)), "the session still works");
    }

    @Test
    void everySeedIsAValidCompound() {
        byte[] session = establish();
        for (Consumer<XdrEncoder> ops : seeds(session)) {
            int seq = SERVER.state().sessionSlotSeqid(session, 0) + 1;
            int status = answered(compound(3, e -> {
                e.writeInt(OP_SEQUENCE);
                Nfs4TestClient.sequenceArgs(e, session, seq, 0);
                ops.accept(e);
            }, 1 + opsIn(ops)));
            assertEquals(NFS4_OK, status, "seed " + seeds(session).indexOf(ops));
        }
    }

    /**
     * NFSv4.0 (RFC 7530): mutated COMPOUNDs of its own operations from a confirmed client: RENEW,
     * SETCLIENTID, an OPEN by a new open-owner, and what follows an OPEN (OPEN_CONFIRM, LOCK of a new
     * lock-owner, LOCKT, OPEN_DOWNGRADE, CLOSE, RELEASE_LOCKOWNER) on the stateid an unmutated OPEN
     * of the round's own owner returned, so that unmutated seeds run through.
     */
    @Test
    void mutatedNfs40CompoundsAreAnswered() throws Exception {
        long clientId = setClientId("fuzz-v40-" + System.nanoTime());
        byte[] fh = NfsExports.wire(EXPORTS.all().get(0), FS.lookup(Caller.ROOT, FS.root(), "f").handle());
        campaign("NFSv4.0 COMPOUNDs", 7530, (round, rnd) -> {
            List<Consumer<XdrEncoder>> seeds = seeds40(clientId, ("v40-owner-" + round).getBytes(StandardCharsets.UTF_8), fh);
            Consumer<XdrEncoder> ops = seeds.get(rnd.nextInt(seeds.size()));
            return compound(round, MINOR_VERSION_0, ops, opsIn(ops));
        });
        assertEquals(NFS4_OK, answered(compound(1, MINOR_VERSION_0, e -> e.writeInt(OP_RENEW).writeHyper(clientId), 1)),
                "the client is still served");
        // mutated rounds left locks on "f" (their CLOSE was mutated away); the valid seeds and the
        // other tests of this class lock it afresh
        FS.locks().releaseAll(o -> true);
        int seeds = seeds40(clientId, new byte[1], fh).size(); // (making the list sends nothing)
        for (int i = 0; i < seeds; i++) { // each with an owner of its own, as in the rounds
            Consumer<XdrEncoder> ops = seeds40(clientId, ("v40-valid-" + i).getBytes(StandardCharsets.UTF_8), fh).get(i);
            assertEquals(NFS4_OK, answered(compound(2, MINOR_VERSION_0, ops, opsIn(ops))), "NFSv4.0 seed " + i);
        }
    }

    /**
     * Sends rdmagate.fuzz.rounds (20,000) calls, each built for its round and then mutated; prints
     * how they ended, and checks that many ran and many were refused by an operation (none threw:
     * {@link #answered}).
     */
    private static void campaign(String what, long seed, java.util.function.BiFunction<Integer, Random, byte[]> call) {
        Random rnd = new Random(seed);
        int rounds = Integer.getInteger("rdmagate.fuzz.rounds", 20_000);
        int[] outcome = new int[3]; // compound ok, compound error, garbage/not answered
        for (int round = 0; round < rounds; round++) {
            int status = answered(CallMutator.mutate(call.apply(round, rnd), rnd));
            outcome[status == NFS4_OK ? 0 : status > 0 ? 1 : 2]++;
        }
        System.out.printf("Nfs4CompoundFuzzTest: %d mutated %s: %d ok, %d with an operation's error, %d garbage"
                + " or unanswered; 0 SYSTEM_ERR, 0 NFS4ERR_SERVERFAULT%n", rounds, what, outcome[0], outcome[1], outcome[2]);
        assertTrue(outcome[0] > rounds / 20, "many mutated COMPOUNDs still ran: " + Arrays.toString(outcome));
        assertTrue(outcome[1] > rounds / 20, "and many were refused by an operation: " + Arrays.toString(outcome));
    }

    /**
     * The COMPOUNDs libnfs's NFSv4.0 sent a real gateway ({@code bench/run seeds}: listings, a file
     * written and read back): each is answered, and none is NFS4ERR_BADXDR, so the decoders take
     * what a real NFSv4.0 client sends. Its filehandles and clientids are another server's: a
     * COMPOUND that starts with PUTFH gets this export's root instead, so what follows runs; the
     * stateful ones end NFS4ERR_STALE_CLIENTID or a stateid error. Then mutated, as the other
     * campaigns are.
     */
    @Test
    void everyCompoundLibnfsMadeIsAnsweredAndMutatedOnesToo() {
        List<byte[]> recorded = new ArrayList<>();
        byte[] root = NfsExports.wire(EXPORTS.all().get(0), FS.root());
        for (byte[] call : NfsCallFuzzTest.recorded("libnfs-nfs4")) {
            if (ByteBuffer.wrap(call).getInt(20) == PROC_COMPOUND) {
                recorded.add(withHandle(call, root));
            }
        }
        assertTrue(recorded.size() >= 20, "the corpus holds libnfs's COMPOUNDs: " + recorded.size());
        java.util.Map<Integer, Integer> statuses = new java.util.TreeMap<>();
        for (byte[] call : recorded) {
            int status = answered(call);
            assertTrue(status >= 0, "answered: " + Arrays.toString(Arrays.copyOf(call, 24)));
            assertNotEquals(NFS4ERR_BADXDR, status, "libnfs's arguments decode");
            statuses.merge(status, 1, Integer::sum);
        }
        System.out.println("Nfs4CompoundFuzzTest: libnfs's " + recorded.size() + " NFSv4.0 COMPOUNDs end " + statuses);
        assertTrue(statuses.getOrDefault(NFS4_OK, 0) >= 5, "its stateless ones run: " + statuses);
        campaign("libnfs NFSv4.0 COMPOUNDs", 7531, (round, rnd) -> recorded.get(rnd.nextInt(recorded.size())));
    }

    /**
     * The COMPOUNDs the Linux kernel client sent a real gateway over NFSv4.0, 4.1 and 4.2
     * ({@code interop/lab/lab.sh seeds}: the common workload, NFSv4.2's features, mount and
     * unmount): each is answered, none NFS4ERR_BADXDR, so the decoders take what the kernel sends.
     * A COMPOUND that starts with SEQUENCE is sent on this test's live session at its slot's next
     * sequence id, and a PUTFH first (or right after SEQUENCE) gets this export's root, so what
     * follows runs; session and client management of the recording server's ids end in a state
     * error. Then mutated, as the other campaigns are.
     */
    @Test
    void everyCompoundTheKernelClientMadeIsAnsweredAndMutatedOnesToo() {
        byte[] root = NfsExports.wire(EXPORTS.all().get(0), FS.root());
        List<byte[]> recorded = new ArrayList<>();
        for (byte[] call : NfsCallFuzzTest.recorded("kernel-nfs4")) {
            if (ByteBuffer.wrap(call).getInt(20) == PROC_COMPOUND) {
                recorded.add(withHandle(call, root));
            }
        }
        assertTrue(recorded.size() >= 40, "the corpus holds the kernel's COMPOUNDs: " + recorded.size());
        byte[][] session = {establish()};
        java.util.function.UnaryOperator<byte[]> onSession = call -> {
            if (SERVER.state().sessionSlotSeqid(session[0], 0) == 0) { // a mutated round destroyed it
                session[0] = establish();
            }
            return inSession(call, session[0], SERVER.state().sessionSlotSeqid(session[0], 0) + 1);
        };
        java.util.Map<String, Integer> statuses = new java.util.TreeMap<>();
        for (byte[] call : recorded) {
            int status = answered(onSession.apply(call));
            assertTrue(status >= 0, "answered: " + Arrays.toString(Arrays.copyOf(call, 24)));
            assertNotEquals(NFS4ERR_BADXDR, status, "the kernel's arguments decode");
            statuses.merge("v4." + minorVersion(call) + " " + status, 1, Integer::sum);
        }
        System.out.println("Nfs4CompoundFuzzTest: the kernel's " + recorded.size() + " COMPOUNDs end " + statuses);
        for (int minor = 0; minor <= 2; minor++) {
            String v = "v4." + minor + " " + NFS4_OK;
            assertTrue(statuses.getOrDefault(v, 0) >= 5, "NFSv4." + minor + "'s COMPOUNDs run: " + statuses);
        }
        campaign("kernel COMPOUNDs", 8276, (round, rnd) -> onSession.apply(recorded.get(rnd.nextInt(recorded.size()))));
    }

    private static int minorVersion(byte[] call) {
        return ByteBuffer.wrap(call).getInt(compoundArgs(call) - 8);
    }

    /** Where a COMPOUND call's first operation starts: after credential, verifier, tag, minorversion and count. */
    private static int compoundArgs(byte[] call) {
        ByteBuffer b = ByteBuffer.wrap(call);
        int at = 24;
        for (int i = 0; i < 2; i++) { // credential and verifier
            at += 8 + ((b.getInt(at + 4) + 3) & ~3);
        }
        return at + 4 + ((b.getInt(at) + 3) & ~3) + 8;
    }

    /**
     * {@code call} on {@code session}, slot 0 at {@code seqid}, when its first operation is
     * SEQUENCE (RFC 8881 §18.46: session id, sequence id, slot, highest slot, cachethis).
     */
    private static byte[] inSession(byte[] call, byte[] session, int seqid) {
        int at = compoundArgs(call);
        ByteBuffer b = ByteBuffer.wrap(call.clone());
        if (b.getInt(at) == OP_SEQUENCE && at + 4 + 32 <= call.length) {
            b.put(at + 4, session).putInt(at + 20, seqid).putInt(at + 24, 0).putInt(at + 28, 0);
        }
        return b.array();
    }

    /**
     * {@code call} with {@code handle} in its first operation, or the one after a leading
     * SEQUENCE, when that is a PUTFH of a handle of the same length.
     */
    private static byte[] withHandle(byte[] call, byte[] handle) {
        ByteBuffer b = ByteBuffer.wrap(call.clone());
        int at = compoundArgs(call);
        if (b.getInt(at) == OP_SEQUENCE && b.getInt(at - 4) > 1) {
            at += 4 + 32; // the PUTFH after SEQUENCE
        }
        if (at + 8 + handle.length <= call.length && b.getInt(at) == OP_PUTFH && b.getInt(at + 4) == handle.length) {
            b.put(at + 8, handle);
        }
        return b.array();
    }

    /** SETCLIENTID and SETCLIENTID_CONFIRM: the confirmed clientid. */
    private static long setClientId(String id) {
        byte[] x = reply(compound(1, MINOR_VERSION_0, e -> {
            e.writeInt(OP_SETCLIENTID).writeHyper(1).writeOpaque(id.getBytes(StandardCharsets.UTF_8));
            e.writeInt(0x40000000).writeString("tcp").writeString("127.0.0.1.3.1").writeInt(1);
        }, 1));
        int resok = results(x) + 24;
        long clientId = ByteBuffer.wrap(x).getLong(resok);
        byte[] confirm = Arrays.copyOfRange(x, resok + 8, resok + 16);
        assertEquals(NFS4_OK, answered(compound(2, MINOR_VERSION_0,
                e -> e.writeInt(OP_SETCLIENTID_CONFIRM).writeHyper(clientId).writeFixedOpaque(confirm), 1)));
        return clientId;
    }

    /**
     * NFSv4.0 seeds of open-owner {@code owner}, new each time. Those after an OPEN send the OPEN
     * first, unmutated, and take its stateid: its first OPEN was seqid 0, so OPEN_CONFIRM is 1 (the
     * stateid's seqid becoming 2) and the next request 2.
     */
    private static List<Consumer<XdrEncoder>> seeds40(long clientId, byte[] owner, byte[] fh) {
        byte[] lockOwner = Arrays.copyOf(owner, owner.length + 1);
        Consumer<XdrEncoder> open = e -> {
            data(e);
            e.writeInt(OP_OPEN).writeInt(0).writeInt(OPEN4_SHARE_ACCESS_BOTH).writeInt(0).writeHyper(clientId)
                    .writeOpaque(owner).writeInt(OPEN4_NOCREATE).writeInt(CLAIM_NULL);
            Nfs4TestClient.name(e, "f");
        };
        java.util.function.Supplier<byte[]> opened = () -> { // the OPEN's stateid other, after its confirmation
            byte[] r = reply(compound(3, MINOR_VERSION_0, open, 3));
            byte[] other = Arrays.copyOfRange(r, results(r) + 44, results(r) + 56); // after 3 results' headers, seqid
            assertEquals(NFS4_OK, answered(compound(4, MINOR_VERSION_0, e -> e.writeInt(OP_PUTFH).writeOpaque(fh)
                    .writeInt(OP_OPEN_CONFIRM).writeInt(1).writeFixedOpaque(other).writeInt(1), 2)));
            return other;
        };
        return List.of(
                ops(1, e -> e.writeInt(OP_RENEW).writeHyper(clientId)),
                ops(1, e -> e.writeInt(OP_SETCLIENTID).writeHyper(2).writeOpaque(owner).writeInt(0x40000000)
                        .writeString("tcp").writeString("127.0.0.1.3.2").writeInt(2)),
                ops(3, open),
                ops(5, e -> {
                    byte[] other = opened.get();
                    e.writeInt(OP_PUTFH).writeOpaque(fh);
                    e.writeInt(OP_LOCK).writeInt(2).writeBool(false).writeHyper(0).writeHyper(10).writeBool(true)
                            .writeInt(2).writeInt(2).writeFixedOpaque(other).writeInt(0).writeHyper(clientId)
                            .writeOpaque(lockOwner);
                    e.writeInt(OP_LOCKT).writeInt(2).writeHyper(0).writeHyper(10).writeHyper(clientId)
                            .writeOpaque(lockOwner);
                    e.writeInt(OP_CLOSE).writeInt(3).writeInt(2).writeFixedOpaque(other);
                    e.writeInt(OP_RELEASE_LOCKOWNER).writeHyper(clientId).writeOpaque(lockOwner);
                }),
                ops(3, e -> {
                    byte[] other = opened.get();
                    e.writeInt(OP_PUTFH).writeOpaque(fh);
                    e.writeInt(OP_OPEN_DOWNGRADE).writeInt(2).writeFixedOpaque(other).writeInt(2)
                            .writeInt(OPEN4_SHARE_ACCESS_READ).writeInt(0);
                    e.writeInt(OP_CLOSE).writeInt(3).writeInt(3).writeFixedOpaque(other);
                }));
    }

    /** EXCHANGE_ID and CREATE_SESSION; the session's id. */
    private static byte[] establish() {
        byte[] x = reply(compound(1, e -> {
            e.writeInt(OP_EXCHANGE_ID);
            Nfs4TestClient.exchangeIdArgs(e, "fuzz-" + System.nanoTime(), 1);
        }, 1));
        ByteBuffer b = ByteBuffer.wrap(x);
        int resok = results(x) + 24; // status, tag "fuzz", count, operation, its status
        long clientId = b.getLong(resok);
        int seq = b.getInt(resok + 8);
        byte[] s = reply(compound(2, e -> {
            e.writeInt(OP_CREATE_SESSION);
            Nfs4TestClient.createSessionArgs(e, clientId, seq, 4);
        }, 1));
        return Arrays.copyOfRange(s, results(s) + 24, results(s) + 40);
    }

    /** Each seed: the operations after SEQUENCE, written after a marker word giving their count. */
    private static List<Consumer<XdrEncoder>> seeds(byte[] session) {
        byte[] owner = "fuzz-owner".getBytes(StandardCharsets.UTF_8);
        List<Consumer<XdrEncoder>> s = new ArrayList<>();
        s.add(ops(2, e -> e.writeInt(OP_PUTROOTFH).writeInt(OP_GETFH)));
        s.add(ops(3, e -> {
            e.writeInt(OP_PUTROOTFH).writeInt(OP_LOOKUP);
            Nfs4TestClient.name(e, "data");
            e.writeInt(OP_GETATTR);
            Nfs4TestClient.bitmap(e, Fattr4.TYPE, Fattr4.SIZE, Fattr4.FSID, Fattr4.OWNER, Fattr4.TIME_MODIFY,
                    Fattr4.SPACE_AVAIL, Fattr4.SUPPORTED_ATTRS);
        }));
        s.add(ops(4, e -> {
            e.writeInt(OP_PUTROOTFH).writeInt(OP_LOOKUP);
            Nfs4TestClient.name(e, "data");
            e.writeInt(OP_READDIR).writeHyper(0).writeHyper(0).writeInt(1024).writeInt(8192);
            Nfs4TestClient.bitmap(e, Fattr4.TYPE, Fattr4.FILEID, Fattr4.MODE, Fattr4.RDATTR_ERROR);
            e.writeInt(OP_LOOKUPP);
        }));
        s.add(ops(5, e -> {
            e.writeInt(OP_PUTROOTFH).writeInt(OP_LOOKUP);
            Nfs4TestClient.name(e, "data");
            e.writeInt(OP_OPEN).writeInt(0).writeInt(OPEN4_SHARE_ACCESS_READ).writeInt(0).writeHyper(0).writeOpaque(owner)
                    .writeInt(OPEN4_NOCREATE).writeInt(CLAIM_NULL);
            Nfs4TestClient.name(e, "f");
            e.writeInt(OP_READ).writeInt(1).writeFixedOpaque(new byte[12]).writeHyper(0).writeInt(4096); // current stateid
            e.writeInt(OP_CLOSE).writeInt(0).writeInt(1).writeFixedOpaque(new byte[12]);
        }));
        s.add(ops(4, e -> {
            e.writeInt(OP_PUTROOTFH).writeInt(OP_LOOKUP);
            Nfs4TestClient.name(e, "data");
            e.writeInt(OP_ACCESS).writeInt(0x3f);
            e.writeInt(OP_SECINFO);
            Nfs4TestClient.name(e, "d");
        }));
        s.add(ops(3, e -> {
            e.writeInt(OP_PUTROOTFH).writeInt(OP_SAVEFH).writeInt(OP_RESTOREFH);
        }));
        s.add(ops(2, e -> {
            e.writeInt(OP_PUTROOTFH).writeInt(OP_SECINFO_NO_NAME).writeInt(0);
        }));
        s.add(ops(1, e -> e.writeInt(OP_TEST_STATEID).writeInt(1).writeInt(1).writeFixedOpaque(new byte[12])));
        s.add(ops(6, e -> {
            data(e);
            e.writeInt(OP_OPEN).writeInt(0).writeInt(OPEN4_SHARE_ACCESS_BOTH).writeInt(0).writeHyper(0).writeOpaque(owner)
                    .writeInt(OPEN4_CREATE).writeInt(0);
            Nfs4TestClient.bitmap(e, Fattr4.MODE);
            e.writeOpaque(Nfs3Client.encode(v -> v.writeInt(0644)));
            e.writeInt(CLAIM_NULL);
            Nfs4TestClient.name(e, "w");
            e.writeInt(OP_WRITE).writeInt(1).writeFixedOpaque(new byte[12]).writeHyper(0).writeInt(2)
                    .writeOpaque(new byte[16]);
            e.writeInt(OP_COMMIT).writeHyper(0).writeInt(0);
            e.writeInt(OP_SETATTR).writeInt(1).writeFixedOpaque(new byte[12]);
            Nfs4TestClient.bitmap(e, Fattr4.SIZE, Fattr4.TIME_MODIFY_SET);
            e.writeOpaque(Nfs3Client.encode(v -> v.writeHyper(8).writeInt(0)));
        }));
        s.add(ops(6, e -> {
            data(e);
            e.writeInt(OP_OPEN).writeInt(0).writeInt(OPEN4_SHARE_ACCESS_BOTH).writeInt(0).writeHyper(0).writeOpaque(owner)
                    .writeInt(OPEN4_NOCREATE).writeInt(CLAIM_NULL);
            Nfs4TestClient.name(e, "f");
            e.writeInt(OP_LOCK).writeInt(2).writeBool(false).writeHyper(0).writeHyper(10).writeBool(true).writeInt(0)
                    .writeInt(1).writeFixedOpaque(new byte[12]).writeInt(0).writeHyper(0).writeOpaque(owner);
            e.writeInt(OP_LOCKT).writeInt(2).writeHyper(100).writeHyper(10).writeHyper(0).writeOpaque(new byte[] {7});
            e.writeInt(OP_LOCKU).writeInt(2).writeInt(0).writeInt(1).writeFixedOpaque(new byte[12]).writeHyper(0)
                    .writeHyper(-1L);
        }));
        s.add(ops(7, e -> {
            data(e);
            e.writeInt(OP_SAVEFH).writeInt(OP_CREATE).writeInt(NF4DIR);
            Nfs4TestClient.name(e, "x");
            Nfs4TestClient.bitmap(e);
            e.writeOpaque(new byte[0]);
            e.writeInt(OP_RESTOREFH).writeInt(OP_RENAME);
            Nfs4TestClient.name(e, "x");
            Nfs4TestClient.name(e, "y");
            e.writeInt(OP_REMOVE);
            Nfs4TestClient.name(e, "y");
        }));
        s.add(ops(8, e -> {
            data(e);
            e.writeInt(OP_LOOKUP);
            Nfs4TestClient.name(e, "f");
            e.writeInt(OP_SAVEFH);
            data(e);
            e.writeInt(OP_LINK);
            Nfs4TestClient.name(e, "l");
            e.writeInt(OP_REMOVE);
            Nfs4TestClient.name(e, "l");
        }));
        s.add(ops(4, e -> {
            data(e);
            e.writeInt(OP_OPEN).writeInt(0).writeInt(OPEN4_SHARE_ACCESS_BOTH).writeInt(0).writeHyper(0)
                    .writeOpaque("downgrade".getBytes(StandardCharsets.UTF_8)).writeInt(OPEN4_NOCREATE).writeInt(CLAIM_NULL);
            Nfs4TestClient.name(e, "f");
            e.writeInt(OP_OPEN_DOWNGRADE).writeInt(1).writeFixedOpaque(new byte[12]).writeInt(0)
                    .writeInt(OPEN4_SHARE_ACCESS_READ).writeInt(0);
        }));
        s.add(ops(2, e -> {
            e.writeInt(OP_PUTFH).writeOpaque(NfsExports.wire(EXPORTS.all().get(0), FS.root()));
            e.writeInt(OP_GETFH);
        }));
        // NFSv4.2 (RFC 7862, RFC 8276), with the anonymous stateid
        byte[] anonymous = new byte[12];
        s.add(ops(8, e -> {
            data(e);
            e.writeInt(OP_LOOKUP);
            Nfs4TestClient.name(e, "s");
            e.writeInt(OP_ALLOCATE).writeInt(0).writeFixedOpaque(anonymous).writeHyper(0).writeHyper(200_000);
            e.writeInt(OP_SEEK).writeInt(0).writeFixedOpaque(anonymous).writeHyper(0).writeInt(NFS4_CONTENT_DATA);
            e.writeInt(OP_READ_PLUS).writeInt(0).writeFixedOpaque(anonymous).writeHyper(0).writeInt(4096);
            e.writeInt(OP_DEALLOCATE).writeInt(0).writeFixedOpaque(anonymous).writeHyper(0).writeHyper(65536);
            e.writeInt(OP_IO_ADVISE).writeInt(0).writeFixedOpaque(anonymous).writeHyper(0).writeHyper(10);
            Nfs4TestClient.bitmap(e, 1);
        }));
        s.add(ops(9, e -> {
            data(e);
            e.writeInt(OP_LOOKUP);
            Nfs4TestClient.name(e, "s");
            e.writeInt(OP_SAVEFH);
            data(e);
            e.writeInt(OP_LOOKUP);
            Nfs4TestClient.name(e, "t");
            e.writeInt(OP_COPY).writeInt(0).writeFixedOpaque(anonymous).writeInt(0).writeFixedOpaque(anonymous)
                    .writeHyper(0).writeHyper(0).writeHyper(0).writeBool(true).writeBool(false).writeInt(0);
            e.writeInt(OP_CLONE).writeInt(0).writeFixedOpaque(anonymous).writeInt(0).writeFixedOpaque(anonymous)
                    .writeHyper(0).writeHyper(0).writeHyper(0);
        }));
        s.add(ops(7, e -> {
            data(e);
            e.writeInt(OP_LOOKUP);
            Nfs4TestClient.name(e, "f");
            e.writeInt(OP_SETXATTR).writeInt(0);
            Nfs4TestClient.name(e, "k");
            e.writeOpaque(new byte[] {1, 2, 3});
            e.writeInt(OP_GETXATTR);
            Nfs4TestClient.name(e, "k");
            e.writeInt(OP_LISTXATTRS).writeHyper(0).writeInt(4096);
            e.writeInt(OP_REMOVEXATTR);
            Nfs4TestClient.name(e, "k");
        }));
        return s;
    }

    /** PUTROOTFH, LOOKUP "data": two operations. */
    private static void data(XdrEncoder e) {
        e.writeInt(OP_PUTROOTFH).writeInt(OP_LOOKUP);
        Nfs4TestClient.name(e, "data");
    }

    private static Consumer<XdrEncoder> ops(int count, Consumer<XdrEncoder> ops) {
        return new Consumer<>() {
            @Override
            public void accept(XdrEncoder e) {
                ops.accept(e);
            }

            @Override
            public String toString() {
                return Integer.toString(count);
            }
        };
    }

    private static int opsIn(Consumer<XdrEncoder> ops) {
        return Integer.parseInt(ops.toString());
    }

    private static byte[] compound(int xid, Consumer<XdrEncoder> ops, int count) {
        return compound(xid, MINOR_VERSION_2, ops, count); // NFSv4.2: every operation of 4.1 and 4.2's
    }

    private static byte[] compound(int xid, int minor, Consumer<XdrEncoder> ops, int count) {
        byte[] args = Nfs3Client.encode(e -> {
            e.writeOpaque("fuzz".getBytes(StandardCharsets.UTF_8));
            e.writeInt(minor);
            e.writeInt(count);
            ops.accept(e);
        });
        return Nfs3Client.encode(e -> {
            e.writeInt(xid).writeInt(Rpc.CALL).writeInt(Rpc.VERSION).writeInt(PROGRAM).writeInt(VERSION)
                    .writeInt(PROC_COMPOUND);
            byte[] cred = Nfs3Client.encode(c -> c.writeInt(1).writeString("fuzz").writeInt(0).writeInt(0).writeInt(0));
            e.writeInt(1).writeOpaque(cred).writeInt(0).writeInt(0);
            e.writeFixedOpaque(args);
        });
    }

    private static byte[] reply(byte[] message) {
        return Dispatched.reply(DISPATCHER, message, CONNECTION);
    }

    /** Where a successful reply's results start (after the accepted header). */
    private static int results(byte[] r) {
        int verfLength = ByteBuffer.wrap(r).getInt(16);
        return 24 + ((verfLength + 3) & ~3);
    }

    /** The COMPOUND's status, or -1 when not answered with results. Fails on SYSTEM_ERR and NFS4ERR_SERVERFAULT. */
    private static int answered(byte[] message) {
        byte[] r = reply(message);
        if (r == null) {
            return -1;
        }
        ByteBuffer b = ByteBuffer.wrap(r);
        assertTrue(r.length >= 12, "a reply header");
        assertEquals(ByteBuffer.wrap(message).getInt(0), b.getInt(0), "the call's xid");
        if (b.getInt(8) != Rpc.MSG_ACCEPTED) {
            return -1;
        }
        int stat = b.getInt(20 + ((b.getInt(16) + 3) & ~3));
        assertNotEquals(Rpc.SYSTEM_ERR, stat, "an operation threw");
        if (stat != Rpc.SUCCESS || ByteBuffer.wrap(message).getInt(12) != PROGRAM
                || ByteBuffer.wrap(message).getInt(20) != PROC_COMPOUND || r.length < results(r) + 4) {
            return -1;
        }
        int status = b.getInt(results(r));
        assertNotEquals(NFS4ERR_SERVERFAULT, status, "an operation threw on its input");
        return status;
    }
}
