package io.rdmagate.nfs;

import static io.rdmagate.nfs.v4.Nfs4.*;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rdmagate.gateway.spi.config.ClientRule.Access;
import io.rdmagate.nfs.Nfs4TestClient.Reply;
import io.rdmagate.nfs.client.Nfs3Client;
import io.rdmagate.nfs.v4.Nfs4Server;
import io.rdmagate.oncrpc.xdr.XdrDecoder;
import io.rdmagate.oncrpc.xdr.XdrEncoder;
import io.rdmagate.vfs.Caller;
import io.rdmagate.vfs.ExportOptions;
import io.rdmagate.vfs.inmemory.InMemoryFileSystem;
import io.rdmagate.vfs.memory.IoMemoryPool;
import io.rdmagate.vfs.memory.MemoryRegistrar;
import io.rdmagate.vfs.memory.PayloadCopies;
import io.rdmagate.vfs.memory.PoolLimits;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * NFSv4.1 across a restart of the NFS server over the same exports: the clients it confirmed are
 * recorded in the state directory; the next run starts in a grace period in which they reclaim their
 * opens and locks (RFC 8881 §8.4.2) while every other OPEN and LOCK waits (NFS4ERR_GRACE), and which
 * ends as soon as every recorded client has sent RECLAIM_COMPLETE.
 */
class Nfs4GraceTest {
    private static final Nfs4Server.Options OPTIONS = new Nfs4Server.Options(Duration.ofSeconds(90), 64, 64, 8, 16,
            8192, Duration.ofSeconds(90), 1024, "");

    @TempDir
    Path state;

    private final IoMemoryPool pool = new IoMemoryPool(PoolLimits.DEFAULT, MemoryRegistrar.NONE);
    private final InMemoryFileSystem fs = InMemoryFileSystem.create(31, ExportOptions.DEFAULT);
    private final NfsExports exports = new NfsExports(List.of(NfsFixture.export(0, "data", fs,
            NfsFixture.rule("*", Access.RW, false, false))));
    private NfsServer server;

    private NfsServer start() throws Exception {
        return NfsServer.builder().exports(exports).pool(pool).payloadCopies(new PayloadCopies()).maxIoSize(1 << 20)
                .address(NfsFixture.LOOPBACK).ports(0, 0, -1, -1).nfs4(OPTIONS, state.resolve("nfs4").resolve("clients"))
                .start();
    }

    @AfterEach
    void stop() {
        if (server != null) {
            server.close();
        }
        fs.close();
        pool.close();
    }

    @Test
    void afterARestartARecordedClientReclaimsItsOpenAndLockAndOthersWaitForIt() throws Exception {
        fs.create(Caller.ROOT, fs.root(), "held", io.rdmagate.vfs.CreateMode.GUARDED, io.rdmagate.vfs.SetAttributes.NONE, 0);
        server = start();
        byte[] fh;
        try (Nfs4TestClient first = Nfs4TestClient.connect(nfs(), NfsFixture.ROOT).establish("reclaimer")) {
            Reply open = first.compound().op(OP_PUTROOTFH).op(OP_LOOKUP, e -> Nfs4TestClient.name(e, "data"))
                    .op(OP_OPEN, e -> open(e, "held", CLAIM_NULL)).op(OP_GETFH)
                    .op(OP_LOCK, e -> lock(e, false)).send();
            assertEquals(NFS4_OK, open.status);
            fh = handleIn(open);
        }
        assertTrue(Files.readString(state.resolve("nfs4").resolve("clients")).contains(
                java.util.HexFormat.of().formatHex("reclaimer".getBytes(StandardCharsets.UTF_8))),
                "the confirmed client is recorded");
        server.close();

        server = start();
        try (Nfs4TestClient back = Nfs4TestClient.connect(nfs(), NfsFixture.ROOT).establish("reclaimer", false);
                Nfs4TestClient newcomer = Nfs4TestClient.connect(nfs(), NfsFixture.ROOT).establish("newcomer", false)) {
            assertEquals(NFS4ERR_GRACE, newcomer.compound().op(OP_PUTFH, e -> e.writeOpaque(fh))
                    .op(OP_OPEN, e -> open(e, null, CLAIM_FH)).send().status, "a new OPEN waits for the reclaims");
            assertEquals(NFS4ERR_RECLAIM_BAD, newcomer.compound().op(OP_PUTFH, e -> e.writeOpaque(fh))
                    .op(OP_OPEN, e -> open(e, null, CLAIM_PREVIOUS)).send().status, "a client the last run did not know");

            Reply reclaim = back.compound().op(OP_PUTFH, e -> e.writeOpaque(fh))
                    .op(OP_OPEN, e -> open(e, null, CLAIM_PREVIOUS)).op(OP_LOCK, e -> lock(e, true)).send();
            assertEquals(NFS4_OK, reclaim.status, "the open and the lock are reclaimed");
            assertEquals(1, fs.locks().locks(fs.lookup(Caller.ROOT, fs.root(), "held").handle().fileId()).size());

            Reply complete = back.compound().op(OP_RECLAIM_COMPLETE, e -> e.writeBool(false)).send();
            assertEquals(NFS4_OK, complete.status);
            assertEquals(NFS4_OK, newcomer.compound().op(OP_PUTFH, e -> e.writeOpaque(fh))
                    .op(OP_OPEN, e -> open(e, null, CLAIM_FH)).send().status,
                    "grace ended when the only recorded client completed its reclaims");
            Reply lockHeld = newcomer.compound().op(OP_PUTFH, e -> e.writeOpaque(fh)).op(OP_OPEN, e -> open(e, null, CLAIM_FH))
                    .op(OP_LOCK, e -> lock(e, false)).send();
            assertEquals(NFS4ERR_DENIED, lockHeld.status, "the reclaimed lock holds");
            assertEquals(NFS4ERR_NO_GRACE, back.compound().op(OP_PUTFH, e -> e.writeOpaque(fh))
                    .op(OP_OPEN, e -> open(e, null, CLAIM_PREVIOUS)).send().status);
        }
    }

    /**
     * A client held a read delegation when the server stopped; after the restart it reclaims its
     * open naming that delegation (CLAIM_PREVIOUS, delegate_type READ, §18.16.1) right after
     * CREATE_SESSION, as the Linux client does, before it has answered the probe (CB_NULL) of its
     * new back channel (here it never does), and gets it back: it keeps caching, and a write of
     * another protocol recalls the reclaimed delegation on that back channel, as it recalled the
     * first.
     */
    @Test
    void aDelegationHeldBeforeARestartIsReclaimedWithItsOpen() throws Exception {
        fs.create(Caller.ROOT, fs.root(), "cached", io.rdmagate.vfs.CreateMode.GUARDED, io.rdmagate.vfs.SetAttributes.NONE, 0);
        server = start();
        BlockingQueue<Nfs4DelegationTest.Recalled> recalls = new LinkedBlockingQueue<>();
        byte[] fh;
        try (Nfs4TestClient first = withBackChannel("delegated", recalls, true, true)) {
            Reply r = first.compound().op(OP_PUTROOTFH).op(OP_LOOKUP, e -> Nfs4TestClient.name(e, "data"))
                    .op(OP_OPEN, e -> openForReading(e, CLAIM_NULL, "cached")).op(OP_GETFH).send();
            Nfs4TestClient.skip(r.next(OP_SEQUENCE, NFS4_OK), 16 + 20);
            r.next(OP_PUTROOTFH, NFS4_OK);
            r.next(OP_LOOKUP, NFS4_OK);
            Nfs4DelegationTest.Opened o = Nfs4DelegationTest.opened(r.next(OP_OPEN, NFS4_OK), r);
            assertEquals(OPEN_DELEGATE_READ, o.delegation(), "a read delegation before the restart");
            fh = o.fh();
        }
        server.close();

        server = start();
        try (Nfs4TestClient back = withBackChannel("delegated", recalls, false, false)) {
            Reply r = back.compound().op(OP_PUTFH, e -> e.writeOpaque(fh))
                    .op(OP_OPEN, e -> openForReading(e, CLAIM_PREVIOUS, null)).op(OP_GETFH).send();
            Nfs4TestClient.skip(r.next(OP_SEQUENCE, NFS4_OK), 16 + 20);
            r.next(OP_PUTFH, NFS4_OK);
            Nfs4DelegationTest.Opened o = Nfs4DelegationTest.opened(r.next(OP_OPEN, NFS4_OK), r);
            assertEquals(OPEN_DELEGATE_READ, o.delegation(), "the reclaim gives the delegation back");
            assertEquals(1, server.nfs4().state().delegations().held());
            assertEquals(NFS4_OK, back.compound().op(OP_RECLAIM_COMPLETE, e -> e.writeBool(false)).send().status);
            assertEquals(0, server.nfs4().state().backChannels(false), "the probe is still unanswered");

            io.rdmagate.vfs.FileHandle file = fs.lookup(Caller.ROOT, fs.root(), "cached").handle();
            java.util.concurrent.CompletableFuture<Void> write = java.util.concurrent.CompletableFuture.runAsync(() -> {
                try {
                    fs.states().end(fs.states().begin(file, io.rdmagate.vfs.state.Conflict.WRITE, null));
                } catch (io.rdmagate.vfs.VfsException e) {
                    throw new IllegalStateException(e);
                }
            });
            Nfs4DelegationTest.Recalled recalled = recalls.poll(10, TimeUnit.SECONDS);
            assertNotNull(recalled, "another protocol's write recalls the reclaimed delegation");
            assertArrayEquals(o.delegationOther(), recalled.other());
            assertEquals(NFS4_OK, Nfs4DelegationTest.delegReturn(back, fh, o.delegationOther()));
            write.get(10, TimeUnit.SECONDS);
        }
    }

    /**
     * A client of owner {@code owner} with a back channel, its CB_RECALLs into {@code recalls}.
     * With {@code answerProbes}, it answers the server's probe (CB_NULL) and is returned once the
     * probe was answered; without, it leaves every probe unanswered.
     */
    private Nfs4TestClient withBackChannel(String owner, BlockingQueue<Nfs4DelegationTest.Recalled> recalls,
            boolean reclaimComplete, boolean answerProbes) throws Exception {
        Nfs4TestClient c = Nfs4TestClient.connect(nfs(), NfsFixture.ROOT);
        java.util.function.Function<byte[], byte[]> service = Nfs4DelegationTest.callbackService(NFS4_OK, recalls);
        c.rpc.serveCalls(answerProbes ? service
                : call -> java.nio.ByteBuffer.wrap(call).getInt(20) == 0 ? null : service.apply(call)); // CB_NULL dropped
        int up = server.nfs4().state().backChannels(false);
        Nfs4BackChannelTest.establish(c, owner, CREATE_SESSION4_FLAG_CONN_BACK_CHAN, Nfs4BackChannelTest.AUTH_SYS_CB,
                reclaimComplete);
        if (answerProbes) {
            long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (server.nfs4().state().backChannels(false) == up && System.nanoTime() < end) {
                Thread.sleep(10);
            }
            assertEquals(up + 1, server.nfs4().state().backChannels(false), "the back channel is up");
        }
        return c;
    }

    /** OPEN for reading by owner "r": by name, or a reclaim naming the read delegation held before. */
    private static void openForReading(XdrEncoder e, int claim, String name) {
        e.writeInt(0).writeInt(OPEN4_SHARE_ACCESS_READ).writeInt(OPEN4_SHARE_DENY_NONE).writeHyper(0)
                .writeOpaque(new byte[] {'r'}).writeInt(OPEN4_NOCREATE).writeInt(claim);
        if (claim == CLAIM_NULL) {
            Nfs4TestClient.name(e, name);
        } else {
            e.writeInt(OPEN_DELEGATE_READ);
        }
    }

    @Test
    void withNoRecordedClientThereIsNoGrace() throws Exception {
        server = start();
        try (Nfs4TestClient c = Nfs4TestClient.connect(nfs(), NfsFixture.ROOT).establish("fresh");
                Nfs3Client v3 = Nfs3Client.connect(nfs(), NfsFixture.ROOT)) {
            v3.create(Nfs3Client.mount(new java.net.InetSocketAddress(NfsFixture.LOOPBACK, server.port("mount")), "/data",
                    NfsFixture.ROOT), "f", 0644);
            assertEquals(NFS4_OK, c.compound().op(OP_PUTROOTFH).op(OP_LOOKUP, e -> Nfs4TestClient.name(e, "data"))
                    .op(OP_OPEN, e -> open(e, "f", CLAIM_NULL)).send().status);
            assertEquals(NFS4ERR_NO_GRACE, c.compound().op(OP_PUTROOTFH).op(OP_LOOKUP, e -> Nfs4TestClient.name(e, "data"))
                    .op(OP_LOOKUP, e -> Nfs4TestClient.name(e, "f")).op(OP_OPEN, e -> open(e, null, CLAIM_PREVIOUS))
                    .send().status);
        }
    }

    private java.net.InetSocketAddress nfs() {
        return new java.net.InetSocketAddress(NfsFixture.LOOPBACK, server.port("nfs"));
    }

    /** OPEN for reading and writing by owner "o", by name (CLAIM_NULL), of the current file (CLAIM_FH), or a reclaim. */
    private static void open(XdrEncoder e, String name, int claim) {
        e.writeInt(0).writeInt(OPEN4_SHARE_ACCESS_BOTH).writeInt(OPEN4_SHARE_DENY_NONE).writeHyper(0)
                .writeOpaque(new byte[] {'o'}).writeInt(OPEN4_NOCREATE).writeInt(claim);
        if (claim == CLAIM_NULL) {
            Nfs4TestClient.name(e, name);
        } else if (claim == CLAIM_PREVIOUS) {
            e.writeInt(OPEN_DELEGATE_NONE);
        }
    }

    /** LOCK of the whole file for writing by a new lock-owner "l" of the open just made (the current stateid). */
    private static void lock(XdrEncoder e, boolean reclaim) {
        e.writeInt(2).writeBool(reclaim).writeHyper(0).writeHyper(-1L).writeBool(true).writeInt(0);
        e.writeInt(1).writeFixedOpaque(new byte[12]).writeInt(0).writeHyper(0).writeOpaque(new byte[] {'l'});
    }

    private static byte[] handleIn(Reply r) throws java.io.IOException {
        Nfs4TestClient.skip(r.next(OP_SEQUENCE, NFS4_OK), 16 + 20);
        r.next(OP_PUTROOTFH, NFS4_OK);
        r.next(OP_LOOKUP, NFS4_OK);
        XdrDecoder o = r.next(OP_OPEN, NFS4_OK);
        Nfs4TestClient.skip(o, 16 + 20 + 4);
        Nfs4TestClient.skip(o, 4 * Nfs4TestClient.read(o::readInt) + 4);
        XdrDecoder g = r.next(OP_GETFH, NFS4_OK);
        return Nfs4TestClient.read(() -> g.readOpaque(NFS4_FHSIZE));
    }
}
