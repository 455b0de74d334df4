package io.rdmagate.nfs;

import static io.rdmagate.nfs.v4.Nfs4.*;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.rdmagate.gateway.spi.config.ClientRule.Access;
import io.rdmagate.nfs.v4.Nfs4Server;
import io.rdmagate.nfs.v4.callback.Callbacks;
import io.rdmagate.nfs.v4.state.Session;
import io.rdmagate.oncrpc.rpc.CallMutator;
import io.rdmagate.oncrpc.rpc.ReplyHeaders;
import io.rdmagate.oncrpc.rpc.Rpc;
import io.rdmagate.vfs.ExportOptions;
import io.rdmagate.vfs.inmemory.InMemoryFileSystem;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * What an NFSv4.1 client answers to the server's callbacks (RFC 8881 §20: CB_COMPOUND4res after
 * an RFC 5531 §9 reply header), driven by a fixed-seed mutation campaign over a valid reply to
 * CB_SEQUENCE + CB_RECALL_ANY. Over a live back channel (the client's own TCP connection), every
 * callback completes with the status the reply carries, or -1 for a reply that is not an accepted
 * one or does not decode, never an exception; its slot is released each time (the next callback
 * goes out), and after the campaign the path is up and a well-formed reply is taken as before.
 * In memory, the same decoding of 100 times as many replies. The mutations leave the xid and
 * msg_type alone: a reply with another xid is one no call waits for (dropped, the call times out),
 * and a CALL is a call. {@code -Drdmagate.fuzz.rounds=N} sets the number of inputs.
 */
class CallbackReplyFuzzTest {
    private static final int ROUNDS = Integer.getInteger("rdmagate.fuzz.rounds", 3000);

    /** A client's reply to CB_COMPOUND {CB_SEQUENCE, CB_RECALL_ANY} with xid {@code xid}: all NFS4_OK. */
    static byte[] reply(int xid, byte[] sessionId, int sequence) {
        ByteBuf r = ReplyHeaders.accepted(Unpooled.buffer(), xid, Rpc.SUCCESS);
        r.writeInt(NFS4_OK).writeInt(0).writeInt(2); // status, empty tag, two results
        r.writeInt(11).writeInt(NFS4_OK).writeBytes(sessionId).writeInt(sequence).writeInt(0).writeInt(0).writeInt(0);
        r.writeInt(8).writeInt(NFS4_OK); // CB_RECALL_ANY
        byte[] out = new byte[r.readableBytes()];
        r.readBytes(out);
        return out;
    }

    /** Mutates a reply after its xid and msg_type (at least those 8 bytes stay). */
    static byte[] mutate(byte[] reply, Random rnd) {
        byte[] tail = CallMutator.mutate(Arrays.copyOfRange(reply, 8, reply.length), rnd);
        byte[] m = Arrays.copyOf(reply, 8 + tail.length);
        System.arraycopy(tail, 0, m, 8, tail.length);
        return m;
    }

    @Test
    void mutatedRepliesOnALiveBackChannelCompleteEveryCallback() throws Exception {
        try (NfsFixture fx = new NfsFixture(List.of(NfsFixture.export(0, "data",
                InMemoryFileSystem.create(11, ExportOptions.DEFAULT), NfsFixture.rule("127.0.0.0/8", Access.RW, false, false))),
                h -> null, new SimpleMeterRegistry(), Nfs4Server.Options.DEFAULT)) {
            Random rnd = new Random(0xcb20);
            AtomicReference<Boolean> mutating = new AtomicReference<>(false);
            BlockingQueue<Nfs4BackChannelTest.Received> got = new LinkedBlockingQueue<>();
            var wellFormed = Nfs4BackChannelTest.callbackService(got, Rpc.SUCCESS);
            byte[][] session = new byte[1][];
            Nfs4TestClient c = Nfs4TestClient.connect(fx.nfs(), NfsFixture.ROOT);
            try {
                c.rpc.serveCalls(call -> {
                    ByteBuf b = Unpooled.wrappedBuffer(call);
                    if (!mutating.get() || b.getInt(20) != 1) {
                        return wellFormed.apply(call);
                    }
                    return mutate(reply(b.getInt(0), session[0], 1), rnd); // the server reads only the status
                });
                Nfs4BackChannelTest.establish(c, "cb-fuzz", CREATE_SESSION4_FLAG_CONN_BACK_CHAN, Nfs4BackChannelTest.AUTH_SYS_CB);
                session[0] = c.sessionId;
                assertTrue(got.poll(10, TimeUnit.SECONDS) != null, "probed");
                Session s = fx.server.nfs4().state().session(c.sessionId);
                assertEquals(0, (int) Callbacks.recallAny(s.back(), s.id(), 0).get(10, TimeUnit.SECONDS),
                        "a well-formed reply: NFS4_OK");

                mutating.set(true);
                Map<String, Integer> outcomes = new TreeMap<>();
                for (int round = 0; round < ROUNDS; round++) {
                    int status = Callbacks.recallAny(s.back(), s.id(), 0).get(20, TimeUnit.SECONDS);
                    outcomes.merge(status == -1 ? "not accepted or cut" : status == NFS4_OK ? "NFS4_OK" : "an error status",
                            1, Integer::sum);
                }
                mutating.set(false);
                System.out.printf("CallbackReplyFuzzTest: %d mutated CB_COMPOUND replies over TCP, outcomes %s%n", ROUNDS,
                        outcomes);
                assertTrue(outcomes.size() == 3, "every outcome is exercised: " + outcomes);
                assertEquals(0, (int) Callbacks.recallAny(s.back(), s.id(), 0).get(10, TimeUnit.SECONDS),
                        "a well-formed reply is taken as before");
                assertEquals(0, Nfs4BackChannelTest.statusFlags(c), "the path is up");
            } finally {
                c.close();
            }
        }
    }

    @Test
    void mutatedRepliesDecodedInMemoryGiveTheirStatusOrMinusOne() {
        long rounds = 100L * ROUNDS;
        Random rnd = new Random(0xcb21);
        byte[] seed = reply(0x1234, new byte[16], 1);
        Map<String, Long> outcomes = new TreeMap<>();
        long t0 = System.nanoTime();
        for (long round = 0; round < rounds; round++) {
            byte[] m = mutate(seed, rnd);
            ByteBuf b = Unpooled.wrappedBuffer(m);
            int status = Callbacks.compoundStatus(b);
            assertEquals(0, b.readerIndex(), "the reply is read through a duplicate");
            boolean acceptedHeader = m.length >= 24 && getInt(m, 8) == Rpc.MSG_ACCEPTED && getInt(m, 12) == 0
                    && getInt(m, 16) == 0 && getInt(m, 20) == Rpc.SUCCESS;
            if (acceptedHeader && m.length >= 28) {
                assertEquals(getInt(m, 24), status, "the status after an accepted header with an empty verifier");
            } else if (!acceptedHeader && getInt(m, 8) != Rpc.MSG_ACCEPTED) {
                assertEquals(-1, status, "not an accepted reply");
            }
            outcomes.merge(status == -1 ? "-1" : status == 0 ? "NFS4_OK" : "other status", 1L, Long::sum);
        }
        System.out.printf("CallbackReplyFuzzTest: %d mutated CB_COMPOUND replies decoded in memory in %.1f s, outcomes %s%n",
                rounds, (System.nanoTime() - t0) / 1e9, outcomes);
        assertEquals(3, outcomes.size(), "every outcome is exercised: " + outcomes);
    }

    private static int getInt(byte[] m, int at) {
        return at + 4 <= m.length ? java.nio.ByteBuffer.wrap(m).getInt(at) : -1;
    }
}
