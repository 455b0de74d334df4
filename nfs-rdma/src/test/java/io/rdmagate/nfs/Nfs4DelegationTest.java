package io.rdmagate.nfs;

import static io.rdmagate.nfs.v4.Nfs4.*;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.rdmagate.gateway.spi.config.ClientRule.Access;
import io.rdmagate.nfs.Nfs4TestClient.Reply;
import io.rdmagate.nfs.client.Nfs3Client;
import io.rdmagate.nfs.v4.Nfs4Server;
import io.rdmagate.oncrpc.rpc.ReplyHeaders;
import io.rdmagate.oncrpc.rpc.Rpc;
import io.rdmagate.oncrpc.xdr.XdrDecoder;
import io.rdmagate.oncrpc.xdr.XdrException;
import io.rdmagate.vfs.ExportOptions;
import io.rdmagate.vfs.inmemory.InMemoryFileSystem;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * NFSv4.1 delegations (RFC 8881 §10.2, §10.4) with clients that serve callbacks on their own
 * connection, as the Linux client does: a read-only OPEN of a client whose back channel is up gets
 * a read delegation, an OPEN for writing of a file nobody else has open a write delegation; a
 * conflicting operation of another client (NFSv3 WRITE, or READ for a write delegation, another
 * NFSv4.1 client's OPEN for writing) sends CB_RECALL and waits for DELEGRETURN; the holder's own
 * operations recall nothing;
 * a client that does not take the recall has the delegation revoked and is told through SEQUENCE.
 */
class Nfs4DelegationTest {
    private static final int NFS4ERR_BADHANDLE = 10001;
    private static final int OP_CB_RECALL = 4;
    private static final int OP_CB_RECALL_ANY = 8;

    private NfsFixture fx;
    private InMemoryFileSystem fs;
    private final List<AutoCloseable> closing = new ArrayList<>();
    private byte[] root;

    /**
     * A CB_RECALL a client's callback service received (the stateid's other and the filehandle), or
     * a CB_RECALL_ANY (how many delegations to keep, and the type mask).
     */
    record Recalled(byte[] other, byte[] fh, int keep, int mask, int minor) {
        Recalled(byte[] other, byte[] fh, int minor) {
            this(other, fh, -1, 0, minor);
        }
    }

    /** An OPEN's result: the open stateid, the delegation (type, its stateid's other, why none) and the file. */
    record Opened(int seqid, byte[] other, int delegation, byte[] delegationOther, int why, byte[] fh) {
    }

    @BeforeEach
    void start() throws Exception {
        fs = InMemoryFileSystem.create(12, ExportOptions.DEFAULT);
        fx = new NfsFixture(List.of(NfsFixture.export(0, "data", fs,
                NfsFixture.rule("127.0.0.0/8", Access.RW, false, false))), h -> null, new SimpleMeterRegistry(),
                Nfs4Server.Options.DEFAULT);
        root = Nfs3Client.mount(fx.mount(), "/data", NfsFixture.ROOT);
    }

    @AfterEach
    void stop() throws Exception {
        for (AutoCloseable c : closing) {
            c.close();
        }
        fx.close();
    }

    private Nfs3Client v3() throws IOException {
        Nfs3Client c = Nfs3Client.connect(fx.nfs(), NfsFixture.ROOT);
        closing.add(c);
        return c;
    }

    /** A file holding {@code content}, made over NFSv3. */
    private byte[] file(String name, String content) throws IOException {
        Nfs3Client c = v3();
        byte[] fh = c.create(root, name, 0666);
        c.write(fh, 0, content.getBytes(StandardCharsets.UTF_8), 2);
        return fh;
    }

    /**
     * A client with a back channel whose callback service answers CB_COMPOUNDs with {@code cbStatus}
     * and records the CB_RECALLs; returned once the server's probe of the path was answered.
     */
    private Nfs4TestClient holder(String owner, int cbStatus, BlockingQueue<Recalled> recalls) throws Exception {
        return holder(owner, cbStatus, recalls, 1);
    }

    /** As {@link #holder(String, int, BlockingQueue)}, speaking minor version {@code minor}. */
    private Nfs4TestClient holder(String owner, int cbStatus, BlockingQueue<Recalled> recalls, int minor)
            throws Exception {
        Nfs4TestClient c = Nfs4TestClient.connect(fx.nfs(), NfsFixture.ROOT);
        c.minor = minor;
        closing.add(c);
        c.rpc.serveCalls(callbackService(cbStatus, recalls));
        int up = fx.server.nfs4().state().backChannels(false);
        Nfs4BackChannelTest.establish(c, owner, CREATE_SESSION4_FLAG_CONN_BACK_CHAN, Nfs4BackChannelTest.AUTH_SYS_CB);
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (fx.server.nfs4().state().backChannels(false) == up && System.nanoTime() < end) {
            Thread.sleep(10);
        }
        assertEquals(up + 1, fx.server.nfs4().state().backChannels(false), "the back channel is up");
        return c;
    }

    static Function<byte[], byte[]> callbackService(int cbStatus, BlockingQueue<Recalled> recalls) {
        return call -> {
            ByteBuf b = Unpooled.wrappedBuffer(call);
            int xid = b.getInt(0);
            boolean compound = b.getInt(20) == 1;
            if (compound) {
                Recalled r = recalled(call);
                if (r != null) {
                    recalls.add(r);
                }
            }
            ByteBuf out = ReplyHeaders.accepted(Unpooled.buffer(), xid, Rpc.SUCCESS);
            if (compound) {
                out.writeInt(cbStatus).writeInt(0).writeInt(0); // status, tag, no results
            }
            byte[] bytes = new byte[out.readableBytes()];
            out.readBytes(bytes);
            return bytes;
        };
    }

    /** The CB_RECALL of a CB_COMPOUND call (after its CB_SEQUENCE), or null. */
    private static Recalled recalled(byte[] call) {
        try {
            XdrDecoder d = new XdrDecoder(Unpooled.wrappedBuffer(call));
            d.skip(24); // xid, CALL, rpcvers, prog, vers, proc
            d.readInt();
            d.readOpaque(400); // credential
            d.readInt();
            d.readOpaque(400); // verifier
            d.readOpaque(64); // tag
            int minor = d.readInt();
            d.skip(4); // callback_ident
            int ops = d.readInt();
            for (int i = 0; i < ops; i++) {
                int op = d.readInt();
                if (op == 11) {
                    d.skip(16 + 16 + 4); // CB_SEQUENCE: session, sequence, slot, highest, cachethis, no lists
                } else if (op == OP_CB_RECALL) {
                    d.readInt();
                    byte[] other = d.readFixedOpaque(12);
                    d.readInt(); // truncate
                    return new Recalled(other, d.readOpaque(NFS4_FHSIZE), minor);
                } else if (op == OP_CB_RECALL_ANY) {
                    int keep = d.readInt();
                    int words = d.readInt();
                    return new Recalled(null, null, keep, words > 0 ? d.readInt() : 0, minor);
                }
            }
            return null;
        } catch (XdrException e) {
            return null;
        }
    }

    /** OPEN of {@code name} in the export with this access (and want bits) by {@code owner}, no create. */
    private static Opened open(Nfs4TestClient c, String name, int shareAccess, int deny, String owner) throws IOException {
        Reply r = c.compound().op(OP_PUTROOTFH).op(OP_LOOKUP, e -> Nfs4TestClient.name(e, "data")).op(OP_OPEN, e -> {
            e.writeInt(0).writeInt(shareAccess).writeInt(deny).writeHyper(0);
            e.writeOpaque(owner.getBytes(StandardCharsets.UTF_8)).writeInt(OPEN4_NOCREATE).writeInt(CLAIM_NULL);
            Nfs4TestClient.name(e, name);
        }).op(OP_GETFH).send();
        Nfs4TestClient.skip(r.next(OP_SEQUENCE, NFS4_OK), 16 + 20);
        r.next(OP_PUTROOTFH, NFS4_OK);
        r.next(OP_LOOKUP, NFS4_OK);
        return opened(r.next(OP_OPEN, NFS4_OK), r);
    }

    static Opened opened(XdrDecoder o, Reply r) throws IOException {
        int seqid = Nfs4TestClient.read(o::readInt);
        byte[] other = Nfs4TestClient.read(() -> o.readFixedOpaque(12));
        Nfs4TestClient.skip(o, 20 + 4); // change_info4, rflags
        int words = Nfs4TestClient.read(o::readInt);
        Nfs4TestClient.skip(o, 4 * words);
        int type = Nfs4TestClient.read(o::readInt);
        byte[] deleg = null;
        int why = -1;
        if (type == OPEN_DELEGATE_READ || type == OPEN_DELEGATE_WRITE) {
            Nfs4TestClient.read(o::readInt);
            deleg = Nfs4TestClient.read(() -> o.readFixedOpaque(12));
            Nfs4TestClient.skip(o, 4); // recall
            if (type == OPEN_DELEGATE_WRITE) {
                assertEquals(NFS_LIMIT_SIZE, (int) Nfs4TestClient.read(o::readInt), "space limited by size");
                assertEquals(0L, (long) Nfs4TestClient.read(o::readHyper),
                        "a size of 0: the client writes back on every close, keeping nothing under the delegation");
            }
            Nfs4TestClient.skip(o, 12); // ace type, flag, mask
            Nfs4TestClient.read(() -> o.readOpaque(1024)); // who
        } else if (type == OPEN_DELEGATE_NONE_EXT) {
            why = Nfs4TestClient.read(o::readInt);
            if (why == WND4_CONTENTION || why == WND4_RESOURCE) {
                Nfs4TestClient.read(o::readInt);
            }
        }
        XdrDecoder g = r.next(OP_GETFH, NFS4_OK);
        byte[] fh = Nfs4TestClient.read(() -> g.readOpaque(NFS4_FHSIZE));
        return new Opened(seqid, other, type, deleg, why, fh);
    }

    /** READ of the file's first bytes with stateid (1, {@code other}): the status, and the data when OK. */
    private static String read(Nfs4TestClient c, byte[] fh, byte[] other, int status) throws IOException {
        Reply r = c.compound().op(OP_PUTFH, e -> e.writeOpaque(fh)).op(OP_READ, e -> {
            e.writeInt(1).writeFixedOpaque(other).writeHyper(0).writeInt(100);
        }).send();
        r.next(OP_SEQUENCE, NFS4_OK);
        Nfs4TestClient.skip(r.d, 16 + 20);
        r.next(OP_PUTFH, NFS4_OK);
        XdrDecoder d = r.next(OP_READ, status);
        if (status != NFS4_OK) {
            return null;
        }
        Nfs4TestClient.read(d::readInt); // eof
        return new String(Nfs4TestClient.read(() -> d.readOpaque(100)), StandardCharsets.UTF_8);
    }

    /** WRITE of {@code data} at 0, FILE_SYNC, with stateid (1, {@code other}): its status. */
    private static int write(Nfs4TestClient c, byte[] fh, byte[] other, String data) throws IOException {
        Reply r = c.compound().op(OP_PUTFH, e -> e.writeOpaque(fh)).op(OP_WRITE, e -> {
            e.writeInt(1).writeFixedOpaque(other).writeHyper(0).writeInt(2).writeOpaque(data.getBytes(StandardCharsets.UTF_8));
        }).send();
        return r.status;
    }

    static int delegReturn(Nfs4TestClient c, byte[] fh, byte[] other) throws IOException {
        Reply r = c.compound().op(OP_PUTFH, e -> e.writeOpaque(fh)).op(OP_DELEGRETURN, e -> {
            e.writeInt(1).writeFixedOpaque(other);
        }).send();
        return r.status;
    }

    /** An NFSv3 WRITE of {@code data} at 0, on a thread of its own, as another machine's client would. */
    private CompletableFuture<Void> v3Write(byte[] fh, String data) throws IOException {
        Nfs3Client c = v3();
        return elsewhere(() -> c.write(fh, 0, data.getBytes(StandardCharsets.UTF_8), 2)).thenApply(w -> null);
    }

    /** What another client does, on a thread of its own, as a call from another machine runs. */
    private static <T> CompletableFuture<T> elsewhere(java.util.concurrent.Callable<T> call) {
        return CompletableFuture.supplyAsync(() -> {
            try {
                return call.call();
            } catch (Exception e) {
                throw new java.util.concurrent.CompletionException(e);
            }
        }, r -> Thread.ofVirtual().start(r));
    }

    private static void assertWaiting(CompletableFuture<?> op) {
        assertThrows(TimeoutException.class, () -> op.get(300, TimeUnit.MILLISECONDS),
                "the operation waits while the delegation is out");
    }

    @Test
    void aReadOpenGetsADelegationThatAnNfs3WriteRecallsAndWaitsFor() throws Exception {
        byte[] fh = file("shared", "old");
        BlockingQueue<Recalled> recalls = new LinkedBlockingQueue<>();
        Nfs4TestClient a = holder("deleg-a", NFS4_OK, recalls);
        Opened o = open(a, "shared", OPEN4_SHARE_ACCESS_READ, OPEN4_SHARE_DENY_NONE, "reader");
        assertEquals(OPEN_DELEGATE_READ, o.delegation(), "a read-only open gets a read delegation");
        assertEquals("old", read(a, o.fh(), o.delegationOther(), NFS4_OK), "the delegation stateid reads");
        assertEquals(NFS4ERR_OPENMODE, write(a, o.fh(), o.delegationOther(), "no"), "but does not write");

        CompletableFuture<Void> write = v3Write(fh, "new");
        Recalled r = recalls.poll(10, TimeUnit.SECONDS);
        assertNotNull(r, "the holder is called back");
        assertArrayEquals(o.delegationOther(), r.other(), "CB_RECALL names the delegation");
        assertArrayEquals(o.fh(), r.fh(), "and the file");
        assertWaiting(write);

        assertEquals(NFS4_OK, delegReturn(a, o.fh(), o.delegationOther()));
        write.get(10, TimeUnit.SECONDS);
        assertEquals(NFS4ERR_BAD_STATEID, delegReturn(a, o.fh(), o.delegationOther()), "returned once");
        read(a, o.fh(), o.delegationOther(), NFS4ERR_BAD_STATEID);
        assertEquals("new", read(a, o.fh(), o.other(), NFS4_OK), "the open reads what the write wrote");
        var d = fx.server.nfs4().state().delegations();
        assertEquals(1, d.recalls());
        assertEquals(1, d.returns());
        assertEquals(0, d.held());
        assertEquals(OPEN_DELEGATE_NONE, open(a, "shared", OPEN4_SHARE_ACCESS_READ, OPEN4_SHARE_DENY_NONE, "again")
                .delegation(), "a file recalled a moment ago is not delegated again at once");
    }

    /**
     * Another protocol writes a file that has the delegated file's inode number but another
     * generation (an earlier file of that number, removed while open elsewhere): the delegation is
     * not recalled for it. A write of the delegated file itself recalls it.
     */
    @Test
    void aWriteToAnEarlierFileWithTheSameInodeNumberRecallsNothing() throws Exception {
        file("reused", "old");
        BlockingQueue<Recalled> recalls = new LinkedBlockingQueue<>();
        Nfs4TestClient a = holder("deleg-gen", NFS4_OK, recalls);
        Opened o = open(a, "reused", OPEN4_SHARE_ACCESS_READ, OPEN4_SHARE_DENY_NONE, "reader");
        assertEquals(OPEN_DELEGATE_READ, o.delegation());
        io.rdmagate.vfs.FileHandle now = fs.lookup(io.rdmagate.vfs.Caller.ROOT, fs.root(), "reused").handle();
        io.rdmagate.vfs.FileHandle earlier = io.rdmagate.vfs.FileHandle.of(now.volumeId(), now.fileId(),
                now.generation() + 1, now.type());
        var states = fs.states();
        var d = fx.server.nfs4().state().delegations();
        elsewhere(() -> {
            states.end(states.begin(earlier, io.rdmagate.vfs.state.Conflict.WRITE, null));
            return null;
        }).get(10, TimeUnit.SECONDS);
        assertEquals(0, d.recalls(), "no recall for another file");
        assertEquals(1, d.held());

        CompletableFuture<Object> write = elsewhere(() -> {
            states.end(states.begin(now, io.rdmagate.vfs.state.Conflict.WRITE, null));
            return null;
        });
        Recalled r = recalls.poll(10, TimeUnit.SECONDS);
        assertNotNull(r, "a write of the delegated file recalls it");
        assertArrayEquals(o.delegationOther(), r.other());
        assertEquals(NFS4_OK, delegReturn(a, o.fh(), o.delegationOther()));
        write.get(10, TimeUnit.SECONDS);
        assertEquals(1, d.recalls());
    }

    @Test
    void anNfs42ClientIsCalledBackInItsOwnMinorVersion() throws Exception {
        byte[] fh = file("v42", "old");
        BlockingQueue<Recalled> recalls = new LinkedBlockingQueue<>();
        Nfs4TestClient a = holder("deleg-42", NFS4_OK, recalls, 2);
        Opened o = open(a, "v42", OPEN4_SHARE_ACCESS_READ, OPEN4_SHARE_DENY_NONE, "reader");
        assertEquals(OPEN_DELEGATE_READ, o.delegation());
        CompletableFuture<Void> write = v3Write(fh, "new");
        Recalled r = recalls.poll(10, TimeUnit.SECONDS);
        assertNotNull(r, "the holder is called back");
        assertEquals(2, r.minor(), "CB_COMPOUND carries the session's minor version, or a Linux client finds no session");
        assertEquals(NFS4_OK, delegReturn(a, o.fh(), o.delegationOther()));
        write.get(10, TimeUnit.SECONDS);
    }

    @Test
    void anotherClientsOpenForWritingRecallsItButTheHoldersOwnDoesNot() throws Exception {
        file("both", "0123");
        BlockingQueue<Recalled> recalls = new LinkedBlockingQueue<>();
        Nfs4TestClient a = holder("deleg-own", NFS4_OK, recalls);
        Opened o = open(a, "both", OPEN4_SHARE_ACCESS_READ, OPEN4_SHARE_DENY_NONE, "reader");
        assertEquals(OPEN_DELEGATE_READ, o.delegation());
        Opened mine = open(a, "both", OPEN4_SHARE_ACCESS_BOTH, OPEN4_SHARE_DENY_NONE, "writer");
        assertEquals(OPEN_DELEGATE_NONE, mine.delegation());
        assertNull(recalls.poll(200, TimeUnit.MILLISECONDS), "the holder's own open for writing recalls nothing");

        Nfs4TestClient b = Nfs4TestClient.connect(fx.nfs(), NfsFixture.ROOT).establish("deleg-other");
        closing.add(b);
        CompletableFuture<Opened> other = elsewhere(
                () -> open(b, "both", OPEN4_SHARE_ACCESS_WRITE, OPEN4_SHARE_DENY_NONE, "b-writer"));
        assertNotNull(recalls.poll(10, TimeUnit.SECONDS), "another client's open for writing recalls it");
        assertWaiting(other);
        // as the Linux client returns a delegation: the opens it made under it become real ones first
        Reply claim = a.compound().op(OP_PUTFH, e -> e.writeOpaque(o.fh())).op(OP_OPEN, e -> {
            e.writeInt(0).writeInt(OPEN4_SHARE_ACCESS_READ).writeInt(OPEN4_SHARE_DENY_NONE).writeHyper(0);
            e.writeOpaque("local".getBytes(StandardCharsets.UTF_8)).writeInt(OPEN4_NOCREATE).writeInt(CLAIM_DELEG_CUR_FH);
            e.writeInt(1).writeFixedOpaque(o.delegationOther());
        }).op(OP_GETFH).send();
        Nfs4TestClient.skip(claim.next(OP_SEQUENCE, NFS4_OK), 16 + 20);
        claim.next(OP_PUTFH, NFS4_OK);
        Opened local = opened(claim.next(OP_OPEN, NFS4_OK), claim);
        assertEquals(OPEN_DELEGATE_NONE, local.delegation());
        assertEquals("0123", read(a, o.fh(), local.other(), NFS4_OK), "the claimed open reads");
        assertEquals(NFS4_OK, delegReturn(a, o.fh(), o.delegationOther()));
        assertEquals(OPEN_DELEGATE_NONE, other.get(10, TimeUnit.SECONDS).delegation(), "and the other open goes on");
    }

    /**
     * A write delegation: the client writes with its stateid and keeps what it wrote; another
     * client's read recalls it, and waits until the client has written back and returned it.
     */
    @Test
    void anOpenForWritingGetsAWriteDelegationThatAnotherClientsReadWaitsFor() throws Exception {
        byte[] fh = file("written", "0");
        BlockingQueue<Recalled> recalls = new LinkedBlockingQueue<>();
        Nfs4TestClient a = holder("deleg-writer", NFS4_OK, recalls);
        Opened o = open(a, "written", OPEN4_SHARE_ACCESS_BOTH, OPEN4_SHARE_DENY_NONE, "writer");
        assertEquals(OPEN_DELEGATE_WRITE, o.delegation(), "nobody else has it open: a write delegation");
        assertEquals(NFS4_OK, write(a, o.fh(), o.delegationOther(), "first"), "its stateid writes");
        Nfs3Client other = v3();
        CompletableFuture<String> read = elsewhere(() -> new String(other.read(fh, 0, 100).data(), StandardCharsets.UTF_8));
        Recalled r = recalls.poll(10, TimeUnit.SECONDS);
        assertNotNull(r, "another client's read recalls a write delegation");
        assertArrayEquals(o.delegationOther(), r.other());
        assertWaiting(read);
        assertEquals(NFS4_OK, write(a, o.fh(), o.delegationOther(), "written back"), "what the client kept");
        assertEquals(NFS4_OK, delegReturn(a, o.fh(), o.delegationOther()));
        assertEquals("written back", read.get(10, TimeUnit.SECONDS), "the read sees what was written back");
        assertEquals(0, fx.server.nfs4().state().delegations().writesHeld());
    }

    @Test
    void aClientThatRefusesTheRecallLosesTheDelegationAndIsToldSo() throws Exception {
        byte[] fh = file("revoked", "abc");
        BlockingQueue<Recalled> recalls = new LinkedBlockingQueue<>();
        Nfs4TestClient a = holder("deleg-deaf", NFS4ERR_BADHANDLE, recalls);
        Opened o = open(a, "revoked", OPEN4_SHARE_ACCESS_READ, OPEN4_SHARE_DENY_NONE, "reader");
        assertEquals(OPEN_DELEGATE_READ, o.delegation());
        v3Write(fh, "xyz").get(30, TimeUnit.SECONDS);
        assertEquals(3, recalls.size(), "the recall was sent, then tried twice more");
        var d = fx.server.nfs4().state().delegations();
        assertEquals(1, d.revocations());
        assertEquals(SEQ4_STATUS_RECALLABLE_STATE_REVOKED, Nfs4BackChannelTest.statusFlags(a)
                & SEQ4_STATUS_RECALLABLE_STATE_REVOKED, "SEQUENCE says a delegation was revoked");
        read(a, o.fh(), o.delegationOther(), NFS4ERR_DELEG_REVOKED);
        Reply t = a.compound().op(OP_TEST_STATEID, e -> {
            e.writeInt(1).writeInt(1).writeFixedOpaque(o.delegationOther());
        }).send();
        Nfs4TestClient.skip(t.next(OP_SEQUENCE, NFS4_OK), 16 + 20);
        XdrDecoder td = t.next(OP_TEST_STATEID, NFS4_OK);
        assertEquals(1, (int) Nfs4TestClient.read(td::readInt));
        assertEquals(NFS4ERR_DELEG_REVOKED, (int) Nfs4TestClient.read(td::readInt), "TEST_STATEID finds it");
        Reply f = a.compound().op(OP_FREE_STATEID, e -> e.writeInt(1).writeFixedOpaque(o.delegationOther())).send();
        assertEquals(NFS4_OK, f.status, "and FREE_STATEID frees it");
        assertEquals(0, Nfs4BackChannelTest.statusFlags(a), "SEQUENCE stops reporting it");
        assertEquals("xyz", read(a, o.fh(), o.other(), NFS4_OK));
    }

    @Test
    void noDelegationWithoutABackChannelForWritingOrWhenTheClientWantsNone() throws Exception {
        file("plain", "p");
        Nfs4TestClient plain = Nfs4TestClient.connect(fx.nfs(), NfsFixture.ROOT).establish("no-back-channel");
        closing.add(plain);
        assertEquals(OPEN_DELEGATE_NONE, open(plain, "plain", OPEN4_SHARE_ACCESS_READ, OPEN4_SHARE_DENY_NONE, "o")
                .delegation(), "nothing could recall it");
        Nfs4TestClient a = holder("deleg-choosy", NFS4_OK, new LinkedBlockingQueue<>());
        assertEquals(OPEN_DELEGATE_NONE, open(a, "plain", OPEN4_SHARE_ACCESS_BOTH, OPEN4_SHARE_DENY_NONE, "rw")
                .delegation(), "another client has the file open: no write delegation");
        Opened refused = open(a, "plain", OPEN4_SHARE_ACCESS_READ | OPEN4_SHARE_ACCESS_WANT_NO_DELEG,
                OPEN4_SHARE_DENY_NONE, "r");
        assertEquals(OPEN_DELEGATE_NONE_EXT, refused.delegation());
        assertEquals(WND4_NOT_WANTED, refused.why(), "a client that wants none is told it got none as it wanted");
        Opened contended = open(a, "plain", OPEN4_SHARE_ACCESS_READ | OPEN4_SHARE_ACCESS_WANT_READ_DELEG,
                OPEN4_SHARE_DENY_NONE, "r2");
        assertEquals(OPEN_DELEGATE_NONE_EXT, contended.delegation(), "the file is open for writing (by 'rw')");
        assertEquals(WND4_CONTENTION, contended.why());
        assertEquals(0, fx.server.nfs4().state().delegations().held());
    }

    /**
     * RFC 8881 §20.6: as the table fills (three quarters of maxDelegations), the clients holding
     * delegations are asked by CB_RECALL_ANY to keep half; once it is full, an OPEN gets none.
     */
    @Test
    void aFillingTableAsksClientsToReturnSomeAndAFullOneHandsOutNone() throws Exception {
        fx.close();
        fx = new NfsFixture(List.of(NfsFixture.export(0, "data", InMemoryFileSystem.create(13, ExportOptions.DEFAULT),
                NfsFixture.rule("127.0.0.0/8", Access.RW, false, false))), h -> null, new SimpleMeterRegistry(),
                new Nfs4Server.Options(java.time.Duration.ofSeconds(90), 64, 64, 16, 64, 8192, java.time.Duration.ZERO, 4, ""));
        root = Nfs3Client.mount(fx.mount(), "/data", NfsFixture.ROOT);
        BlockingQueue<Recalled> calls = new LinkedBlockingQueue<>();
        Nfs4TestClient a = holder("deleg-many", NFS4_OK, calls);
        for (int i = 0; i < 4; i++) {
            file("f" + i, "x");
            assertEquals(OPEN_DELEGATE_READ, open(a, "f" + i, OPEN4_SHARE_ACCESS_READ, OPEN4_SHARE_DENY_NONE, "o").delegation());
            if (i == 2) {
                Recalled any = calls.poll(10, TimeUnit.SECONDS);
                assertNotNull(any, "three of four held: the client is asked to return some");
                assertEquals(1, any.keep(), "keep half of its three");
                assertEquals(0b11, any.mask(), "read and write delegations of files");
            }
        }
        file("f4", "x");
        Opened none = open(a, "f4", OPEN4_SHARE_ACCESS_READ | OPEN4_SHARE_ACCESS_WANT_READ_DELEG, OPEN4_SHARE_DENY_NONE, "o");
        assertEquals(OPEN_DELEGATE_NONE_EXT, none.delegation(), "the table is full");
        assertEquals(4, fx.server.nfs4().state().delegations().held());
        assertEquals(1, fx.server.nfs4().state().delegations().recallAnys(), "asked once in 10 s");
    }

    @Test
    void anNfs4OpenThatDeniesWritingRefusesAnNfs3Write() throws Exception {
        byte[] fh = file("denied", "d");
        Nfs4TestClient a = Nfs4TestClient.connect(fx.nfs(), NfsFixture.ROOT).establish("deny-writer");
        closing.add(a);
        Opened o = open(a, "denied", OPEN4_SHARE_ACCESS_READ, OPEN4_SHARE_DENY_WRITE, "denier");
        Nfs3Client.NfsStatusException e = assertThrows(Nfs3Client.NfsStatusException.class,
                () -> v3().write(fh, 0, "x".getBytes(StandardCharsets.UTF_8), 2));
        assertEquals(13, e.status(), "NFS3ERR_ACCES, as an SMB open's share mode refuses it");
        Reply close = a.compound().op(OP_PUTFH, x -> x.writeOpaque(o.fh())).op(OP_CLOSE, x -> {
            x.writeInt(0).writeInt(o.seqid()).writeFixedOpaque(o.other());
        }).send();
        assertEquals(NFS4_OK, close.status);
        assertFalse(v3().write(fh, 0, "x".getBytes(StandardCharsets.UTF_8), 2).count() == 0, "closed: the write goes through");
    }
}
