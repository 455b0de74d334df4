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
    /** Every call the clients' callback services received, whole. */
    private static final BlockingQueue<byte[]> CALLS = new LinkedBlockingQueue<>();

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

    /** Answers CB_NULL with nothing and CB_COMPOUND with NFS4_OK and no results (enough for the server). */
    static Function<byte[], byte[]> callbackService(BlockingQueue<Received> got, int acceptStat) {
        return call -> {
            ByteBuf b = Unpooled.wrappedBuffer(call);
            int xid = b.getInt(0);
            // CALLS first: a test that waits on got and then clears CALLS must find this call there
            CALLS.add(call);
            got.add(new Received(b.getInt(12), b.getInt(16), b.getInt(20), b.getInt(24)));
            ByteBuf r = ReplyHeaders.accepted(Unpooled.buffer(), xid, acceptStat);
            if (acceptStat == Rpc.SUCCESS && b.getInt(20) == 1) {
                r.writeInt(NFS4_OK).writeInt(0).writeInt(0); // status, tag, no results
            }
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
        return establish(c, owner, flags, cbSec, true);
    }

    /** As {@link #establish(Nfs4TestClient, String, int, Consumer)}; without RECLAIM_COMPLETE for a client that reclaims first. */
    static int establish(Nfs4TestClient c, String owner, int flags, Consumer<XdrEncoder> cbSec, boolean reclaimComplete)
            throws IOException {
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
        if (reclaimComplete) {
            assertEquals(NFS4_OK, c.compound().op(OP_RECLAIM_COMPLETE, e -> e.writeBool(false)).send().status);
        }
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

    /**
     * RFC 8881 §20.11: OPEN says the server may notify blocked locks; a WRITEW_LT that is denied
     * gets a CB_NOTIFY_LOCK (after CB_SEQUENCE on the back channel's slot 0) naming the file and the
     * lock-owner once the holder unlocks, and the owner's LOCK then succeeds.
     */
    @Test
    void aBlockedLockIsToldByCbNotifyLockWhenTheHolderUnlocks() throws Exception {
        BlockingQueue<Received> got = new LinkedBlockingQueue<>();
        Nfs4TestClient c = client(got, Rpc.SUCCESS);
        establish(c, "cb-lock", CREATE_SESSION4_FLAG_CONN_BACK_CHAN, AUTH_SYS_CB);
        assertNotNull(got.poll(10, TimeUnit.SECONDS), "probed");
        CALLS.clear();
        try (io.rdmagate.nfs.client.Nfs3Client v3 = io.rdmagate.nfs.client.Nfs3Client.connect(fx.nfs(), NfsFixture.ROOT)) {
            v3.create(io.rdmagate.nfs.client.Nfs3Client.mount(fx.mount(), "/data", NfsFixture.ROOT), "locked", 0666);
        }
        int[] seqid = new int[2];
        byte[][] other = new byte[2][];
        byte[] fh = null;
        for (int i = 0; i < 2; i++) {
            String owner = "owner-" + i;
            Reply r = c.compound().op(OP_PUTROOTFH).op(OP_LOOKUP, e -> Nfs4TestClient.name(e, "data"))
                    .op(OP_OPEN, e -> {
                        // no delegation: under one the client would keep its locks to itself
                        e.writeInt(0).writeInt(OPEN4_SHARE_ACCESS_BOTH | OPEN4_SHARE_ACCESS_WANT_NO_DELEG)
                                .writeInt(OPEN4_SHARE_DENY_NONE).writeHyper(0);
                        e.writeOpaque(owner.getBytes(StandardCharsets.UTF_8)).writeInt(OPEN4_NOCREATE).writeInt(CLAIM_NULL);
                        Nfs4TestClient.name(e, "locked");
                    }).op(OP_GETFH).send();
            Nfs4TestClient.skip(r.next(OP_SEQUENCE, NFS4_OK), 16 + 20);
            r.next(OP_PUTROOTFH, NFS4_OK);
            r.next(OP_LOOKUP, NFS4_OK);
            XdrDecoder o = r.next(OP_OPEN, NFS4_OK);
            seqid[i] = Nfs4TestClient.read(o::readInt);
            other[i] = Nfs4TestClient.read(() -> o.readFixedOpaque(12));
            Nfs4TestClient.skip(o, 20); // change_info4
            int rflags = Nfs4TestClient.read(o::readInt);
            assertEquals(OPEN4_RESULT_MAY_NOTIFY_LOCK, rflags & OPEN4_RESULT_MAY_NOTIFY_LOCK, "OPEN says blocked locks may be told");
            int words = Nfs4TestClient.read(o::readInt);
            Nfs4TestClient.skip(o, 4 * words);
            assertEquals(OPEN_DELEGATE_NONE_EXT, (int) Nfs4TestClient.read(o::readInt));
            assertEquals(WND4_NOT_WANTED, (int) Nfs4TestClient.read(o::readInt), "none, as asked");
            XdrDecoder g = r.next(OP_GETFH, NFS4_OK);
            fh = Nfs4TestClient.read(() -> g.readOpaque(NFS4_FHSIZE));
        }
        byte[] file = fh;
        XdrDecoder held = lock(c, file, 2 /* WRITE_LT */, seqid[0], other[0], "lock-owner-0").next(OP_LOCK, NFS4_OK);
        int lockSeqid = Nfs4TestClient.read(held::readInt);
        byte[] lockOther = Nfs4TestClient.read(() -> held.readFixedOpaque(12));
        lock(c, file, 4 /* WRITEW_LT */, seqid[1], other[1], "lock-owner-1").next(OP_LOCK, NFS4ERR_DENIED);
        assertNull(CALLS.poll(200, TimeUnit.MILLISECONDS), "nothing told while the lock is held");

        Reply unlock = c.compound().op(OP_PUTFH, e -> e.writeOpaque(file)).op(OP_LOCKU, e -> {
            e.writeInt(2).writeInt(0).writeInt(lockSeqid).writeFixedOpaque(lockOther).writeHyper(0).writeHyper(-1L);
        }).send();
        assertEquals(NFS4_OK, unlock.status);
        byte[] call = CALLS.poll(10, TimeUnit.SECONDS);
        assertNotNull(call, "the blocked owner's client is called");
        XdrDecoder d = new XdrDecoder(Unpooled.wrappedBuffer(call));
        Nfs4TestClient.skip(d, 20);
        assertEquals(1, (int) Nfs4TestClient.read(d::readInt), "CB_COMPOUND");
        // AUTH_SYS credential: flavor, length, stamp, "client" (4 + 6 + 2), uid, gid, no gids; AUTH_NONE verifier
        Nfs4TestClient.skip(d, 4 + 4 + 4 + 12 + 4 + 4 + 4 + 8);
        Nfs4TestClient.read(() -> d.readOpaque(64)); // tag
        assertEquals(1, (int) Nfs4TestClient.read(d::readInt), "minor version");
        Nfs4TestClient.read(d::readInt); // callback_ident
        assertEquals(2, (int) Nfs4TestClient.read(d::readInt), "CB_SEQUENCE and one operation");
        assertEquals(11, (int) Nfs4TestClient.read(d::readInt), "CB_SEQUENCE");
        org.junit.jupiter.api.Assertions.assertArrayEquals(c.sessionId, Nfs4TestClient.read(() -> d.readFixedOpaque(16)));
        assertEquals(1, (int) Nfs4TestClient.read(d::readInt), "the slot's first sequence id");
        assertEquals(0, (int) Nfs4TestClient.read(d::readInt), "slot 0");
        Nfs4TestClient.skip(d, 12); // highest slot, cachethis, no referring calls
        assertEquals(13, (int) Nfs4TestClient.read(d::readInt), "CB_NOTIFY_LOCK");
        org.junit.jupiter.api.Assertions.assertArrayEquals(file, Nfs4TestClient.read(() -> d.readOpaque(NFS4_FHSIZE)));
        assertEquals(c.clientId, (long) Nfs4TestClient.read(d::readHyper));
        assertEquals("lock-owner-1", new String(Nfs4TestClient.read(() -> d.readOpaque(1024)), StandardCharsets.UTF_8));
        lock(c, file, 4, seqid[1], other[1], "lock-owner-1").next(OP_LOCK, NFS4_OK);
    }

    /** LOCK of [50, 60) of type {@code type} as a new lock-owner of the open; the reply after PUTFH. */
    private static Reply lock(Nfs4TestClient c, byte[] fh, int type, int seqid, byte[] other, String owner)
            throws IOException {
        Reply r = c.compound().op(OP_PUTFH, e -> e.writeOpaque(fh)).op(OP_LOCK, e -> {
            e.writeInt(type).writeBool(false).writeHyper(type == 2 ? 0 : 50).writeHyper(type == 2 ? 100 : 10)
                    .writeBool(true).writeInt(0).writeInt(seqid).writeFixedOpaque(other).writeInt(0).writeHyper(0)
                    .writeOpaque(owner.getBytes(StandardCharsets.UTF_8));
        }).send();
        Nfs4TestClient.skip(r.next(OP_SEQUENCE, NFS4_OK), 16 + 20);
        r.next(OP_PUTFH, NFS4_OK);
        return r;
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
