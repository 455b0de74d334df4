package io.rdmagate.nfs;

import static io.rdmagate.nfs.v4.Nfs4.*;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.rdmagate.gateway.spi.config.ClientRule.Access;
import io.rdmagate.gateway.spi.config.ExportConfig;
import io.rdmagate.nfs.Nfs4TestClient.Reply;
import io.rdmagate.nfs.client.Nfs3Client;
import io.rdmagate.nfs.v3.Nfs3;
import io.rdmagate.nfs.v3.Nfs3Status;
import io.rdmagate.nfs.v4.Fattr4;
import io.rdmagate.nfs.v4.Nfs4Server;
import io.rdmagate.oncrpc.client.RpcReplyMessage;
import io.rdmagate.oncrpc.rpc.Rpc;
import io.rdmagate.oncrpc.xdr.XdrDecoder;
import io.rdmagate.vfs.ExportOptions;
import io.rdmagate.vfs.inmemory.InMemoryFileSystem;
import io.rdmagate.vfs.state.ShareReservations;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * NFSv4.1 over loopback TCP, beside NFSv3 on the same port: sessions and their slots, the
 * pseudo-filesystem, reading files through OPEN/READ/CLOSE, and the answers to bad COMPOUNDs.
 */
class Nfs4Test {
    private final SimpleMeterRegistry metrics = new SimpleMeterRegistry();
    private NfsFixture fx;
    private Nfs4TestClient c;
    private final InMemoryFileSystem data = fs(11);

    @BeforeEach
    void start() throws Exception {
        fx = new NfsFixture(List.of(
                NfsFixture.export(0, "data", data, NfsFixture.rule("127.0.0.0/8", Access.RW, false, false)),
                NfsFixture.export(1, "ro", fs(12), NfsFixture.rule("127.0.0.1", Access.RO, false, false)),
                NfsFixture.export(2, "refused", fs(13), NfsFixture.rule("10.0.0.0/8", Access.RW, false, false)),
                new NfsExport(3, new ExportConfig("a", Path.of("/a"), "/proj/a", false, false, 0, true,
                        List.of(NfsFixture.rule("*", Access.RW, false, false))), fs(14))),
                h -> null, metrics, Nfs4Server.Options.DEFAULT);
        c = Nfs4TestClient.connect(fx.nfs(), NfsFixture.ROOT).establish("client-1");
    }

    @AfterEach
    void stop() {
        c.close();
        fx.close();
    }

    private static InMemoryFileSystem fs(int volume) {
        return InMemoryFileSystem.create(volume, ExportOptions.DEFAULT);
    }

    // ---- sessions

    @Test
    void aSecondExchangeIdOfTheSameClientFindsItConfirmedAndAnotherOwnerGetsAnotherClientid() throws Exception {
        Reply again = c.compoundWithoutSession().op(OP_EXCHANGE_ID, e -> Nfs4TestClient.exchangeIdArgs(e, "client-1", 1)).send();
        XdrDecoder d = again.next(OP_EXCHANGE_ID, NFS4_OK);
        assertEquals(c.clientId, (long) Nfs4TestClient.read(d::readHyper));
        Nfs4TestClient.read(d::readInt);
        int flags = Nfs4TestClient.read(d::readInt);
        assertTrue((flags & EXCHGID4_FLAG_CONFIRMED_R) != 0, "confirmed by its CREATE_SESSION");

        Reply other = c.compoundWithoutSession().op(OP_EXCHANGE_ID, e -> Nfs4TestClient.exchangeIdArgs(e, "client-2", 1)).send();
        long id2 = Nfs4TestClient.read(other.next(OP_EXCHANGE_ID, NFS4_OK)::readHyper);
        assertNotEquals(c.clientId, id2);
    }

    @Test
    void aRetriedRequestGetsTheSameReplyFromItsSlotAndMisorderedOnesAreRefused() throws Exception {
        int seq = c.slotSeq + 1;
        byte[] call = c.compoundWithoutSession().op(OP_SEQUENCE, e -> Nfs4TestClient.sequenceArgs(e, c.sessionId, seq, 0))
                .op(OP_PUTROOTFH).op(OP_GETFH).bytes();
        Reply first = c.send(call);
        assertEquals(NFS4_OK, first.status);
        Reply retry = c.send(call);
        assertArrayEquals(first.raw, retry.raw, "the retry is answered from the slot");
        c.slotSeq = seq;

        byte[] skipping = c.compoundWithoutSession().op(OP_SEQUENCE,
                e -> Nfs4TestClient.sequenceArgs(e, c.sessionId, seq + 2, 0)).bytes();
        c.send(skipping).next(OP_SEQUENCE, NFS4ERR_SEQ_MISORDERED);
        c.compoundWithoutSession().op(OP_SEQUENCE, e -> Nfs4TestClient.sequenceArgs(e, c.sessionId, 1, 99)).send()
                .next(OP_SEQUENCE, NFS4ERR_BADSLOT);
        c.compoundWithoutSession().op(OP_SEQUENCE, e -> Nfs4TestClient.sequenceArgs(e, new byte[16], 1, 0)).send()
                .next(OP_SEQUENCE, NFS4ERR_BADSESSION);
        assertEquals(NFS4_OK, c.compound().op(OP_PUTROOTFH).send().status, "the slot goes on after the refusals");
    }

    @Test
    void operationsNeedSequenceFirstAndSessionlessOnesMustBeAlone() throws Exception {
        c.compoundWithoutSession().op(OP_PUTROOTFH).send().next(OP_PUTROOTFH, NFS4ERR_OP_NOT_IN_SESSION);
        Reply late = c.compound().op(OP_PUTROOTFH).op(OP_SEQUENCE,
                e -> Nfs4TestClient.sequenceArgs(e, c.sessionId, 1, 1)).send();
        late.next(OP_SEQUENCE, NFS4_OK);
        Nfs4TestClient.skip(late.d, 16 + 20);
        late.next(OP_PUTROOTFH, NFS4_OK);
        late.next(OP_SEQUENCE, NFS4ERR_SEQUENCE_POS);
        c.compoundWithoutSession().op(OP_EXCHANGE_ID, e -> Nfs4TestClient.exchangeIdArgs(e, "x", 1)).op(OP_PUTROOTFH)
                .send().next(OP_EXCHANGE_ID, NFS4ERR_NOT_ONLY_OP);
    }

    @Test
    void destroyingTheSessionEndsItAndTheClientCanThenBeDestroyed() throws Exception {
        c.compoundWithoutSession().op(OP_DESTROY_CLIENTID, e -> e.writeHyper(c.clientId)).send()
                .next(OP_DESTROY_CLIENTID, NFS4ERR_CLIENTID_BUSY);
        c.compoundWithoutSession().op(OP_DESTROY_SESSION, e -> e.writeFixedOpaque(c.sessionId)).send()
                .next(OP_DESTROY_SESSION, NFS4_OK);
        c.compound().send().next(OP_SEQUENCE, NFS4ERR_BADSESSION);
        c.compoundWithoutSession().op(OP_DESTROY_CLIENTID, e -> e.writeHyper(c.clientId)).send()
                .next(OP_DESTROY_CLIENTID, NFS4_OK);
        assertEquals(0, fx.server.nfs4().state().clientCount());
    }

    // ---- the pseudo-filesystem

    @Test
    void thePseudoRootListsTheExportsThisClientMaySeeAndLookupCrossesIntoThem() throws Exception {
        assertEquals(List.of("data", "proj", "ro"), readdirNames(c.compound().op(OP_PUTROOTFH)));
        assertEquals(List.of("a"), readdirNames(c.compound().op(OP_PUTROOTFH).op(OP_LOOKUP, e -> Nfs4TestClient.name(e, "proj"))));

        Reply r = c.compound().op(OP_PUTROOTFH).op(OP_GETATTR, e -> Nfs4TestClient.bitmap(e, Fattr4.TYPE, Fattr4.FSID))
                .op(OP_LOOKUP, e -> Nfs4TestClient.name(e, "data"))
                .op(OP_GETATTR, e -> Nfs4TestClient.bitmap(e, Fattr4.TYPE, Fattr4.FSID)).op(OP_LOOKUPP)
                .op(OP_GETATTR, e -> Nfs4TestClient.bitmap(e, Fattr4.FSID)).send();
        skipSequence(r);
        r.next(OP_PUTROOTFH, NFS4_OK);
        XdrDecoder root = Nfs4TestClient.fattr(r.next(OP_GETATTR, NFS4_OK), Fattr4.TYPE, Fattr4.FSID);
        assertEquals(NF4DIR, (int) Nfs4TestClient.read(root::readInt));
        long rootFsid = Nfs4TestClient.read(root::readHyper) << 32 ^ Nfs4TestClient.read(root::readHyper);
        r.next(OP_LOOKUP, NFS4_OK);
        XdrDecoder data = Nfs4TestClient.fattr(r.next(OP_GETATTR, NFS4_OK), Fattr4.TYPE, Fattr4.FSID);
        assertEquals(NF4DIR, (int) Nfs4TestClient.read(data::readInt));
        long dataFsid = Nfs4TestClient.read(data::readHyper) << 32 ^ Nfs4TestClient.read(data::readHyper);
        assertNotEquals(rootFsid, dataFsid, "an export is a filesystem of its own");
        r.next(OP_LOOKUPP, NFS4_OK);
        XdrDecoder back = Nfs4TestClient.fattr(r.next(OP_GETATTR, NFS4_OK), Fattr4.FSID);
        assertEquals(rootFsid, Nfs4TestClient.read(back::readHyper) << 32 ^ Nfs4TestClient.read(back::readHyper));

        Reply refused = c.compound().op(OP_PUTROOTFH).op(OP_LOOKUP, e -> Nfs4TestClient.name(e, "refused")).send();
        skipSequence(refused);
        refused.next(OP_PUTROOTFH, NFS4_OK);
        refused.next(OP_LOOKUP, NFS4ERR_NOENT);
    }

    // ---- reading

    @Test
    void aFileWrittenOverNfs3IsReadOverNfs4ThroughOpenReadAndClose() throws Exception {
        byte[] content = new byte[300_000];
        new Random(7).nextBytes(content);
        try (Nfs3Client v3 = Nfs3Client.connect(fx.nfs(), NfsFixture.ROOT)) {
            byte[] root = Nfs3Client.mount(fx.mount(), "/data", NfsFixture.ROOT);
            byte[] f = v3.create(root, "f.bin", 0644);
            v3.write(f, 0, content, Nfs3.FILE_SYNC);
        }
        Reply open = c.compound().op(OP_PUTROOTFH).op(OP_LOOKUP, e -> Nfs4TestClient.name(e, "data"))
                .op(OP_OPEN, e -> openArgs(e, "f.bin", OPEN4_SHARE_ACCESS_READ, OPEN4_SHARE_DENY_NONE)).op(OP_GETFH).send();
        skipSequence(open);
        open.next(OP_PUTROOTFH, NFS4_OK);
        open.next(OP_LOOKUP, NFS4_OK);
        XdrDecoder o = open.next(OP_OPEN, NFS4_OK);
        int seqid = Nfs4TestClient.read(o::readInt);
        byte[] other = Nfs4TestClient.read(() -> o.readFixedOpaque(12));
        Nfs4TestClient.skip(o, 4 + 8 + 8 + 4); // cinfo, rflags
        Nfs4TestClient.skip(o, 4 * Nfs4TestClient.read(o::readInt)); // attrset
        assertEquals(OPEN_DELEGATE_NONE, (int) Nfs4TestClient.read(o::readInt));
        XdrDecoder g = open.next(OP_GETFH, NFS4_OK);
        byte[] fh = Nfs4TestClient.read(() -> g.readOpaque(NFS4_FHSIZE));

        java.io.ByteArrayOutputStream got = new java.io.ByteArrayOutputStream();
        boolean eof = false;
        while (!eof) {
            long offset = got.size();
            Reply r = c.compound().op(OP_PUTFH, e -> e.writeOpaque(fh))
                    .op(OP_READ, e -> stateid(e, seqid, other).writeHyper(offset).writeInt(128 * 1024)).send();
            skipSequence(r);
            r.next(OP_PUTFH, NFS4_OK);
            XdrDecoder d = r.next(OP_READ, NFS4_OK);
            eof = Nfs4TestClient.read(d::readBool);
            got.write(Nfs4TestClient.read(() -> d.readOpaque(1 << 20)));
        }
        assertArrayEquals(content, got.toByteArray());

        Reply anonymous = c.compound().op(OP_PUTFH, e -> e.writeOpaque(fh))
                .op(OP_READ, e -> stateid(e, 0, new byte[12]).writeHyper(299_990).writeInt(100)).send();
        skipSequence(anonymous);
        anonymous.next(OP_PUTFH, NFS4_OK);
        XdrDecoder ad = anonymous.next(OP_READ, NFS4_OK);
        assertTrue(Nfs4TestClient.read(ad::readBool), "eof at the end");
        assertEquals(10, Nfs4TestClient.read(() -> ad.readOpaque(1000)).length);

        Reply close = c.compound().op(OP_PUTFH, e -> e.writeOpaque(fh)).op(OP_CLOSE, e -> stateid(e.writeInt(0), seqid, other))
                .send();
        skipSequence(close);
        close.next(OP_PUTFH, NFS4_OK);
        close.next(OP_CLOSE, NFS4_OK);
        assertEquals(0, fx.server.nfs4().state().openCount());
        Reply stale = c.compound().op(OP_PUTFH, e -> e.writeOpaque(fh))
                .op(OP_READ, e -> stateid(e, seqid, other).writeHyper(0).writeInt(10)).send();
        skipSequence(stale);
        stale.next(OP_PUTFH, NFS4_OK);
        stale.next(OP_READ, NFS4ERR_BAD_STATEID);
    }

    @Test
    void aDenyingOpenRefusesAnotherOwnersOpenAndReadOnlyRulesRefuseWriteAccess() throws Exception {
        try (Nfs3Client v3 = Nfs3Client.connect(fx.nfs(), NfsFixture.ROOT)) {
            v3.create(Nfs3Client.mount(fx.mount(), "/data", NfsFixture.ROOT), "shared", 0666);
        }
        Reply first = c.compound().op(OP_PUTROOTFH).op(OP_LOOKUP, e -> Nfs4TestClient.name(e, "data"))
                .op(OP_OPEN, e -> openArgs(e, "shared", OPEN4_SHARE_ACCESS_READ, 2 /* DENY_WRITE */)).send();
        assertEquals(NFS4_OK, first.status);
        Reply second = c.compound().op(OP_PUTROOTFH).op(OP_LOOKUP, e -> Nfs4TestClient.name(e, "data"))
                .op(OP_OPEN, e -> openArgs(e, "shared", OPEN4_SHARE_ACCESS_BOTH, OPEN4_SHARE_DENY_NONE, "owner-2")).send();
        assertEquals(NFS4ERR_SHARE_DENIED, second.status);
        Reply reader = c.compound().op(OP_PUTROOTFH).op(OP_LOOKUP, e -> Nfs4TestClient.name(e, "data"))
                .op(OP_OPEN, e -> openArgs(e, "shared", OPEN4_SHARE_ACCESS_READ, OPEN4_SHARE_DENY_NONE, "owner-2")).send();
        assertEquals(NFS4_OK, reader.status, "reading is not denied");

        try (Nfs3Client v3 = Nfs3Client.connect(fx.nfs(), NfsFixture.ROOT)) {
            assertEquals(Nfs3.NF3DIR, v3.getattr(Nfs3Client.mount(fx.mount(), "/ro", NfsFixture.ROOT)).type());
        }
        Reply ro = c.compound().op(OP_PUTROOTFH).op(OP_LOOKUP, e -> Nfs4TestClient.name(e, "ro"))
                .op(OP_OPEN, e -> openArgs(e, "none", OPEN4_SHARE_ACCESS_WRITE, OPEN4_SHARE_DENY_NONE)).send();
        assertEquals(NFS4ERR_NOENT, ro.status);
    }

    /**
     * NFSv4 opens and another protocol's (SMB's) opens are one share table (RFC 8881 §9.7, MS-FSA
     * 2.1.5.1.2): an SMB open for writing refuses an NFSv4 OPEN that denies writing, one that shares
     * no reading refuses an NFSv4 OPEN for reading; an NFSv4 open that denies writing refuses the
     * other protocol's open for writing and an NFSv3 WRITE, until it is closed.
     */
    @Test
    void nfs4OpensAndAnotherProtocolsOpensAreOneShareTable() throws Exception {
        ShareReservations shares = data.states().shares();
        io.rdmagate.vfs.state.CacheHolder smb = new io.rdmagate.vfs.state.CacheHolder() {
            @Override
            public String protocol() {
                return "smb";
            }

            @Override
            public boolean holdsAnything() {
                return false;
            }

            @Override
            public io.rdmagate.vfs.state.Recall recall(int volumeId, long fileId, long generation, io.rdmagate.vfs.state.Conflict conflict,
                    Object breaker) {
                return null;
            }
        };
        try (Nfs3Client v3 = Nfs3Client.connect(fx.nfs(), NfsFixture.ROOT)) {
            byte[] f = v3.create(Nfs3Client.mount(fx.mount(), "/data", NfsFixture.ROOT), "cross", 0666);
            long id = v3.getattr(f).fileId();
            var smbWriter = shares.reserve(id, 0, ShareReservations.READ | ShareReservations.WRITE, 0, smb, "an smb open");
            assertEquals(NFS4ERR_SHARE_DENIED, openCross(OPEN4_SHARE_ACCESS_READ, 2 /* DENY_WRITE */).status,
                    "an NFSv4 OPEN that denies writing, while an SMB client writes the file");
            smbWriter.release();
            var smbExclusive = shares.reserve(id, 0, ShareReservations.READ,
                    ShareReservations.READ | ShareReservations.WRITE | ShareReservations.DELETE, smb, "an smb open");
            assertEquals(NFS4ERR_SHARE_DENIED, openCross(OPEN4_SHARE_ACCESS_READ, OPEN4_SHARE_DENY_NONE).status,
                    "an NFSv4 OPEN for reading, while an SMB open shares nothing");
            smbExclusive.release();

            Reply open = openCross(OPEN4_SHARE_ACCESS_READ, 2 /* DENY_WRITE */);
            skipSequence(open);
            open.next(OP_PUTROOTFH, NFS4_OK);
            open.next(OP_LOOKUP, NFS4_OK);
            XdrDecoder o = open.next(OP_OPEN, NFS4_OK);
            int seqid = Nfs4TestClient.read(o::readInt);
            byte[] other = Nfs4TestClient.read(() -> o.readFixedOpaque(12));
            assertEquals(io.rdmagate.vfs.VfsError.SHARING_VIOLATION, assertThrows(io.rdmagate.vfs.VfsException.class,
                    () -> shares.reserve(id, 0, ShareReservations.WRITE, 0, smb, "an smb open")).error(),
                    "an SMB open for writing, while an NFSv4 open denies writing");
            assertEquals(Nfs3Status.NFS3ERR_ACCES, assertThrows(Nfs3Client.NfsStatusException.class,
                    () -> v3.write(f, 0, new byte[] {1}, Nfs3.FILE_SYNC)).status(), "an NFSv3 WRITE too");

            Reply close = c.compound().op(OP_PUTROOTFH).op(OP_LOOKUP, e -> Nfs4TestClient.name(e, "data"))
                    .op(OP_LOOKUP, e -> Nfs4TestClient.name(e, "cross"))
                    .op(OP_CLOSE, e -> stateid(e.writeInt(0), seqid, other)).send();
            assertEquals(NFS4_OK, close.status);
            shares.reserve(id, 0, ShareReservations.WRITE, 0, smb, "an smb open").release();
            assertEquals(1, v3.write(f, 0, new byte[] {1}, Nfs3.FILE_SYNC).count(), "closed, the open denies nothing");
        }
    }

    private Reply openCross(int access, int deny) throws Exception {
        return c.compound().op(OP_PUTROOTFH).op(OP_LOOKUP, e -> Nfs4TestClient.name(e, "data"))
                .op(OP_OPEN, e -> openArgs(e, "cross", access, deny)).send();
    }

    // ---- writing

    @Test
    void aFileCreatedWrittenAndTruncatedOverNfs4ReadsBackOverNfs3() throws Exception {
        byte[] content = new byte[200_000];
        new Random(9).nextBytes(content);
        Reply open = c.compound().op(OP_PUTROOTFH).op(OP_LOOKUP, e -> Nfs4TestClient.name(e, "data"))
                .op(OP_OPEN, e -> createArgs(e, "new.bin", 1 /* GUARDED4 */, 0640)).op(OP_GETFH).send();
        skipSequence(open);
        open.next(OP_PUTROOTFH, NFS4_OK);
        open.next(OP_LOOKUP, NFS4_OK);
        XdrDecoder o = open.next(OP_OPEN, NFS4_OK);
        int seqid = Nfs4TestClient.read(o::readInt);
        byte[] other = Nfs4TestClient.read(() -> o.readFixedOpaque(12));
        Nfs4TestClient.read(o::readBool);
        long before = Nfs4TestClient.read(o::readHyper);
        long after = Nfs4TestClient.read(o::readHyper);
        assertNotEquals(before, after, "the directory changed");
        Nfs4TestClient.read(o::readInt);
        XdrDecoder attrset = o;
        assertEquals(2, (int) Nfs4TestClient.read(attrset::readInt), "attrset: the mode was set");
        Nfs4TestClient.skip(o, 8 + 4);
        XdrDecoder g = open.next(OP_GETFH, NFS4_OK);
        byte[] fh = Nfs4TestClient.read(() -> g.readOpaque(NFS4_FHSIZE));

        for (int off = 0; off < content.length; off += 65536) {
            int at = off;
            int n = Math.min(65536, content.length - off);
            Reply w = c.compound().op(OP_PUTFH, e -> e.writeOpaque(fh)).op(OP_WRITE, e -> {
                stateid(e, seqid, other).writeHyper(at).writeInt(0 /* UNSTABLE4 */);
                e.writeOpaque(java.util.Arrays.copyOfRange(content, at, at + n));
            }).send();
            skipSequence(w);
            w.next(OP_PUTFH, NFS4_OK);
            XdrDecoder wr = w.next(OP_WRITE, NFS4_OK);
            assertEquals(n, (int) Nfs4TestClient.read(wr::readInt));
        }
        Reply commit = c.compound().op(OP_PUTFH, e -> e.writeOpaque(fh)).op(OP_COMMIT, e -> e.writeHyper(0).writeInt(0))
                .send();
        assertEquals(NFS4_OK, commit.status);

        try (Nfs3Client v3 = Nfs3Client.connect(fx.nfs(), NfsFixture.ROOT)) {
            byte[] f3 = v3.lookup(Nfs3Client.mount(fx.mount(), "/data", NfsFixture.ROOT), "new.bin");
            assertArrayEquals(fh, f3, "the same file has the same handle under both versions");
            assertArrayEquals(content, v3.read(f3, 0, content.length).data());
            assertEquals(0640, v3.getattr(f3).mode() & 07777);
        }

        Reply truncate = c.compound().op(OP_PUTFH, e -> e.writeOpaque(fh)).op(OP_SETATTR, e -> {
            stateid(e, seqid, other);
            Nfs4TestClient.bitmap(e, Fattr4.SIZE);
            e.writeOpaque(Nfs3Client.encode(v -> v.writeHyper(1000)));
        }).op(OP_GETATTR, e -> Nfs4TestClient.bitmap(e, Fattr4.SIZE)).send();
        skipSequence(truncate);
        truncate.next(OP_PUTFH, NFS4_OK);
        XdrDecoder set = truncate.next(OP_SETATTR, NFS4_OK);
        assertEquals(1, (int) Nfs4TestClient.read(set::readInt));
        Nfs4TestClient.skip(set, 4);
        XdrDecoder size = Nfs4TestClient.fattr(truncate.next(OP_GETATTR, NFS4_OK), Fattr4.SIZE);
        assertEquals(1000L, (long) Nfs4TestClient.read(size::readHyper));

        Reply again = c.compound().op(OP_PUTROOTFH).op(OP_LOOKUP, e -> Nfs4TestClient.name(e, "data"))
                .op(OP_OPEN, e -> createArgs(e, "new.bin", 1, 0640)).send();
        assertEquals(NFS4ERR_EXIST, again.status, "GUARDED4 over an existing file");

        Reply badAttr = c.compound().op(OP_PUTFH, e -> e.writeOpaque(fh)).op(OP_SETATTR, e -> {
            stateid(e, 0, new byte[12]);
            Nfs4TestClient.bitmap(e, Fattr4.TYPE);
            e.writeOpaque(Nfs3Client.encode(v -> v.writeInt(NF4DIR)));
        }).send();
        skipSequence(badAttr);
        badAttr.next(OP_PUTFH, NFS4_OK);
        XdrDecoder bad = badAttr.next(OP_SETATTR, NFS4ERR_INVAL);
        assertEquals(0, (int) Nfs4TestClient.read(bad::readInt), "a failed SETATTR still carries an empty attrsset");
    }

    @Test
    void directoriesSymlinksLinksRenamesAndRemovesChangeTheNamespace() throws Exception {
        Reply r = c.compound().op(OP_PUTROOTFH).op(OP_LOOKUP, e -> Nfs4TestClient.name(e, "data")).op(OP_SAVEFH)
                .op(OP_CREATE, e -> {
                    e.writeInt(NF4DIR);
                    Nfs4TestClient.name(e, "sub");
                    Nfs4TestClient.bitmap(e, Fattr4.MODE);
                    e.writeOpaque(Nfs3Client.encode(v -> v.writeInt(0750)));
                }).op(OP_GETATTR, e -> Nfs4TestClient.bitmap(e, Fattr4.TYPE, Fattr4.MODE))
                .op(OP_RESTOREFH).op(OP_CREATE, e -> {
                    e.writeInt(NF4LNK);
                    e.writeOpaque("sub/target".getBytes(StandardCharsets.UTF_8));
                    Nfs4TestClient.name(e, "link");
                    Nfs4TestClient.bitmap(e);
                    e.writeOpaque(new byte[0]);
                }).op(OP_READLINK).send();
        assertEquals(NFS4_OK, r.status);
        skipSequence(r);
        r.next(OP_PUTROOTFH, NFS4_OK);
        r.next(OP_LOOKUP, NFS4_OK);
        r.next(OP_SAVEFH, NFS4_OK);
        Nfs4TestClient.skip(r.next(OP_CREATE, NFS4_OK), 20 + 12); // change_info4, attrsset {mode}
        XdrDecoder sub = Nfs4TestClient.fattr(r.next(OP_GETATTR, NFS4_OK), Fattr4.TYPE, Fattr4.MODE);
        assertEquals(NF4DIR, (int) Nfs4TestClient.read(sub::readInt));
        assertEquals(0750, (int) Nfs4TestClient.read(sub::readInt));
        r.next(OP_RESTOREFH, NFS4_OK);
        Nfs4TestClient.skip(r.next(OP_CREATE, NFS4_OK), 20 + 4);
        XdrDecoder link = r.next(OP_READLINK, NFS4_OK);
        assertEquals("sub/target", new String(Nfs4TestClient.read(() -> link.readOpaque(1024)), StandardCharsets.UTF_8));

        try (Nfs3Client v3 = Nfs3Client.connect(fx.nfs(), NfsFixture.ROOT)) {
            v3.create(Nfs3Client.mount(fx.mount(), "/data", NfsFixture.ROOT), "a", 0644);
        }
        Reply ns = c.compound().op(OP_PUTROOTFH).op(OP_LOOKUP, e -> Nfs4TestClient.name(e, "data")).op(OP_SAVEFH)
                .op(OP_RENAME, e -> {
                    Nfs4TestClient.name(e, "a");
                    Nfs4TestClient.name(e, "b");
                }).op(OP_LOOKUP, e -> Nfs4TestClient.name(e, "b")).op(OP_SAVEFH).op(OP_PUTROOTFH)
                .op(OP_LOOKUP, e -> Nfs4TestClient.name(e, "data")).op(OP_LINK, e -> Nfs4TestClient.name(e, "c"))
                .op(OP_REMOVE, e -> Nfs4TestClient.name(e, "sub")).send();
        assertEquals(NFS4_OK, ns.status);
        assertEquals(List.of("b", "c", "link"), readdirNamesIn("data"));
        Reply notEmpty = c.compound().op(OP_PUTROOTFH).op(OP_REMOVE, e -> Nfs4TestClient.name(e, "data")).send();
        assertEquals(NFS4ERR_ROFS, notEmpty.status, "the pseudo-filesystem is read-only");
    }

    @Test
    void locksConflictWithEachOtherAndWithNlmAndCloseReleasesThem() throws Exception {
        try (Nfs3Client v3 = Nfs3Client.connect(fx.nfs(), NfsFixture.ROOT)) {
            v3.create(Nfs3Client.mount(fx.mount(), "/data", NfsFixture.ROOT), "locked", 0666);
        }
        int[] seqid = new int[2];
        byte[][] other = new byte[2][];
        for (int i = 0; i < 2; i++) {
            String owner = "owner-" + i;
            Reply r = c.compound().op(OP_PUTROOTFH).op(OP_LOOKUP, e -> Nfs4TestClient.name(e, "data"))
                    .op(OP_OPEN, e -> openArgs(e, "locked", OPEN4_SHARE_ACCESS_BOTH, OPEN4_SHARE_DENY_NONE, owner)).send();
            skipSequence(r);
            r.next(OP_PUTROOTFH, NFS4_OK);
            r.next(OP_LOOKUP, NFS4_OK);
            XdrDecoder o = r.next(OP_OPEN, NFS4_OK);
            seqid[i] = Nfs4TestClient.read(o::readInt);
            other[i] = Nfs4TestClient.read(() -> o.readFixedOpaque(12));
        }
        Reply lock = locked(0, seqid[0], other[0], 0, 100);
        XdrDecoder ls = lock.next(OP_LOCK, NFS4_OK);
        int lockSeqid = Nfs4TestClient.read(ls::readInt);
        byte[] lockOther = Nfs4TestClient.read(() -> ls.readFixedOpaque(12));

        Reply denied = locked(1, seqid[1], other[1], 50, 10);
        XdrDecoder d = denied.next(OP_LOCK, NFS4ERR_DENIED);
        assertEquals(0L, (long) Nfs4TestClient.read(d::readHyper), "the holder's offset");
        assertEquals(100L, (long) Nfs4TestClient.read(d::readHyper), "the holder's length");
        assertEquals(2, (int) Nfs4TestClient.read(d::readInt), "WRITE_LT");
        assertEquals(c.clientId, (long) Nfs4TestClient.read(d::readHyper));
        assertEquals("lock-owner-0", new String(Nfs4TestClient.read(() -> d.readOpaque(1024)), StandardCharsets.UTF_8));

        var fs = fx.exports.all().get(0).fs();
        var file = fs.lookup(io.rdmagate.vfs.Caller.ROOT, fs.root(), "locked").handle();
        var nlmOwner = new io.rdmagate.vfs.lock.LockOwner("nlm:other:1:01", "other", 1, new byte[] {1});
        org.junit.jupiter.api.Assertions.assertThrows(io.rdmagate.vfs.lock.LockConflictException.class,
                () -> fs.locks().lock(file.fileId(), new io.rdmagate.vfs.lock.ByteRangeLock(nlmOwner, 90, 20, false,
                        io.rdmagate.vfs.lock.LockSemantics.POSIX)), "an NLM client is refused the NFSv4 lock");
        fs.locks().lock(file.fileId(), new io.rdmagate.vfs.lock.ByteRangeLock(nlmOwner, 500, 10, true,
                io.rdmagate.vfs.lock.LockSemantics.POSIX));
        locked(1, seqid[1], other[1], 505, 1).next(OP_LOCK, NFS4ERR_DENIED);
        fs.locks().unlock(file.fileId(), nlmOwner, 500, 10, io.rdmagate.vfs.lock.LockSemantics.POSIX);

        byte[] lockedFh = handleOf("locked");
        Reply unlock = c.compound().op(OP_PUTFH, e -> e.writeOpaque(lockedFh)).op(OP_LOCKU, e -> {
            e.writeInt(2).writeInt(0);
            stateid(e, lockSeqid, lockOther).writeHyper(0).writeHyper(-1L);
        }).send();
        assertEquals(NFS4_OK, unlock.status);
        locked(1, seqid[1], other[1], 50, 10).next(OP_LOCK, NFS4_OK);
        assertEquals(1, fs.locks().locks(file.fileId()).size());

        Reply close = c.compound().op(OP_PUTFH, e -> e.writeOpaque(lockedFh))
                .op(OP_CLOSE, e -> stateid(e.writeInt(0), 0, other[1])).send();
        assertEquals(NFS4_OK, close.status);
        assertEquals(0, fs.locks().locks(file.fileId()).size(), "CLOSE released the lock-owner's locks");
    }

    /** LOCK of [offset, offset+length) as a new lock-owner "lock-owner-I" of open I; the reply after PUTFH. */
    private Reply locked(int i, int seqid, byte[] other, long offset, long length) throws IOException {
        byte[] fh = handleOf("locked");
        Reply r = c.compound().op(OP_PUTFH, e -> e.writeOpaque(fh)).op(OP_LOCK, e -> {
            e.writeInt(2).writeBool(false).writeHyper(offset).writeHyper(length).writeBool(true).writeInt(0);
            stateid(e, seqid, other).writeInt(0).writeHyper(0).writeOpaque(("lock-owner-" + i).getBytes(StandardCharsets.UTF_8));
        }).send();
        skipSequence(r);
        r.next(OP_PUTFH, NFS4_OK);
        return r;
    }

    private byte[] handleOf(String name) throws IOException {
        Reply r = c.compound().op(OP_PUTROOTFH).op(OP_LOOKUP, e -> Nfs4TestClient.name(e, "data"))
                .op(OP_LOOKUP, e -> Nfs4TestClient.name(e, name)).op(OP_GETFH).send();
        skipSequence(r);
        r.next(OP_PUTROOTFH, NFS4_OK);
        r.next(OP_LOOKUP, NFS4_OK);
        r.next(OP_LOOKUP, NFS4_OK);
        XdrDecoder g = r.next(OP_GETFH, NFS4_OK);
        return Nfs4TestClient.read(() -> g.readOpaque(NFS4_FHSIZE));
    }

    private List<String> readdirNamesIn(String export) throws IOException {
        Reply r = c.compound().op(OP_PUTROOTFH).op(OP_LOOKUP, e -> Nfs4TestClient.name(e, export)).op(OP_READDIR, e -> {
            e.writeHyper(0);
            e.writeHyper(0);
            e.writeInt(4096);
            e.writeInt(32768);
            Nfs4TestClient.bitmap(e, Fattr4.FILEID);
        }).send();
        skipSequence(r);
        r.next(OP_PUTROOTFH, NFS4_OK);
        r.next(OP_LOOKUP, NFS4_OK);
        XdrDecoder d = r.next(OP_READDIR, NFS4_OK);
        Nfs4TestClient.skip(d, 8);
        List<String> names = new ArrayList<>();
        while (Nfs4TestClient.read(d::readBool)) {
            long cookie = Nfs4TestClient.read(d::readHyper);
            assertTrue(cookie > 2, "cookies 0-2 are reserved");
            names.add(new String(Nfs4TestClient.read(() -> d.readOpaque(255)), StandardCharsets.UTF_8));
            Nfs4TestClient.fattr(d, Fattr4.FILEID);
        }
        java.util.Collections.sort(names);
        return names;
    }

    private static void createArgs(io.rdmagate.oncrpc.xdr.XdrEncoder e, String name, int how, int mode) {
        e.writeInt(0);
        e.writeInt(OPEN4_SHARE_ACCESS_BOTH);
        e.writeInt(OPEN4_SHARE_DENY_NONE);
        e.writeHyper(0);
        e.writeOpaque("owner-1".getBytes(StandardCharsets.UTF_8));
        e.writeInt(OPEN4_CREATE);
        e.writeInt(how);
        Nfs4TestClient.bitmap(e, Fattr4.MODE);
        e.writeOpaque(Nfs3Client.encode(v -> v.writeInt(mode)));
        e.writeInt(CLAIM_NULL);
        Nfs4TestClient.name(e, name);
    }

    @Test
    void theAclSaysWhatTheModeGrantsAndSettingOneSetsTheMode() throws Exception {
        byte[] fh;
        try (Nfs3Client v3 = Nfs3Client.connect(fx.nfs(), NfsFixture.ROOT)) {
            fh = v3.create(Nfs3Client.mount(fx.mount(), "/data", NfsFixture.ROOT), "acl", 0604);
        }
        Reply r = c.compound().op(OP_PUTFH, e -> e.writeOpaque(fh))
                .op(OP_GETATTR, e -> Nfs4TestClient.bitmap(e, Fattr4.ACL, Fattr4.ACLSUPPORT)).send();
        skipSequence(r);
        r.next(OP_PUTFH, NFS4_OK);
        XdrDecoder v = Nfs4TestClient.fattr(r.next(OP_GETATTR, NFS4_OK), Fattr4.ACL, Fattr4.ACLSUPPORT);
        List<String> aces = new ArrayList<>();
        int n = Nfs4TestClient.read(v::readInt);
        for (int i = 0; i < n; i++) {
            int type = Nfs4TestClient.read(v::readInt);
            Nfs4TestClient.read(v::readInt);
            int mask = Nfs4TestClient.read(v::readInt);
            String who = Nfs4TestClient.read(() -> v.readString(64));
            aces.add((type == 0 ? "allow " : "deny ") + who + " " + ((mask & 1) != 0 ? "r" : "-")
                    + ((mask & 2) != 0 ? "w" : "-") + ((mask & 0x20) != 0 ? "x" : "-"));
        }
        assertEquals(List.of("allow OWNER@ rw-", "allow GROUP@ ---", "deny GROUP@ r--", "allow EVERYONE@ r--"), aces,
                "mode 0604: the group, though everyone may read, may not");
        assertEquals(3, (int) Nfs4TestClient.read(v::readInt), "ACL4_SUPPORT_ALLOW_ACL | ACL4_SUPPORT_DENY_ACL");

        Reply set = c.compound().op(OP_PUTFH, e -> e.writeOpaque(fh)).op(OP_SETATTR, e -> {
            stateid(e, 0, new byte[12]);
            Nfs4TestClient.bitmap(e, Fattr4.ACL);
            e.writeOpaque(Nfs3Client.encode(a -> {
                a.writeInt(3);
                a.writeInt(0).writeInt(0).writeInt(0x1 | 0x2 | 0x20).writeString("OWNER@");
                a.writeInt(0).writeInt(0x40).writeInt(0x1 | 0x20).writeString("GROUP@");
                a.writeInt(1).writeInt(0).writeInt(0x1 | 0x2 | 0x20).writeString("EVERYONE@");
            }));
        }).send();
        assertEquals(NFS4_OK, set.status);
        try (Nfs3Client v3 = Nfs3Client.connect(fx.nfs(), NfsFixture.ROOT)) {
            assertEquals(0750, v3.getattr(fh).mode() & 07777, "the ACL's classes became the mode");
        }
        Reply named = c.compound().op(OP_PUTFH, e -> e.writeOpaque(fh)).op(OP_SETATTR, e -> {
            stateid(e, 0, new byte[12]);
            Nfs4TestClient.bitmap(e, Fattr4.ACL);
            e.writeOpaque(Nfs3Client.encode(a -> a.writeInt(1).writeInt(0).writeInt(0).writeInt(1).writeString("alice@example.org")));
        }).send();
        assertEquals(NFS4ERR_INVAL, named.status, "a named user's ACE has no mode bits");
    }

    @Test
    void verifyAndNverifyCompareTheAttributesAsGetattrReportsThem() throws Exception {
        byte[] size = Nfs3Client.encode(v -> v.writeHyper(0));
        try (Nfs3Client v3 = Nfs3Client.connect(fx.nfs(), NfsFixture.ROOT)) {
            v3.create(Nfs3Client.mount(fx.mount(), "/data", NfsFixture.ROOT), "v", 0644);
        }
        Reply ok = c.compound().op(OP_PUTROOTFH).op(OP_LOOKUP, e -> Nfs4TestClient.name(e, "data"))
                .op(OP_LOOKUP, e -> Nfs4TestClient.name(e, "v")).op(OP_VERIFY, e -> {
                    Nfs4TestClient.bitmap(e, Fattr4.SIZE);
                    e.writeOpaque(size);
                }).op(OP_GETFH).send();
        assertEquals(NFS4_OK, ok.status, "VERIFY of the right size lets the COMPOUND go on");
        assertEquals(6, ok.count);
        Reply same = c.compound().op(OP_PUTROOTFH).op(OP_LOOKUP, e -> Nfs4TestClient.name(e, "data"))
                .op(OP_LOOKUP, e -> Nfs4TestClient.name(e, "v")).op(OP_NVERIFY, e -> {
                    Nfs4TestClient.bitmap(e, Fattr4.SIZE);
                    e.writeOpaque(size);
                }).send();
        assertEquals(NFS4ERR_SAME, same.status);
        Reply differs = c.compound().op(OP_PUTROOTFH).op(OP_LOOKUP, e -> Nfs4TestClient.name(e, "data"))
                .op(OP_LOOKUP, e -> Nfs4TestClient.name(e, "v")).op(OP_VERIFY, e -> {
                    Nfs4TestClient.bitmap(e, Fattr4.SIZE);
                    e.writeOpaque(Nfs3Client.encode(v -> v.writeHyper(7)));
                }).send();
        assertEquals(NFS4ERR_NOT_SAME, differs.status);
    }

    @Test
    void aSecondConnectionBindsToTheSessionAndCarriesItsRequests() throws Exception {
        try (Nfs4TestClient second = Nfs4TestClient.connect(fx.nfs(), NfsFixture.ROOT)) {
            second.sessionId = c.sessionId;
            Reply bind = second.compoundWithoutSession().op(OP_BIND_CONN_TO_SESSION, e -> {
                e.writeFixedOpaque(c.sessionId);
                e.writeInt(3); // CDFC4_FORE_OR_BOTH
                e.writeBool(false);
            }).send();
            XdrDecoder b = bind.next(OP_BIND_CONN_TO_SESSION, NFS4_OK);
            Nfs4TestClient.skip(b, 16);
            assertEquals(1, (int) Nfs4TestClient.read(b::readInt), "bound for the fore channel");
            second.slotSeq = c.slotSeq;
            assertEquals(NFS4_OK, second.compound().op(OP_PUTROOTFH).send().status);
            c.slotSeq = second.slotSeq;
            Reply back = second.compoundWithoutSession().op(OP_BIND_CONN_TO_SESSION, e -> {
                e.writeFixedOpaque(c.sessionId);
                e.writeInt(2); // CDFC4_BACK
                e.writeBool(false);
            }).send();
            assertEquals(NFS4ERR_INVAL, back.status, "no back channel is offered");
        }
    }

    // ---- bad COMPOUNDs

    @Test
    void badCompoundsGetTheRfcsErrorsAndTheConnectionKeepsWorking() throws Exception {
        for (int minor : new int[] {3, -1}) {
            Reply r = c.compound(minor).op(OP_PUTROOTFH).send();
            assertEquals(NFS4ERR_MINOR_VERS_MISMATCH, r.status);
            assertEquals(0, r.count, "no operation ran");
        }
        Nfs4TestClient.Compound many = c.compoundWithoutSession();
        for (int i = 0; i < 65; i++) {
            many.op(OP_PUTROOTFH);
        }
        assertEquals(NFS4ERR_TOO_MANY_OPS, many.send().status);

        Reply illegal = c.compound().op(99).send();
        skipSequence(illegal);
        illegal.next(OP_ILLEGAL, NFS4ERR_OP_ILLEGAL);

        Reply past = c.compound().op(OP_PUTROOTFH).count(5).send();
        assertEquals(NFS4ERR_BADXDR, past.status, "an operation count past the buffer");

        Reply bitmap = c.compound().op(OP_PUTROOTFH).op(OP_GETATTR, e -> {
            e.writeInt(9);
            for (int i = 0; i < 9; i++) {
                e.writeInt(-1);
            }
        }).send();
        assertEquals(NFS4ERR_BADXDR, bitmap.status, "an oversize attribute mask");

        Reply utf8 = c.compound().op(OP_PUTROOTFH).op(OP_LOOKUP, e -> e.writeOpaque(new byte[] {'a', (byte) 0xff})).send();
        assertEquals(NFS4ERR_INVAL, utf8.status, "a name that is not UTF-8");
        Reply dot = c.compound().op(OP_PUTROOTFH).op(OP_LOOKUP, e -> Nfs4TestClient.name(e, "..")).send();
        assertEquals(NFS4ERR_BADNAME, dot.status);
        Reply nofh = c.compound().op(OP_GETFH).send();
        assertEquals(NFS4ERR_NOFILEHANDLE, nofh.status);
        Reply v4only = c.compound().op(OP_SETCLIENTID).send();
        assertEquals(NFS4ERR_NOTSUPP, v4only.status, "NFSv4.0's SETCLIENTID is not part of NFSv4.1");

        assertEquals(NFS4_OK, c.compound().op(OP_PUTROOTFH).op(OP_GETFH).send().status, "the connection still works");
    }

    @Test
    void nfs3AndNfs4ShareThePortAndTheMetricsTellThemApart() throws Exception {
        try (Nfs3Client v3 = Nfs3Client.connect(fx.nfs(), NfsFixture.ROOT)) {
            v3.ping();
        }
        c.compound().op(OP_PUTROOTFH).send();
        assertTrue(metrics.find("rdmagate.nfs.requests").tag("version", "4").tag("procedure", "COMPOUND")
                .tag("status", "NFS4_OK").counter().count() >= 1);
        assertTrue(metrics.find("rdmagate.nfs.requests").tag("version", "3").tag("procedure", "NULL").counter().count() >= 1);
    }

    @Test
    void withoutNfs4AVersion4CallIsAProgramMismatch() throws Exception {
        try (NfsFixture v3only = new NfsFixture(List.of(NfsFixture.export(0, "data", fs(21),
                NfsFixture.rule("*", Access.RW, false, false))), h -> null);
                Nfs4TestClient v4 = Nfs4TestClient.connect(v3only.nfs(), NfsFixture.ROOT)) {
            RpcReplyMessage m = v4.rpc.call(PROGRAM, VERSION, PROC_NULL, new byte[0], Nfs4TestClient.TIMEOUT);
            assertEquals(Rpc.PROG_MISMATCH, m.header().acceptStat());
            assertEquals(3, m.header().low());
            assertEquals(3, m.header().high());
        }
    }

    // ---- helpers

    private static void skipSequence(Reply r) throws IOException {
        XdrDecoder d = r.next(OP_SEQUENCE, NFS4_OK);
        Nfs4TestClient.skip(d, 16 + 20);
    }

    private List<String> readdirNames(Nfs4TestClient.Compound at) throws IOException {
        Reply r = at.op(OP_READDIR, e -> {
            e.writeHyper(0);
            e.writeHyper(0);
            e.writeInt(4096);
            e.writeInt(32768);
            Nfs4TestClient.bitmap(e, Fattr4.TYPE);
        }).send();
        assertEquals(NFS4_OK, r.status);
        for (int i = 0; i < r.count - 1; i++) {
            XdrDecoder d = r.d;
            int op = Nfs4TestClient.read(d::readInt);
            Nfs4TestClient.read(d::readInt);
            if (op == OP_SEQUENCE) {
                Nfs4TestClient.skip(d, 16 + 20);
            }
        }
        XdrDecoder d = r.next(OP_READDIR, NFS4_OK);
        Nfs4TestClient.skip(d, 8);
        List<String> names = new ArrayList<>();
        while (Nfs4TestClient.read(d::readBool)) {
            Nfs4TestClient.read(d::readHyper);
            names.add(new String(Nfs4TestClient.read(() -> d.readOpaque(255)), StandardCharsets.UTF_8));
            XdrDecoder a = Nfs4TestClient.fattr(d, Fattr4.TYPE);
            assertEquals(NF4DIR, (int) Nfs4TestClient.read(a::readInt));
        }
        assertTrue(Nfs4TestClient.read(d::readBool), "eof");
        return names;
    }

    private static io.rdmagate.oncrpc.xdr.XdrEncoder stateid(io.rdmagate.oncrpc.xdr.XdrEncoder e, int seqid, byte[] other) {
        e.writeInt(seqid);
        e.writeFixedOpaque(other);
        return e;
    }

    private static void openArgs(io.rdmagate.oncrpc.xdr.XdrEncoder e, String name, int access, int deny) {
        openArgs(e, name, access, deny, "owner-1");
    }

    private static void openArgs(io.rdmagate.oncrpc.xdr.XdrEncoder e, String name, int access, int deny, String owner) {
        e.writeInt(0);
        e.writeInt(access);
        e.writeInt(deny);
        e.writeHyper(0);
        e.writeOpaque(owner.getBytes(StandardCharsets.UTF_8));
        e.writeInt(OPEN4_NOCREATE);
        e.writeInt(CLAIM_NULL);
        Nfs4TestClient.name(e, name);
    }

    @Test
    void theSameOwnerOpeningAgainGetsTheSameStateWithTheNextSeqid() throws Exception {
        try (Nfs3Client v3 = Nfs3Client.connect(fx.nfs(), NfsFixture.ROOT)) {
            v3.create(Nfs3Client.mount(fx.mount(), "/data", NfsFixture.ROOT), "twice", 0666);
        }
        int[] seqids = new int[2];
        byte[][] others = new byte[2][];
        for (int i = 0; i < 2; i++) {
            Reply r = c.compound().op(OP_PUTROOTFH).op(OP_LOOKUP, e -> Nfs4TestClient.name(e, "data"))
                    .op(OP_OPEN, e -> openArgs(e, "twice", OPEN4_SHARE_ACCESS_READ, OPEN4_SHARE_DENY_NONE)).send();
            skipSequence(r);
            r.next(OP_PUTROOTFH, NFS4_OK);
            r.next(OP_LOOKUP, NFS4_OK);
            XdrDecoder o = r.next(OP_OPEN, NFS4_OK);
            seqids[i] = Nfs4TestClient.read(o::readInt);
            others[i] = Nfs4TestClient.read(() -> o.readFixedOpaque(12));
        }
        assertArrayEquals(others[0], others[1]);
        assertEquals(seqids[0] + 1, seqids[1]);
        assertEquals(1, fx.server.nfs4().state().openCount());
        assertFalse(java.util.Arrays.equals(new byte[12], others[0]));
    }
}
