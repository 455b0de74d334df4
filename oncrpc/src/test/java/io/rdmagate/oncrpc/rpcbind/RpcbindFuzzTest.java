package io.rdmagate.oncrpc.rpcbind;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.rdmagate.oncrpc.rpc.AuthSys;
import io.rdmagate.oncrpc.rpc.CallHeaders;
import io.rdmagate.oncrpc.rpc.CallMutator;
import io.rdmagate.oncrpc.rpc.Dispatched;
import io.rdmagate.oncrpc.rpc.Rpc;
import io.rdmagate.oncrpc.server.Connection;
import io.rdmagate.oncrpc.server.RpcDispatcher;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/**
 * A fixed-seed, structure-aware mutation campaign against the embedded rpcbind (RFC 1833):
 * every procedure of portmap version 2 and rpcbind versions 3 and 4, valid calls mutated as the
 * NFS campaigns mutate theirs ({@link CallMutator}), dispatched in memory from the host itself
 * (so SET and UNSET act on the table) and from another address (so they are refused). Every call
 * is answered with a result, GARBAGE_ARGS, PROC_UNAVAIL, PROG_MISMATCH or a rejection, never
 * SYSTEM_ERR or an exception; the table never holds more than its bound however many SETs come,
 * and what it holds afterwards can be removed, registered and found again.
 * {@code -Drdmagate.fuzz.rounds=N} runs longer.
 */
class RpcbindFuzzTest {
    private static final int MOUNT = 100005;
    private static final int BOUND = 64;
    private static final Connection LOCAL = new Connection(1, new InetSocketAddress("127.0.0.1", 700),
            new InetSocketAddress("127.0.0.1", 111), "tcp");
    private static final Connection REMOTE = new Connection(2, new InetSocketAddress("192.0.2.1", 700),
            new InetSocketAddress("192.0.2.2", 111), "tcp");

    private final RpcbindRegistry registry = new RpcbindRegistry(BOUND);
    private final RpcDispatcher dispatcher = new RpcDispatcher(null, PooledByteBufAllocator.DEFAULT)
            .register(new RpcbindProgram(registry, null));

    @Test
    void mutatedCallsOfEveryProcedureAreAnswered() {
        registry.set(new Mapping(MOUNT, 3, "tcp", 20048, "superuser"));
        List<byte[]> seeds = seeds();
        for (byte[] seed : seeds) { // CALLIT, INDIRECT, UADDR2TADDR and GETVERSADDR are PROC_UNAVAIL (RpcbindTest)
            int stat = answered(seed, LOCAL);
            assertTrue(stat == Rpc.SUCCESS || stat == Rpc.PROC_UNAVAIL, "seed " + Arrays.toString(Arrays.copyOf(seed, 24))
                    + ": " + stat);
        }
        Random rnd = new Random(1833);
        long rounds = Long.getLong("rdmagate.fuzz.rounds", 100_000);
        int[] byStat = new int[8];
        int unanswered = 0;
        int mostMappings = 0;
        long t0 = System.nanoTime();
        for (long round = 0; round < rounds; round++) {
            byte[] m = CallMutator.mutate(seeds.get(rnd.nextInt(seeds.size())), rnd);
            int stat = answered(m, rnd.nextInt(8) == 0 ? REMOTE : LOCAL);
            if (stat >= 0) {
                byStat[stat]++;
            } else {
                unanswered++;
            }
            mostMappings = Math.max(mostMappings, registry.list().size());
        }
        System.out.printf("RpcbindFuzzTest: %d mutated calls in %.1f s, accept_stat counts %s, %d rejected or not calls,"
                + " at most %d mappings; 0 SYSTEM_ERR%n", rounds, (System.nanoTime() - t0) / 1e9, Arrays.toString(byStat),
                unanswered, mostMappings);
        assertTrue(mostMappings <= BOUND, "the table holds at most its bound: " + mostMappings);
        assertTrue(byStat[Rpc.SUCCESS] > rounds / 10, "many mutated calls still ran: " + Arrays.toString(byStat));
        assertTrue(byStat[Rpc.GARBAGE_ARGS] > rounds / 100, "and many were refused as garbage: " + Arrays.toString(byStat));
        for (Mapping m : registry.list()) { // whatever the campaign registered can be removed
            assertTrue(registry.unset(m.program(), m.version(), m.netid()), m.toString());
        }
        assertEquals(List.of(), registry.list());
        assertTrue(registry.set(new Mapping(MOUNT, 3, "tcp", 20048, "superuser")));
        assertEquals(20048, registry.lookup(MOUNT, 3, "tcp", true).port(), "a registration is found after the campaign");
    }

    @Test
    void setsBeyondTheBoundFailAndUnsetMakesRoom() {
        for (int i = 0; i < BOUND; i++) {
            assertEquals(1, pmapSet(MOUNT + i));
        }
        assertEquals(BOUND, registry.list().size());
        assertEquals(0, pmapSet(MOUNT + BOUND), "a SET beyond the bound answers FALSE");
        assertEquals(BOUND, registry.list().size());
        registry.unset(MOUNT, 1, null);
        assertEquals(1, pmapSet(MOUNT + BOUND), "after an UNSET there is room again");
    }

    /** PMAPPROC_SET of version 1 of {@code program} on TCP; its boolean result. */
    private int pmapSet(int program) {
        byte[] reply = reply(call(Rpcbind.PROGRAM, 2, Rpcbind.PMAPPROC_SET,
                a -> a.writeInt(program).writeInt(1).writeInt(Rpcbind.IPPROTO_TCP).writeInt(3000)), LOCAL);
        return ByteBuffer.wrap(reply).getInt(reply.length - 4);
    }

    /** A valid call of every procedure of every version. */
    private static List<byte[]> seeds() {
        List<byte[]> s = new ArrayList<>();
        int p = Rpcbind.PROGRAM;
        s.add(call(p, 2, Rpcbind.PMAPPROC_NULL, a -> { }));
        s.add(call(p, 2, Rpcbind.PMAPPROC_SET, a -> a.writeInt(MOUNT).writeInt(1).writeInt(Rpcbind.IPPROTO_UDP).writeInt(20049)));
        s.add(call(p, 2, Rpcbind.PMAPPROC_UNSET, a -> a.writeInt(MOUNT).writeInt(1).writeInt(0).writeInt(0)));
        s.add(call(p, 2, Rpcbind.PMAPPROC_GETPORT, a -> a.writeInt(MOUNT).writeInt(3).writeInt(Rpcbind.IPPROTO_TCP).writeInt(0)));
        s.add(call(p, 2, Rpcbind.PMAPPROC_DUMP, a -> { }));
        s.add(call(p, 2, Rpcbind.PMAPPROC_CALLIT, a -> opaque(a.writeInt(MOUNT).writeInt(3).writeInt(0), new byte[0])));
        for (int v = 3; v <= 4; v++) {
            s.add(call(p, v, Rpcbind.RPCBPROC_NULL, a -> { }));
            s.add(call(p, v, Rpcbind.RPCBPROC_SET, a -> rpcb(a, MOUNT + 1, 3, "tcp", "127.0.0.1.78.80", "superuser")));
            s.add(call(p, v, Rpcbind.RPCBPROC_UNSET, a -> rpcb(a, MOUNT + 1, 3, "", "", "superuser")));
            s.add(call(p, v, Rpcbind.RPCBPROC_GETADDR, a -> rpcb(a, MOUNT, 3, "tcp", "", "")));
            s.add(call(p, v, Rpcbind.RPCBPROC_DUMP, a -> { }));
            s.add(call(p, v, Rpcbind.RPCBPROC_GETTIME, a -> { }));
            s.add(call(p, v, Rpcbind.RPCBPROC_UADDR2TADDR, a -> string(a, "127.0.0.1.8.1")));
            s.add(call(p, v, Rpcbind.RPCBPROC_TADDR2UADDR, a -> opaque(a.writeInt(16), new byte[] {0, 2, 8, 1, 127, 0, 0, 1})));
        }
        s.add(call(p, 4, Rpcbind.RPCBPROC_GETVERSADDR, a -> rpcb(a, MOUNT, 3, "tcp", "", "")));
        s.add(call(p, 4, Rpcbind.RPCBPROC_GETADDRLIST, a -> rpcb(a, MOUNT, 3, "tcp", "", "")));
        s.add(call(p, 4, Rpcbind.RPCBPROC_GETSTAT, a -> { }));
        s.add(call(p, 4, Rpcbind.RPCBPROC_INDIRECT, a -> opaque(a.writeInt(MOUNT).writeInt(3).writeInt(0), new byte[0])));
        return s;
    }

    private static byte[] call(int prog, int vers, int proc, Consumer<ByteBuf> args) {
        ByteBuf b = CallHeaders.write(Unpooled.buffer(), 7, prog, vers, proc, new AuthSys(0, "fuzz", 0, 0, new int[0]));
        args.accept(b);
        return ByteBufUtil.getBytes(b);
    }

    private static void rpcb(ByteBuf a, int prog, int vers, String netid, String addr, String owner) {
        a.writeInt(prog).writeInt(vers);
        string(a, netid);
        string(a, addr);
        string(a, owner);
    }

    private static void string(ByteBuf a, String s) {
        opaque(a, s.getBytes(StandardCharsets.US_ASCII));
    }

    private static ByteBuf opaque(ByteBuf a, byte[] b) {
        a.writeInt(b.length).writeBytes(b).writeZero((4 - b.length % 4) % 4);
        return a;
    }

    private byte[] reply(byte[] message, Connection from) {
        return Dispatched.reply(dispatcher, message, from);
    }

    /** Dispatches one message; its accept_stat, or -1 when rejected or not answered. Fails on SYSTEM_ERR. */
    private int answered(byte[] message, Connection from) {
        return Dispatched.acceptStat(dispatcher, message, from);
    }
}
