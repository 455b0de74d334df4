package io.rdmagate.nfs;

import static io.rdmagate.nfs.v4.Nfs4.*;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.rdmagate.gateway.spi.config.ClientRule.Access;
import io.rdmagate.nfs.Nfs4TestClient.Reply;
import io.rdmagate.nfs.v4.Nfs4Server;
import io.rdmagate.oncrpc.rpc.AuthFlavor;
import io.rdmagate.oncrpc.rpc.ReplyHeaders;
import io.rdmagate.oncrpc.rpc.Rpc;
import io.rdmagate.oncrpc.xdr.XdrDecoder;
import io.rdmagate.oncrpc.xdr.XdrEncoder;
import io.rdmagate.vfs.ExportOptions;
import io.rdmagate.vfs.inmemory.InMemoryFileSystem;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The NFSv4.1 back channel over TCP (RFC 8881 §2.10.3.1), with a client that serves callbacks on
 * its own connection as the Linux client does: CREATE_SESSION grants CONN_BACK_CHAN and the server
 * probes the path with CB_NULL; a path that refuses the probe, or whose connection is gone, is
 * reported by SEQUENCE (SEQ4_STATUS_CB_PATH_DOWN) until the client binds another connection to
 * the back channel (BIND_CONN_TO_SESSION).
 */
class Nfs4BackChannelTest {
    private static final int CB_PROGRAM = 0x40000000;
    private static final int CDFC4_BACK = 2;
    private static final int CDFC4_BACK_OR_BOTH = 7;
    private static final int CDFS4_BOTH = 3;

    private NfsFixture fx;
    private final java.util.List<Nfs4TestClient> clients = new java.util.ArrayList<>();

    /** A call the client's callback service received. */
    record Received(int prog, int vers, int proc, int flavor) {
    }

    @BeforeEach
    void start() throws Exception {
        fx = new NfsFixture(List.of(NfsFixture.export(0, "data", InMemoryFileSystem.create(11, ExportOptions.DEFAULT),
                NfsFixture.rule("127.0.0.0/8", Access.RW, false, false))), h -> null, new SimpleMeterRegistry(),
                Nfs4Server.Options.DEFAULT);
    }

    @AfterEach
    void stop() {
        clients.forEach(Nfs4TestClient::close);
        fx.close();
    }

    /** A client connection whose callback service records each call and answers with {@code acceptStat}. */
    private Nfs4TestClient client(BlockingQueue<Received> got, int acceptStat) throws IOException {
        Nfs4TestClient c = Nfs4TestClient.connect(fx.nfs(), NfsFixture.ROOT);
        clients.add(c);
        c.rpc.serveCalls(callbackService(got, acceptStat));
        return c;
    }

    static Function<byte[], byte[]> callbackService(BlockingQueue<Received> got, int acceptStat) {
        return call -> {
            ByteBuf b = Unpooled.wrappedBuffer(call);
            int xid = b.getInt(0);
            got.add(new Received(b.getInt(12), b.getInt(16), b.getInt(20), b.getInt(24)));
            ByteBuf r = ReplyHeaders.accepted(Unpooled.buffer(), xid, acceptStat);
            byte[] out = new byte[r.readableBytes()];
            r.readBytes(out);
            return out;
        };
    }

    static final Consumer<XdrEncoder> AUTH_SYS_CB = e -> {
        e.writeInt(1);
        e.writeInt(AuthFlavor.AUTH_SYS);
        e.writeInt(7); // stamp
        e.writeOpaque("client".getBytes(StandardCharsets.US_ASCII));
        e.writeInt(0);
        e.writeInt(0);
        e.writeInt(0); // no gids
    };

    static final Consumer<XdrEncoder> GSS_ONLY_CB = e -> {
        e.writeInt(1);
        e.writeInt(6); // RPCSEC_GSS
        e.writeInt(1); // service
        e.writeOpaque(new byte[4]);
        e.writeOpaque(new byte[4]);
    };

    /** EXCHANGE_ID, CREATE_SESSION with these flags and callback security, RECLAIM_COMPLETE; the flags granted. */
    static int establish(Nfs4TestClient c, String owner, int flags, Consumer<XdrEncoder> cbSec) throws IOException {
        Reply x = c.compoundWithoutSession().op(OP_EXCHANGE_ID, e -> Nfs4TestClient.exchangeIdArgs(e, owner, 1)).send();
        XdrDecoder d = x.next(OP_EXCHANGE_ID, NFS4_OK);
        c.clientId = Nfs4TestClient.read(d::readHyper);
        int seq = Nfs4TestClient.read(d::readInt);
        Reply s = c.compoundWithoutSession().op(OP_CREATE_SESSION, e -> {
            e.writeHyper(c.clientId);
            e.writeInt(seq);
            e.writeInt(flags);
            Nfs4TestClient.channel(e, 16);
            Nfs4TestClient.channel(e, 1);
            e.writeInt(CB_PROGRAM);
            cbSec.accept(e);
        }).send();
        XdrDecoder cs = s.next(OP_CREATE_SESSION, NFS4_OK);
        c.sessionId = Nfs4TestClient.read(() -> cs.readFixedOpaque(NFS4_SESSIONID_SIZE));
        Nfs4TestClient.read(cs::readInt); // sequence
        int granted = Nfs4TestClient.read(cs::readInt);
        c.slotSeq = 0;
        assertEquals(NFS4_OK, c.compound().op(OP_RECLAIM_COMPLETE, e -> e.writeBool(false)).send().status);
        return granted;
    }

    /** sr_status_flags of a SEQUENCE on the client's session. */
    static int statusFlags(Nfs4TestClient c) throws IOException {
        XdrDecoder d = c.compound().send().next(OP_SEQUENCE, NFS4_OK);
        Nfs4TestClient.skip(d, 16 + 16);
        return Nfs4TestClient.read(d::readInt);
    }

    /** Waits, up to 10 s, for SEQUENCE to report {@code flags}. */
    static int awaitStatusFlags(Nfs4TestClient c, int flags) throws Exception {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        int f = statusFlags(c);
        while (f != flags && System.nanoTime() < end) {
            Thread.sleep(20);
            f = statusFlags(c);
        }
        return f;
    }

    /** Waits, up to 10 s, for the gauges' counts (rdmagate_nfs4_back_channels{state="up"|"down"}). */
    private void awaitBackChannels(int up, int down) throws InterruptedException {
        var state = fx.server.nfs4().state();
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while ((state.backChannels(false) != up || state.backChannels(true) != down) && System.nanoTime() < end) {
            Thread.sleep(20);
        }
        assertEquals(up + " up, " + down + " down", state.backChannels(false) + " up, " + state.backChannels(true) + " down");
    }

    @Test
    void aClientThatAsksForABackChannelGetsOneAndItsCallbackServiceIsProbed() throws Exception {
        BlockingQueue<Received> got = new LinkedBlockingQueue<>();
        Nfs4TestClient c = client(got, Rpc.SUCCESS);
        int granted = establish(c, "cb-1", CREATE_SESSION4_FLAG_CONN_BACK_CHAN, AUTH_SYS_CB);
        assertTrue((granted & CREATE_SESSION4_FLAG_CONN_BACK_CHAN) != 0, "the back channel is granted");
        Received probe = got.poll(10, TimeUnit.SECONDS);
        assertEquals(new Received(CB_PROGRAM, 1, 0, AuthFlavor.AUTH_SYS), probe,
                "CB_NULL to the client's callback program, version 1, with the credential it asked for");
        assertEquals(0, statusFlags(c), "the path is up");
        awaitBackChannels(1, 0);
    }

    @Test
    void aPathThatRefusesItsProbeIsDownUntilAnotherConnectionIsBoundAndDownAgainWhenThatCloses() throws Exception {
        BlockingQueue<Received> refused = new LinkedBlockingQueue<>();
        Nfs4TestClient c = client(refused, Rpc.PROG_UNAVAIL);
        assertTrue((establish(c, "cb-2", CREATE_SESSION4_FLAG_CONN_BACK_CHAN, AUTH_SYS_CB)
                & CREATE_SESSION4_FLAG_CONN_BACK_CHAN) != 0);
        assertNotNull(refused.poll(10, TimeUnit.SECONDS), "probed");
        assertEquals(SEQ4_STATUS_CB_PATH_DOWN, awaitStatusFlags(c, SEQ4_STATUS_CB_PATH_DOWN),
                "a probe that is not accepted puts the path down");
        awaitBackChannels(0, 1);

        BlockingQueue<Received> got = new LinkedBlockingQueue<>();
        Nfs4TestClient other = client(got, Rpc.SUCCESS);
        XdrDecoder d = other.compoundWithoutSession().op(OP_BIND_CONN_TO_SESSION, e -> {
            e.writeFixedOpaque(c.sessionId);
            e.writeInt(CDFC4_BACK_OR_BOTH);
            e.writeBool(false);
        }).send().next(OP_BIND_CONN_TO_SESSION, NFS4_OK);
        Nfs4TestClient.skip(d, 16);
        assertEquals(CDFS4_BOTH, (int) Nfs4TestClient.read(d::readInt), "the new connection carries both channels");
        assertEquals(new Received(CB_PROGRAM, 1, 0, AuthFlavor.AUTH_SYS), got.poll(10, TimeUnit.SECONDS),
                "the new path is probed");
        assertEquals(0, awaitStatusFlags(c, 0), "and is up");
        awaitBackChannels(1, 0);

        other.close();
        assertEquals(SEQ4_STATUS_CB_PATH_DOWN, awaitStatusFlags(c, SEQ4_STATUS_CB_PATH_DOWN),
                "the back channel's connection closed");
    }

    @Test
    void noBackChannelUnlessAskedForWithCallbackSecurityTheServerCanUse() throws Exception {
        BlockingQueue<Received> got = new LinkedBlockingQueue<>();
        Nfs4TestClient c = client(got, Rpc.SUCCESS);
        assertEquals(0, establish(c, "cb-3", 0, AUTH_SYS_CB) & CREATE_SESSION4_FLAG_CONN_BACK_CHAN, "not asked");
        assertEquals(0, statusFlags(c), "no back channel, none down");
        c.compoundWithoutSession().op(OP_BIND_CONN_TO_SESSION, e -> {
            e.writeFixedOpaque(c.sessionId);
            e.writeInt(CDFC4_BACK);
            e.writeBool(false);
        }).send().next(OP_BIND_CONN_TO_SESSION, NFS4ERR_INVAL);

        Nfs4TestClient gss = client(got, Rpc.SUCCESS);
        assertEquals(0, establish(gss, "cb-4", CREATE_SESSION4_FLAG_CONN_BACK_CHAN, GSS_ONLY_CB)
                & CREATE_SESSION4_FLAG_CONN_BACK_CHAN, "RPCSEC_GSS callbacks are not made");
        assertEquals(0, statusFlags(gss));
        assertNull(got.poll(200, TimeUnit.MILLISECONDS), "nobody was called");
    }
}
