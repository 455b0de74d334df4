package io.rdmagate.nfs;

import static io.rdmagate.nfs.v4.Nfs4.*;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.rdmagate.gateway.spi.config.ClientRule.Access;
import io.rdmagate.nfs.Nfs4TestClient.Reply;
import io.rdmagate.nfs.client.Nfs3Client;
import io.rdmagate.nfs.v3.Nfs3;
import io.rdmagate.nfs.v4.Fattr4;
import io.rdmagate.nfs.v4.Nfs4Server;
import io.rdmagate.oncrpc.xdr.XdrDecoder;
import io.rdmagate.oncrpc.xdr.XdrEncoder;
import io.rdmagate.vfs.Caller;
import io.rdmagate.vfs.ExportOptions;
import io.rdmagate.vfs.FileHandle;
import io.rdmagate.vfs.inmemory.InMemoryFileSystem;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * NFSv4.2 (RFC 7862, RFC 8276) over loopback TCP: sparse files (SEEK, READ_PLUS, ALLOCATE,
 * DEALLOCATE), server-side copy and clone, and user extended attributes, as a Linux client's
 * lseek, fallocate, copy_file_range and getfattr/setfattr use them; and NFSv4.1 beside it.
 */
class Nfs42Test {
    private static final int SEG = 64 * 1024;
    private final SimpleMeterRegistry metrics = new SimpleMeterRegistry();
    private InMemoryFileSystem fs;
    private NfsFixture fx;
    private Nfs4TestClient c;

    @BeforeEach
    void start() throws Exception {
        fs = InMemoryFileSystem.create(11, ExportOptions.DEFAULT);
        fx = new NfsFixture(List.of(NfsFixture.export(0, "data", fs, NfsFixture.rule("127.0.0.0/8", Access.RW, false, false))),
                h -> null, metrics, Nfs4Server.Options.DEFAULT);
        c = Nfs4TestClient.connect(fx.nfs(), NfsFixture.ROOT).establish("client-42");
    }

    @AfterEach
    void stop() {
        c.close();
        fx.close();
    }

    @Test
    void seekAndReadPlusSeeHolesAndDeallocateAndAllocateMakeAndFillThem() throws Exception {
        byte[] fh = file("sparse");
        byte[] a = filled('a', SEG);
        byte[] z = filled('z', SEG);
        write3(fh, 0, a);
        write3(fh, 15L * SEG, z); // 1 MiB: data, a hole of 14 segments, data

        assertEquals(List.of(false, 0L), seek(fh, 0, NFS4_CONTENT_DATA));
        assertEquals(List.of(false, (long) SEG), seek(fh, 0, NFS4_CONTENT_HOLE));
        assertEquals(List.of(false, 15L * SEG), seek(fh, SEG, NFS4_CONTENT_DATA), "the data after the hole");
        assertEquals(List.of(true, 16L * SEG), seek(fh, 15L * SEG, NFS4_CONTENT_HOLE), "the end of the file is a hole");
        assertEquals(NFS4ERR_NXIO, seekStatus(fh, 16L * SEG, NFS4_CONTENT_DATA), "from the end on, ENXIO");

        List<Object[]> first = readPlus(fh, 0, 1 << 20);
        assertEquals(1, first.size() - 1, "one data segment, up to the hole");
        assertSegment(first.get(1), NFS4_CONTENT_DATA, 0, a);
        assertEquals(false, first.get(0)[0], "not at the end");
        List<Object[]> rest = readPlus(fh, SEG, 1 << 20);
        assertEquals(2, rest.size() - 1);
        assertSegment(rest.get(1), NFS4_CONTENT_HOLE, SEG, 14L * SEG);
        assertSegment(rest.get(2), NFS4_CONTENT_DATA, 15L * SEG, z);
        assertEquals(true, rest.get(0)[0], "the end was reached");

        Reply punch = c.compound42().op(OP_PUTFH, e -> e.writeOpaque(fh))
                .op(OP_DEALLOCATE, e -> anonymous(e).writeHyper(0).writeHyper(SEG)).send();
        assertEquals(NFS4_OK, punch.status);
        List<Object[]> punched = readPlus(fh, 0, 2 * SEG);
        assertEquals(1, punched.size() - 1);
        assertSegment(punched.get(1), NFS4_CONTENT_HOLE, 0, 2L * SEG);
        assertArrayEquals(new byte[SEG], read3(fh, 0, SEG), "NFSv3 reads the punched range as zeroes");
        assertEquals(16L * SEG, size(fh), "a punch keeps the size");

        Reply grow = c.compound42().op(OP_PUTFH, e -> e.writeOpaque(fh))
                .op(OP_ALLOCATE, e -> anonymous(e).writeHyper(16L * SEG).writeHyper(SEG)).send();
        assertEquals(NFS4_OK, grow.status);
        assertEquals(17L * SEG, size(fh), "ALLOCATE past the end grows the file");
        Reply empty = c.compound42().op(OP_PUTFH, e -> e.writeOpaque(fh))
                .op(OP_ALLOCATE, e -> anonymous(e).writeHyper(0).writeHyper(0)).send();
        assertEquals(NFS4ERR_INVAL, empty.status, "a range of no bytes");

        Reply v41 = c.compound().op(OP_PUTFH, e -> e.writeOpaque(fh))
                .op(OP_SEEK, e -> anonymous(e).writeHyper(0).writeInt(NFS4_CONTENT_DATA)).send();
        assertEquals(NFS4ERR_OP_ILLEGAL, v41.status, "NFSv4.2's operations are not NFSv4.1's");
    }

    @Test
    void copyAndCloneMoveNoPayloadOverTheWireAndReadBackTheSame() throws Exception {
        byte[] content = new byte[300_000];
        new Random(42).nextBytes(content);
        byte[] src = file("src");
        write3(src, 0, content);
        byte[] dst = file("dst");
        long received = receivedBytes();

        Reply copy = c.compound42().op(OP_PUTFH, e -> e.writeOpaque(src)).op(OP_SAVEFH)
                .op(OP_PUTFH, e -> e.writeOpaque(dst)).op(OP_COPY, e -> copyArgs(anonymous(anonymous(e)), 0, 0, 0, 0))
                .send();
        skip3(copy);
        XdrDecoder d = copy.next(OP_COPY, NFS4_OK);
        assertEquals(0, (int) Nfs4TestClient.read(d::readInt), "no callback: the copy is done");
        assertEquals(content.length, (long) Nfs4TestClient.read(d::readHyper), "count 0 copies to the end");
        assertEquals(0, (int) Nfs4TestClient.read(d::readInt), "UNSTABLE4: COMMIT follows");
        Nfs4TestClient.read(d::readHyper);
        assertTrue(Nfs4TestClient.read(d::readBool), "consecutive");
        assertTrue(Nfs4TestClient.read(d::readBool), "synchronous, though the client offered to wait");
        assertArrayEquals(content, read3(dst, 0, content.length));
        assertTrue(receivedBytes() - received < 4096, "the payload never crossed the wire: "
                + (receivedBytes() - received) + " bytes received");
        assertEquals(content.length, fx.server.nfs4().copiedBytes().sum());

        Reply tail = c.compound42().op(OP_PUTFH, e -> e.writeOpaque(src)).op(OP_SAVEFH)
                .op(OP_PUTFH, e -> e.writeOpaque(dst))
                .op(OP_COPY, e -> copyArgs(anonymous(anonymous(e)), 1000, content.length, 500, 0)).send();
        skip3(tail);
        XdrDecoder td = tail.next(OP_COPY, NFS4_OK);
        assertEquals(0, (int) Nfs4TestClient.read(td::readInt));
        assertEquals(500L, (long) Nfs4TestClient.read(td::readHyper));
        assertArrayEquals(Arrays.copyOfRange(content, 1000, 1500), read3(dst, content.length, 500), "appended at the end");

        Reply beyond = c.compound42().op(OP_PUTFH, e -> e.writeOpaque(src)).op(OP_SAVEFH)
                .op(OP_PUTFH, e -> e.writeOpaque(dst))
                .op(OP_COPY, e -> copyArgs(anonymous(anonymous(e)), content.length - 10, 0, 100, 0)).send();
        assertEquals(NFS4ERR_INVAL, beyond.status, "a range past the source's end");
        Reply remote = c.compound42().op(OP_PUTFH, e -> e.writeOpaque(src)).op(OP_SAVEFH)
                .op(OP_PUTFH, e -> e.writeOpaque(dst))
                .op(OP_COPY, e -> copyArgs(anonymous(anonymous(e)), 0, 0, 10, 1)).send();
        assertEquals(NFS4ERR_NOTSUPP, remote.status, "a copy from another server");
        Reply noSaved = c.compound42().op(OP_PUTFH, e -> e.writeOpaque(dst))
                .op(OP_COPY, e -> copyArgs(anonymous(anonymous(e)), 0, 0, 10, 0)).send();
        assertEquals(NFS4ERR_NOFILEHANDLE, noSaved.status, "no source");

        byte[] cloned = file("cloned");
        Reply clone = c.compound42().op(OP_PUTFH, e -> e.writeOpaque(src)).op(OP_SAVEFH)
                .op(OP_PUTFH, e -> e.writeOpaque(cloned))
                .op(OP_CLONE, e -> anonymous(anonymous(e)).writeHyper(0).writeHyper(0).writeHyper(0)).send();
        assertEquals(NFS4_OK, clone.status);
        assertArrayEquals(content, read3(cloned, 0, content.length));

        Reply status = c.compound42().op(OP_PUTFH, e -> e.writeOpaque(dst)).op(OP_OFFLOAD_STATUS, Nfs42Test::anonymous)
                .send();
        assertEquals(NFS4ERR_BAD_STATEID, status.status, "no copy runs in the background");
    }

    @Test
    void userXattrsAreSetListedReadAndRemovedAndLandInTheBackend() throws Exception {
        byte[] fh = file("tagged");
        Reply set = c.compound42().op(OP_PUTFH, e -> e.writeOpaque(fh)).op(OP_SETXATTR, e -> {
            e.writeInt(1); // SETXATTR4_CREATE
            Nfs4TestClient.name(e, "color");
            e.writeOpaque("blue".getBytes(StandardCharsets.UTF_8));
        }).send();
        skipSequence(set);
        set.next(OP_PUTFH, NFS4_OK);
        XdrDecoder ci = set.next(OP_SETXATTR, NFS4_OK);
        Nfs4TestClient.read(ci::readBool);
        assertNotEquals((long) Nfs4TestClient.read(ci::readHyper), (long) Nfs4TestClient.read(ci::readHyper),
                "the change attribute moved");
        FileHandle h = fs.lookup(Caller.ROOT, fs.root(), "tagged").handle();
        assertArrayEquals("blue".getBytes(StandardCharsets.UTF_8), fs.getxattr(Caller.ROOT, h, "color"),
                "stored as the backend's user.color");

        assertEquals(NFS4ERR_EXIST, setxattr(fh, 1, "color", "red"), "CREATE of one that exists");
        assertEquals(NFS4ERR_NOXATTR, setxattr(fh, 2, "shape", "round"), "REPLACE of one that does not");
        assertEquals(NFS4_OK, setxattr(fh, 0, "shape", "round"));
        assertEquals(NFS4ERR_XATTR2BIG, setxattr(fh, 0, "big", "x".repeat(65537)));

        assertEquals("blue", new String(getxattr(fh, "color"), StandardCharsets.UTF_8));
        assertEquals(List.of("color", "shape"), listxattrs(fh, 0, 4096));
        assertEquals(List.of("shape"), listxattrs(fh, 1, 4096), "from the cookie on");
        Reply small = c.compound42().op(OP_PUTFH, e -> e.writeOpaque(fh))
                .op(OP_LISTXATTRS, e -> e.writeHyper(0).writeInt(20)).send();
        assertEquals(NFS4ERR_TOOSMALL, small.status);

        Reply remove = c.compound42().op(OP_PUTFH, e -> e.writeOpaque(fh))
                .op(OP_REMOVEXATTR, e -> Nfs4TestClient.name(e, "color")).send();
        assertEquals(NFS4_OK, remove.status);
        Reply gone = c.compound42().op(OP_PUTFH, e -> e.writeOpaque(fh))
                .op(OP_GETXATTR, e -> Nfs4TestClient.name(e, "color")).send();
        assertEquals(NFS4ERR_NOXATTR, gone.status);
        assertEquals(List.of("shape"), listxattrs(fh, 0, 4096));

        Reply access = c.compound42().op(OP_PUTFH, e -> e.writeOpaque(fh)).op(OP_ACCESS, e -> e.writeInt(0x1ff)).send();
        skipSequence(access);
        access.next(OP_PUTFH, NFS4_OK);
        XdrDecoder ad = access.next(OP_ACCESS, NFS4_OK);
        assertEquals(0x1ff, (int) Nfs4TestClient.read(ad::readInt), "XAREAD, XAWRITE and XALIST are judged in 4.2");
        assertEquals(0x1c0, Nfs4TestClient.read(ad::readInt) & 0x1c0, "and granted to the owner");
        Reply access41 = c.compound().op(OP_PUTFH, e -> e.writeOpaque(fh)).op(OP_ACCESS, e -> e.writeInt(0x1ff)).send();
        skipSequence(access41);
        access41.next(OP_PUTFH, NFS4_OK);
        assertEquals(0x3f, (int) Nfs4TestClient.read(access41.next(OP_ACCESS, NFS4_OK)::readInt), "but not in 4.1");
    }

    @Test
    void nfs42AttributesAreOfferedToNfs42CompoundsOnly() throws Exception {
        byte[] fh = file("attrs");
        Reply r = c.compound42().op(OP_PUTFH, e -> e.writeOpaque(fh))
                .op(OP_GETATTR, e -> Nfs4TestClient.bitmap(e, Fattr4.XATTR_SUPPORT, Fattr4.CHANGE_ATTR_TYPE)).send();
        skipSequence(r);
        r.next(OP_PUTFH, NFS4_OK);
        XdrDecoder v = Nfs4TestClient.fattr(r.next(OP_GETATTR, NFS4_OK), Fattr4.CHANGE_ATTR_TYPE, Fattr4.XATTR_SUPPORT);
        assertEquals(4, (int) Nfs4TestClient.read(v::readInt), "NFS4_CHANGE_TYPE_IS_UNDEFINED");
        assertTrue(Nfs4TestClient.read(v::readBool), "xattr_support, which a Linux client needs before it asks");
        Reply old = c.compound().op(OP_PUTFH, e -> e.writeOpaque(fh))
                .op(OP_GETATTR, e -> Nfs4TestClient.bitmap(e, Fattr4.XATTR_SUPPORT, Fattr4.SIZE)).send();
        skipSequence(old);
        old.next(OP_PUTFH, NFS4_OK);
        XdrDecoder ov = Nfs4TestClient.fattr(old.next(OP_GETATTR, NFS4_OK), Fattr4.SIZE);
        assertEquals(0L, (long) Nfs4TestClient.read(ov::readHyper));
    }

    @Test
    void aServerOfNfs41OnlyRefusesMinorVersion2() throws Exception {
        try (NfsFixture v41 = new NfsFixture(List.of(NfsFixture.export(0, "data",
                InMemoryFileSystem.create(12, ExportOptions.DEFAULT), NfsFixture.rule("*", Access.RW, false, false))),
                h -> null, new SimpleMeterRegistry(), Nfs4Server.Options.DEFAULT.withMaxMinorVersion(1));
                Nfs4TestClient old = Nfs4TestClient.connect(v41.nfs(), NfsFixture.ROOT).establish("client-41")) {
            Reply r = old.compound42().op(OP_PUTROOTFH).send();
            assertEquals(NFS4ERR_MINOR_VERS_MISMATCH, r.status, "a Linux client then mounts 4.1");
            assertEquals(0, r.count);
            old.slotSeq--;
            assertEquals(NFS4_OK, old.compound().op(OP_PUTROOTFH).send().status);
        }
    }

    // ---- helpers

    private byte[] file(String name) throws IOException {
        try (Nfs3Client v3 = Nfs3Client.connect(fx.nfs(), NfsFixture.ROOT)) {
            return v3.create(Nfs3Client.mount(fx.mount(), "/data", NfsFixture.ROOT), name, 0644);
        }
    }

    private void write3(byte[] fh, long offset, byte[] data) throws IOException {
        try (Nfs3Client v3 = Nfs3Client.connect(fx.nfs(), NfsFixture.ROOT)) {
            for (int at = 0; at < data.length; at += SEG) {
                int n = Math.min(SEG, data.length - at);
                v3.write(fh, offset + at, Arrays.copyOfRange(data, at, at + n), Nfs3.FILE_SYNC);
            }
        }
    }

    private byte[] read3(byte[] fh, long offset, int length) throws IOException {
        try (Nfs3Client v3 = Nfs3Client.connect(fx.nfs(), NfsFixture.ROOT)) {
            java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
            while (out.size() < length) {
                byte[] got = v3.read(fh, offset + out.size(), Math.min(SEG, length - out.size())).data();
                if (got.length == 0) {
                    break;
                }
                out.write(got);
            }
            return out.toByteArray();
        }
    }

    private long size(byte[] fh) throws IOException {
        try (Nfs3Client v3 = Nfs3Client.connect(fx.nfs(), NfsFixture.ROOT)) {
            return v3.getattr(fh).size();
        }
    }

    private long receivedBytes() {
        return (long) metrics.find("rdmagate.nfs.bytes.received").counters().stream().mapToDouble(x -> x.count()).sum();
    }

    private static byte[] filled(char ch, int n) {
        byte[] b = new byte[n];
        Arrays.fill(b, (byte) ch);
        return b;
    }

    /** The anonymous special stateid (all zeros). */
    private static XdrEncoder anonymous(XdrEncoder e) {
        e.writeInt(0);
        e.writeFixedOpaque(new byte[12]);
        return e;
    }

    private static void copyArgs(XdrEncoder e, long srcOffset, long dstOffset, long count, int servers) {
        e.writeHyper(srcOffset).writeHyper(dstOffset).writeHyper(count);
        e.writeBool(true);
        e.writeBool(false);
        e.writeInt(servers);
        for (int i = 0; i < servers; i++) {
            e.writeInt(1); // NL4_NAME
            Nfs4TestClient.name(e, "elsewhere");
        }
    }

    private static void skipSequence(Reply r) throws IOException {
        Nfs4TestClient.skip(r.next(OP_SEQUENCE, NFS4_OK), 16 + 20);
    }

    /** SEQUENCE, PUTFH, SAVEFH, PUTFH. */
    private static void skip3(Reply r) throws IOException {
        skipSequence(r);
        r.next(OP_PUTFH, NFS4_OK);
        r.next(OP_SAVEFH, NFS4_OK);
        r.next(OP_PUTFH, NFS4_OK);
    }

    private List<Object> seek(byte[] fh, long offset, int what) throws IOException {
        Reply r = c.compound42().op(OP_PUTFH, e -> e.writeOpaque(fh))
                .op(OP_SEEK, e -> anonymous(e).writeHyper(offset).writeInt(what)).send();
        skipSequence(r);
        r.next(OP_PUTFH, NFS4_OK);
        XdrDecoder d = r.next(OP_SEEK, NFS4_OK);
        return List.of(Nfs4TestClient.read(d::readBool), Nfs4TestClient.read(d::readHyper));
    }

    private int seekStatus(byte[] fh, long offset, int what) throws IOException {
        return c.compound42().op(OP_PUTFH, e -> e.writeOpaque(fh))
                .op(OP_SEEK, e -> anonymous(e).writeHyper(offset).writeInt(what)).send().status;
    }

    /** [eof], then per segment [type, offset, bytes or hole length]. */
    private List<Object[]> readPlus(byte[] fh, long offset, int count) throws IOException {
        Reply r = c.compound42().op(OP_PUTFH, e -> e.writeOpaque(fh))
                .op(OP_READ_PLUS, e -> anonymous(e).writeHyper(offset).writeInt(count)).send();
        skipSequence(r);
        r.next(OP_PUTFH, NFS4_OK);
        XdrDecoder d = r.next(OP_READ_PLUS, NFS4_OK);
        List<Object[]> out = new ArrayList<>();
        out.add(new Object[] {Nfs4TestClient.read(d::readBool)});
        int n = Nfs4TestClient.read(d::readInt);
        for (int i = 0; i < n; i++) {
            int type = Nfs4TestClient.read(d::readInt);
            long at = Nfs4TestClient.read(d::readHyper);
            Object body = type == NFS4_CONTENT_DATA ? Nfs4TestClient.read(() -> d.readOpaque(1 << 21))
                    : (Object) Nfs4TestClient.read(d::readHyper);
            out.add(new Object[] {type, at, body});
        }
        return out;
    }

    private static void assertSegment(Object[] s, int type, long offset, Object body) {
        assertEquals(type, s[0], "segment type");
        assertEquals(offset, s[1], "segment offset");
        if (body instanceof byte[] b) {
            assertArrayEquals(b, (byte[]) s[2], "segment data");
        } else {
            assertEquals(body, s[2], "hole length");
        }
    }

    private int setxattr(byte[] fh, int option, String name, String value) throws IOException {
        return c.compound42().op(OP_PUTFH, e -> e.writeOpaque(fh)).op(OP_SETXATTR, e -> {
            e.writeInt(option);
            Nfs4TestClient.name(e, name);
            e.writeOpaque(value.getBytes(StandardCharsets.UTF_8));
        }).send().status;
    }

    private byte[] getxattr(byte[] fh, String name) throws IOException {
        Reply r = c.compound42().op(OP_PUTFH, e -> e.writeOpaque(fh)).op(OP_GETXATTR, e -> Nfs4TestClient.name(e, name))
                .send();
        skipSequence(r);
        r.next(OP_PUTFH, NFS4_OK);
        XdrDecoder d = r.next(OP_GETXATTR, NFS4_OK);
        return Nfs4TestClient.read(() -> d.readOpaque(1 << 17));
    }

    private List<String> listxattrs(byte[] fh, long cookie, int maxcount) throws IOException {
        Reply r = c.compound42().op(OP_PUTFH, e -> e.writeOpaque(fh))
                .op(OP_LISTXATTRS, e -> e.writeHyper(cookie).writeInt(maxcount)).send();
        skipSequence(r);
        r.next(OP_PUTFH, NFS4_OK);
        XdrDecoder d = r.next(OP_LISTXATTRS, NFS4_OK);
        Nfs4TestClient.read(d::readHyper);
        int n = Nfs4TestClient.read(d::readInt);
        List<String> names = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            names.add(Nfs4TestClient.read(() -> d.readString(255)));
        }
        assertTrue(Nfs4TestClient.read(d::readBool), "eof");
        return names;
    }
}
