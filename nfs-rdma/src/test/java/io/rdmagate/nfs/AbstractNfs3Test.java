package io.rdmagate.nfs;

import static io.rdmagate.nfs.v3.Nfs3Status.*;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rdmagate.gateway.spi.config.ClientRule.Access;
import io.rdmagate.nfs.client.Nfs3Client;
import io.rdmagate.nfs.client.Nfs3Client.Attr;
import io.rdmagate.nfs.client.Nfs3Client.Entry;
import io.rdmagate.nfs.client.Nfs3Client.NfsStatusException;
import io.rdmagate.nfs.client.Nfs3Client.Result;
import io.rdmagate.nfs.mount.Mount;
import io.rdmagate.nfs.v3.Nfs3;
import io.rdmagate.oncrpc.client.RpcClient;
import io.rdmagate.oncrpc.client.RpcReplyMessage;
import io.rdmagate.oncrpc.rpc.Rpc;
import io.rdmagate.oncrpc.xdr.XdrDecoder;
import io.rdmagate.vfs.VirtualFileSystem;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Every NFSv3 procedure, MOUNT and the bad-input rules, over loopback TCP with the in-repo client,
 * against one vfs backend (the subclasses choose it).
 */
abstract class AbstractNfs3Test {
    NfsFixture fx;
    Nfs3Client nfs;
    byte[] root;

    abstract VirtualFileSystem open(String name, int volumeId) throws Exception;

    @BeforeEach
    void start() throws Exception {
        fx = new NfsFixture(List.of(
                NfsFixture.export(0, "data", open("data", 11), NfsFixture.rule("127.0.0.0/8", Access.RW, false, false)),
                NfsFixture.export(1, "other", open("other", 12), NfsFixture.rule("*", Access.RW, false, false)),
                NfsFixture.export(2, "ro", open("ro", 13), NfsFixture.rule("127.0.0.1", Access.RO, false, false)),
                NfsFixture.export(3, "squash", open("squash", 14), NfsFixture.rule("*", Access.RW, true, false)),
                NfsFixture.export(4, "refused", open("refused", 15), NfsFixture.rule("10.0.0.0/8", Access.RW, false,
                        false))), h -> null);
        nfs = Nfs3Client.connect(fx.nfs(), NfsFixture.ROOT);
        root = Nfs3Client.mount(fx.mount(), "/data", NfsFixture.ROOT);
    }

    @AfterEach
    void stop() throws IOException {
        nfs.close();
        fx.close();
    }

    private static byte[] bytes(int n, long seed) {
        byte[] b = new byte[n];
        new Random(seed).nextBytes(b);
        return b;
    }

    // ---- MOUNT

    @Test
    void mountGivesRootHandleAndRefusesUnknownPathsAndClients() throws Exception {
        assertEquals(NfsExports.HANDLE_LENGTH, root.length);
        assertEquals(Nfs3.NF3DIR, nfs.getattr(root).type());
        NfsStatusException noent = assertThrows(NfsStatusException.class,
                () -> Nfs3Client.mount(fx.mount(), "/nope", NfsFixture.ROOT));
        assertEquals(Mount.MNT3ERR_NOENT, noent.status());
        NfsStatusException refused = assertThrows(NfsStatusException.class,
                () -> Nfs3Client.mount(fx.mount(), "/refused", NfsFixture.ROOT));
        assertEquals(Mount.MNT3ERR_ACCES, refused.status());
        nfs.mkdir(root, "sub", 0755);
        byte[] sub = Nfs3Client.mount(fx.mount(), "/data/sub", NfsFixture.ROOT);
        assertArrayEquals(nfs.lookup(root, "sub"), sub);
    }

    @Test
    void mountExportAndDumpList() throws Exception {
        try (RpcClient c = RpcClient.connect(fx.mount(), Nfs3Client.TIMEOUT)) {
            XdrDecoder d = c.call(Mount.PROGRAM, 3, Mount.EXPORT, new byte[0], Nfs3Client.TIMEOUT).results();
            StringBuilder sb = new StringBuilder();
            while (d.readBool()) {
                sb.append(d.readString(1024)).append(':');
                while (d.readBool()) {
                    sb.append(d.readString(255)).append(',');
                }
                sb.append(' ');
            }
            assertEquals("/data:127.0.0.0/8, /other:*, /ro:127.0.0.1, /squash:*, /refused:10.0.0.0/8, ",
                    sb.toString());
            d = c.call(Mount.PROGRAM, 3, Mount.DUMP, new byte[0], Nfs3Client.TIMEOUT).results();
            assertTrue(d.readBool());
            assertEquals("127.0.0.1", d.readString(255));
            assertEquals("/data", d.readString(1024));
            c.call(Mount.PROGRAM, 3, Mount.UMNT, Nfs3Client.encode(e -> e.writeString("/data")), Nfs3Client.TIMEOUT);
            d = c.call(Mount.PROGRAM, 1, Mount.DUMP, new byte[0], Nfs3Client.TIMEOUT).results();
            assertFalse(d.readBool());
        }
    }

    // ---- attributes and data

    @Test
    void nullGetattrFsinfoFsstatPathconf() throws Exception {
        nfs.ping();
        Result r = nfs.call(Nfs3.FSINFO, e -> e.writeOpaque(root));
        assertEquals(NFS3_OK, r.status());
        XdrDecoder d = r.body();
        assertNotNull(Nfs3Client.postOpAttr(d));
        int[] v = new int[7];
        for (int i = 0; i < 7; i++) {
            v[i] = d.readInt();
        }
        assertArrayEquals(new int[] {1 << 20, 1 << 20, 4096, 1 << 20, 1 << 20, 4096, 64 << 10}, v);
        assertTrue(d.readHyper() > 0); // maxfilesize
        assertEquals(0, d.readInt());
        assertEquals(1, d.readInt()); // time_delta 1 ns
        assertEquals(Nfs3.FSF3_LINK | Nfs3.FSF3_SYMLINK | Nfs3.FSF3_HOMOGENEOUS | Nfs3.FSF3_CANSETTIME, d.readInt());

        r = nfs.call(Nfs3.FSSTAT, e -> e.writeOpaque(root));
        assertEquals(NFS3_OK, r.status());
        Nfs3Client.postOpAttr(r.body());
        long total = r.body().readHyper();
        long free = r.body().readHyper();
        assertTrue(total >= free && total > 0, total + " " + free);

        r = nfs.call(Nfs3.PATHCONF, e -> e.writeOpaque(root));
        assertEquals(NFS3_OK, r.status());
        Nfs3Client.postOpAttr(r.body());
        r.body().readInt();
        assertEquals(255, r.body().readInt());
        assertTrue(r.body().readBool()); // no_trunc
    }

    @Test
    void writeReadCommitRoundTripWithEofAndVerifier() throws Exception {
        byte[] f = nfs.create(root, "file", 0644);
        byte[] data = bytes(1 << 20, 1);
        var w = nfs.write(f, 0, data, Nfs3.FILE_SYNC);
        assertEquals(data.length, w.count());
        assertEquals(Nfs3.FILE_SYNC, w.committed());
        var u = nfs.write(f, data.length, bytes(5000, 2), Nfs3.UNSTABLE);
        assertEquals(5000, u.count());
        assertEquals(w.verifier(), nfs.commit(f));
        assertEquals(data.length + 5000, nfs.getattr(f).size());

        var r = nfs.read(f, 0, 1 << 20);
        assertArrayEquals(data, r.data());
        assertFalse(r.eof());
        var tail = nfs.read(f, data.length, 1 << 20);
        assertArrayEquals(bytes(5000, 2), tail.data());
        assertTrue(tail.eof());
        var past = nfs.read(f, 10L << 20, 100);
        assertEquals(0, past.data().length);
        assertTrue(past.eof());
        // the server releases a READ payload when Netty has written it, which may be just after
        // the client has read the reply: wait a little for the release
        long end = System.nanoTime() + 5_000_000_000L;
        while (fx.pool.leasedBytes() != 0 && System.nanoTime() < end) {
            Thread.onSpinWait();
        }
        assertEquals(0, fx.pool.leasedBytes(), "READ payloads went back to the pool");
    }

    @Test
    void writeReportsWccAndReadOfDirectoryFails() throws Exception {
        byte[] f = nfs.create(root, "w", 0644);
        Result r = nfs.call(Nfs3.WRITE, Nfs3Client.writeArgs(f, 0, new byte[10], 0, 10, Nfs3.DATA_SYNC));
        assertEquals(NFS3_OK, r.status());
        long[] pre = Nfs3Client.preOpAttr(r.body());
        assertEquals(0, pre[0]);
        assertEquals(10, Nfs3Client.postOpAttr(r.body()).size());
        assertEquals(10, r.body().readInt());
        assertTrue(r.body().readInt() >= Nfs3.DATA_SYNC);
        assertEquals(NFS3ERR_ISDIR, nfs.call(Nfs3.READ, Nfs3Client.readArgs(root, 0, 10)).status());
    }

    @Test
    void setattrTruncatesAndHonoursTheCtimeGuard() throws Exception {
        byte[] f = nfs.create(root, "s", 0644);
        nfs.write(f, 0, new byte[100], Nfs3.FILE_SYNC);
        Attr a = nfs.getattr(f);
        Result r = nfs.call(Nfs3.SETATTR, e -> {
            e.writeOpaque(f).writeBool(true).writeInt(0600).writeBool(false).writeBool(false).writeBool(true)
                    .writeHyper(10).writeInt(0).writeInt(0);
            e.writeBool(true).writeInt((int) (a.ctimeNanos() / 1_000_000_000L)).writeInt(
                    (int) (a.ctimeNanos() % 1_000_000_000L));
        });
        assertEquals(NFS3_OK, r.status());
        assertEquals(100, Nfs3Client.preOpAttr(r.body())[0]);
        Attr after = Nfs3Client.postOpAttr(r.body());
        assertEquals(10, after.size());
        assertEquals(0600, after.mode());
        Result stale = nfs.call(Nfs3.SETATTR, e -> {
            e.writeOpaque(f).writeBool(false).writeBool(false).writeBool(false).writeBool(true).writeHyper(0)
                    .writeInt(0).writeInt(0);
            e.writeBool(true).writeInt(1).writeInt(0);
        });
        assertEquals(NFS3ERR_NOT_SYNC, stale.status());
        assertEquals(10, nfs.getattr(f).size());
    }

    @Test
    void createModes() throws Exception {
        nfs.create(root, "c", 0644);
        Result guarded = nfs.call(Nfs3.CREATE, e -> {
            e.writeOpaque(root).writeString("c").writeInt(Nfs3.GUARDED);
            Nfs3Client.sattrNone(e);
        });
        assertEquals(NFS3ERR_EXIST, guarded.status());
        byte[][] fh = new byte[2][];
        for (int i = 0; i < 2; i++) {
            Result x = nfs.call(Nfs3.CREATE, e -> e.writeOpaque(root).writeString("x").writeInt(Nfs3.EXCLUSIVE)
                    .writeHyper(0x1234_5678_9abc_def0L));
            assertEquals(NFS3_OK, x.status(), "exclusive create and its retransmission");
            fh[i] = Nfs3Client.postOpFh(x.body());
        }
        assertArrayEquals(fh[0], fh[1]);
        Result other = nfs.call(Nfs3.CREATE, e -> e.writeOpaque(root).writeString("x").writeInt(Nfs3.EXCLUSIVE)
                .writeHyper(42));
        assertEquals(NFS3ERR_EXIST, other.status());
        Result wcc = nfs.call(Nfs3.CREATE, e -> {
            e.writeOpaque(root).writeString("y").writeInt(Nfs3.UNCHECKED);
            Nfs3Client.sattrMode(e, 0640);
        });
        XdrDecoder d = wcc.body();
        assertNotNull(Nfs3Client.postOpFh(d));
        assertEquals(0640, Nfs3Client.postOpAttr(d).mode());
        assertNotNull(Nfs3Client.preOpAttr(d), "dir pre-op attrs");
        assertNotNull(Nfs3Client.postOpAttr(d), "dir post-op attrs");
    }

    @Test
    void lookupAccessAndDotEntries() throws Exception {
        byte[] dir = nfs.mkdir(root, "d", 0755);
        byte[] f = nfs.create(dir, "f", 0644);
        assertArrayEquals(f, nfs.lookup(dir, "f"));
        assertArrayEquals(dir, nfs.lookup(dir, "."));
        assertArrayEquals(root, nfs.lookup(dir, ".."));
        assertArrayEquals(root, nfs.lookup(root, ".."), "the root is its own parent");
        Result miss = nfs.call(Nfs3.LOOKUP, e -> e.writeOpaque(dir).writeString("nope"));
        assertEquals(NFS3ERR_NOENT, miss.status());
        assertNotNull(Nfs3Client.postOpAttr(miss.body()), "dir attributes on failure");
        Result notdir = nfs.call(Nfs3.LOOKUP, e -> e.writeOpaque(f).writeString("x"));
        assertEquals(NFS3ERR_NOTDIR, notdir.status());

        try (Nfs3Client alice = Nfs3Client.connect(fx.nfs(), NfsFixture.ALICE)) {
            Result acc = alice.call(Nfs3.ACCESS, e -> e.writeOpaque(f).writeInt(0x3f));
            assertEquals(NFS3_OK, acc.status());
            Nfs3Client.postOpAttr(acc.body());
            assertEquals(VirtualFileSystem.ACCESS_READ, acc.body().readInt() & 0x3f & ~VirtualFileSystem.ACCESS_LOOKUP
                    & ~VirtualFileSystem.ACCESS_EXECUTE);
        }
    }

    @Test
    void symlinkReadlinkLinkAndMknod() throws Exception {
        Result s = nfs.call(Nfs3.SYMLINK, e -> {
            e.writeOpaque(root).writeString("l");
            Nfs3Client.sattrNone(e);
            e.writeString("../outside/target");
        });
        assertEquals(NFS3_OK, s.status());
        byte[] l = Nfs3Client.postOpFh(s.body());
        Result rl = nfs.call(Nfs3.READLINK, e -> e.writeOpaque(l));
        assertEquals(NFS3_OK, rl.status());
        Nfs3Client.postOpAttr(rl.body());
        assertEquals("../outside/target", rl.body().readString(4096));
        byte[] f = nfs.create(root, "f", 0644);
        assertEquals(NFS3ERR_INVAL, nfs.call(Nfs3.READLINK, e -> e.writeOpaque(f)).status());

        Result ln = nfs.call(Nfs3.LINK, e -> e.writeOpaque(f).writeOpaque(root).writeString("f2"));
        assertEquals(NFS3_OK, ln.status());
        assertEquals(2, Nfs3Client.postOpAttr(ln.body()).nlink());
        assertArrayEquals(f, nfs.lookup(root, "f2"));

        Result fifo = nfs.call(Nfs3.MKNOD, e -> {
            e.writeOpaque(root).writeString("p").writeInt(Nfs3.NF3FIFO);
            Nfs3Client.sattrNone(e);
        });
        assertEquals(NFS3ERR_NOTSUPP, fifo.status());
        Result chr = nfs.call(Nfs3.MKNOD, e -> {
            e.writeOpaque(root).writeString("c").writeInt(Nfs3.NF3CHR);
            Nfs3Client.sattrNone(e);
            e.writeInt(1).writeInt(3);
        });
        assertEquals(NFS3ERR_NOTSUPP, chr.status());
        assertEquals(NFS3ERR_BADTYPE, nfs.call(Nfs3.MKNOD, e -> e.writeOpaque(root).writeString("r")
                .writeInt(Nfs3.NF3REG)).status());
    }

    @Test
    void removeRmdirRename() throws Exception {
        byte[] d = nfs.mkdir(root, "d", 0755);
        nfs.create(d, "f", 0644);
        Result notEmpty = nfs.call(Nfs3.RMDIR, e -> e.writeOpaque(root).writeString("d"));
        assertEquals(NFS3ERR_NOTEMPTY, notEmpty.status());
        assertNotNull(Nfs3Client.preOpAttr(notEmpty.body()));
        nfs.rename(d, "f", root, "g");
        assertEquals(NFS3ERR_NOENT, nfs.call(Nfs3.LOOKUP, e -> e.writeOpaque(d).writeString("f")).status());
        nfs.lookup(root, "g");
        Result dirAsFile = nfs.call(Nfs3.REMOVE, e -> e.writeOpaque(root).writeString("d"));
        assertTrue(dirAsFile.status() == NFS3ERR_ISDIR || dirAsFile.status() == NFS3ERR_PERM, "" + dirAsFile.status());
        nfs.rmdir(root, "d");
        nfs.remove(root, "g");
        assertEquals(NFS3ERR_NOENT, nfs.call(Nfs3.REMOVE, e -> e.writeOpaque(root).writeString("g")).status());
        byte[] otherRoot = Nfs3Client.mount(fx.mount(), "/other", NfsFixture.ROOT);
        nfs.create(root, "h", 0644);
        assertEquals(NFS3ERR_XDEV, nfs.call(Nfs3.RENAME, e -> e.writeOpaque(root).writeString("h")
                .writeOpaque(otherRoot).writeString("h")).status());
    }

    @Test
    void readdirAndReaddirplusPageThroughEveryEntry() throws Exception {
        byte[] d = nfs.mkdir(root, "big", 0755);
        Set<String> expected = new HashSet<>(Set.of(".", ".."));
        for (int i = 0; i < 300; i++) {
            String name = "entry-with-a-longish-name-" + i;
            nfs.create(d, name, 0644);
            expected.add(name);
        }
        List<Entry> small = nfs.readdir(d, 1024);
        assertEquals(expected, small.stream().map(Entry::name).collect(Collectors.toSet()));
        assertEquals(expected.size(), small.size(), "no entry twice");
        List<Entry> plus = nfs.readdirplus(d, 4096);
        assertEquals(expected, plus.stream().map(Entry::name).collect(Collectors.toSet()));
        assertEquals(expected.size(), plus.size());
        Entry e1 = plus.stream().filter(e -> e.name().equals("entry-with-a-longish-name-7")).findFirst().orElseThrow();
        assertArrayEquals(nfs.lookup(d, e1.name()), e1.handle());

        Result tiny = nfs.call(Nfs3.READDIR, e -> e.writeOpaque(d).writeHyper(0).writeHyper(0).writeInt(64));
        assertEquals(NFS3ERR_TOOSMALL, tiny.status());
        Result bad = nfs.call(Nfs3.READDIR, e -> e.writeOpaque(d).writeHyper(5).writeHyper(0).writeInt(4096));
        assertEquals(NFS3ERR_BAD_COOKIE, bad.status());
    }

    // ---- access control

    @Test
    void readOnlyRuleRefusesChangesAndSquashingOwnsFiles() throws Exception {
        byte[] ro = Nfs3Client.mount(fx.mount(), "/ro", NfsFixture.ROOT);
        Result c = nfs.call(Nfs3.CREATE, e -> {
            e.writeOpaque(ro).writeString("x").writeInt(Nfs3.UNCHECKED);
            Nfs3Client.sattrNone(e);
        });
        assertEquals(NFS3ERR_ROFS, c.status());
        Result acc = nfs.call(Nfs3.ACCESS, e -> e.writeOpaque(ro).writeInt(0x3f));
        Nfs3Client.postOpAttr(acc.body());
        assertEquals(0, acc.body().readInt() & (VirtualFileSystem.ACCESS_MODIFY | VirtualFileSystem.ACCESS_EXTEND
                | VirtualFileSystem.ACCESS_DELETE));

        byte[] sq = Nfs3Client.mount(fx.mount(), "/squash", NfsFixture.ROOT);
        Result denied = nfs.call(Nfs3.MKDIR, e -> {
            e.writeOpaque(sq).writeString("x");
            Nfs3Client.sattrNone(e);
        });
        assertEquals(NFS3ERR_ACCES, denied.status(), "squashed root may not write into root's 0755 directory");
        nfs.call(Nfs3.SETATTR, e -> {
            e.writeOpaque(sq).writeBool(true).writeInt(0777);
            e.writeBool(false).writeBool(false).writeBool(false).writeInt(0).writeInt(0).writeBool(false);
        });
        // the chmod above was squashed too: it is refused, and the directory keeps its mode
        assertEquals(0755, nfs.getattr(sq).mode() & 0777);

        byte[] refused = NfsExports.wire(fx.exports.all().get(4), fx.exports.all().get(4).fs().root());
        assertEquals(NFS3ERR_ACCES, nfs.call(Nfs3.GETATTR, e -> e.writeOpaque(refused)).status());
    }

    // ---- bad input

    @Test
    void badNamesGetTheirErrors() throws Exception {
        for (String name : List.of("a/b", "a\0b", "")) {
            Result r = nfs.call(Nfs3.CREATE, e -> {
                e.writeOpaque(root).writeString(name).writeInt(Nfs3.UNCHECKED);
                Nfs3Client.sattrNone(e);
            });
            assertEquals(NFS3ERR_INVAL, r.status(), "name " + name.replace("\0", "\\0"));
        }
        String longName = "n".repeat(256);
        Result r = nfs.call(Nfs3.MKDIR, e -> {
            e.writeOpaque(root).writeString(longName);
            Nfs3Client.sattrNone(e);
        });
        assertEquals(NFS3ERR_NAMETOOLONG, r.status());
        assertEquals(NFS3ERR_NAMETOOLONG, nfs.call(Nfs3.LOOKUP, e -> e.writeOpaque(root).writeString(longName))
                .status());
        IOException garbage = assertThrows(IOException.class,
                () -> nfs.call(Nfs3.LOOKUP, e -> e.writeOpaque(root).writeString("n".repeat(5000))));
        assertTrue(garbage.getMessage().contains("GARBAGE") || garbage.getMessage().contains("accept"),
                garbage.getMessage());
        nfs.ping();
    }

    @Test
    void forgedAndForeignHandles() throws Exception {
        assertEquals(NFS3ERR_BADHANDLE, nfs.call(Nfs3.GETATTR, e -> e.writeOpaque(new byte[28])).status());
        assertEquals(NFS3ERR_BADHANDLE, nfs.call(Nfs3.GETATTR, e -> e.writeOpaque(new byte[0])).status());
        assertEquals(NFS3ERR_BADHANDLE, nfs.call(Nfs3.GETATTR, e -> e.writeOpaque(Arrays.copyOf(root, 40)))
                .status());
        byte[] unknownExport = root.clone();
        unknownExport[3] = 99;
        assertEquals(NFS3ERR_STALE, nfs.call(Nfs3.GETATTR, e -> e.writeOpaque(unknownExport)).status());
        byte[] relabelled = root.clone();
        relabelled[3] = 1; // export "other", whose volume is not this handle's
        assertEquals(NFS3ERR_BADHANDLE, nfs.call(Nfs3.GETATTR, e -> e.writeOpaque(relabelled)).status());
        byte[] retyped = root.clone();
        for (int t = 0; t < 7; t++) {
            retyped[4 + 1] = (byte) t; // the vfs handle's type byte: the root is a directory (1)
            assertEquals(t == 1 ? NFS3_OK : NFS3ERR_BADHANDLE, nfs.call(Nfs3.GETATTR, e -> e.writeOpaque(retyped)).status(),
                    "type byte " + t);
        }
        byte[] f = nfs.create(root, "gone", 0644);
        nfs.remove(root, "gone");
        assertEquals(NFS3ERR_STALE, nfs.call(Nfs3.GETATTR, e -> e.writeOpaque(f)).status());
        byte[] otherRoot = Nfs3Client.mount(fx.mount(), "/other", NfsFixture.ROOT);
        assertEquals(NFS3_OK, nfs.call(Nfs3.GETATTR, e -> e.writeOpaque(otherRoot)).status());
    }

    @Test
    void garbageArgumentsLeaveTheConnectionWorking() throws Exception {
        RpcReplyMessage truncated = nfs.rpc().call(Nfs3.PROGRAM, 3, Nfs3.READ, Arrays.copyOf(
                Nfs3Client.readArgs(root, 0, 10), 20), Nfs3Client.TIMEOUT);
        assertEquals(Rpc.GARBAGE_ARGS, truncated.header().acceptStat());
        RpcReplyMessage oversizeFh = nfs.rpc().call(Nfs3.PROGRAM, 3, Nfs3.GETATTR,
                Nfs3Client.encode(e -> e.writeOpaque(new byte[65])), Nfs3Client.TIMEOUT);
        assertEquals(Rpc.GARBAGE_ARGS, oversizeFh.header().acceptStat());
        byte[] f = nfs.create(root, "w", 0644);
        byte[] lying = Nfs3Client.encode(e -> e.writeOpaque(f).writeHyper(0).writeInt(100).writeInt(0).writeInt(4)
                .writeInt(7));
        assertEquals(Rpc.GARBAGE_ARGS, nfs.rpc().call(Nfs3.PROGRAM, 3, Nfs3.WRITE, lying, Nfs3Client.TIMEOUT)
                .header().acceptStat());
        byte[] badEnum = Nfs3Client.encode(e -> e.writeOpaque(root).writeString("z").writeInt(7));
        assertEquals(Rpc.GARBAGE_ARGS, nfs.rpc().call(Nfs3.PROGRAM, 3, Nfs3.CREATE, badEnum, Nfs3Client.TIMEOUT)
                .header().acceptStat());
        assertEquals(Rpc.PROC_UNAVAIL, nfs.rpc().call(Nfs3.PROGRAM, 3, 22, new byte[0], Nfs3Client.TIMEOUT)
                .header().acceptStat());
        assertEquals(Rpc.PROG_MISMATCH, nfs.rpc().call(Nfs3.PROGRAM, 4, 0, new byte[0], Nfs3Client.TIMEOUT)
                .header().acceptStat());
        assertEquals(NFS3_OK, nfs.call(Nfs3.GETATTR, e -> e.writeOpaque(root)).status());
        assertFalse(nfs.rpc().isClosed());
    }

    @Test
    void retransmittedRemoveGetsTheFirstReply() throws Exception {
        nfs.create(root, "once", 0644);
        byte[] args = Nfs3Client.encode(e -> e.writeOpaque(root).writeString("once"));
        int xid = nfs.rpc().nextXid();
        var first = RpcClient.await(nfs.rpc().callAsync(xid, Nfs3.PROGRAM, 3, Nfs3.REMOVE, args), Nfs3Client.TIMEOUT);
        var again = RpcClient.await(nfs.rpc().callAsync(xid, Nfs3.PROGRAM, 3, Nfs3.REMOVE, args), Nfs3Client.TIMEOUT);
        assertEquals(NFS3_OK, Nfs3Client.result(Nfs3.REMOVE, first).status());
        assertEquals(NFS3_OK, Nfs3Client.result(Nfs3.REMOVE, again).status(), "replayed, not NOENT");
    }

    @Test
    void concurrentClientsShareOneServer() throws Exception {
        byte[] f = nfs.create(root, "shared", 0644);
        byte[] data = "hello over NFSv3".getBytes(StandardCharsets.UTF_8);
        nfs.write(f, 0, data, Nfs3.FILE_SYNC);
        Thread[] ts = new Thread[8];
        Throwable[] failed = new Throwable[1];
        for (int i = 0; i < ts.length; i++) {
            ts[i] = Thread.ofVirtual().start(() -> {
                try (Nfs3Client c = Nfs3Client.connect(fx.nfs(), NfsFixture.ROOT)) {
                    for (int k = 0; k < 50; k++) {
                        assertArrayEquals(data, c.read(f, 0, 100).data());
                    }
                } catch (Throwable t) {
                    failed[0] = t;
                }
            });
        }
        for (Thread t : ts) {
            t.join();
        }
        assertNull(failed[0]);
    }
}
