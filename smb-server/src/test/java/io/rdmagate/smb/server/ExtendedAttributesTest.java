package io.rdmagate.smb.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rdmagate.smb.mserref.NtStatus;
import io.rdmagate.smb.mssmb2.Smb2Header;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.UserDefinedFileAttributeView;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Extended attributes (MS-FSCC 2.4.15) over the wire, on a local directory: SET_INFO and a CREATE's
 * EA buffer set the file's user xattrs, QUERY_INFO lists them whole entry by whole entry, by name,
 * and from where the last query stopped, and bad lists get the statuses Windows gives.
 */
class ExtendedAttributesTest {
    static final int FILE_FULL_EA = 15;
    static final int FILE_EA = 7;
    static final int READ_ATTRIBUTES = 0x80;
    static final int READ_EA = 0x8;
    static final int WRITE_EA = 0x10;
    static final int FILE_OPEN = 1;
    static final int FILE_CREATE = 2;
    static final int SL_RESTART_SCAN = 1;
    static final int SL_RETURN_SINGLE_ENTRY = 2;

    @RegisterExtension
    static final SmbjShare smb = new SmbjShare();
    static Path export;
    static int port;

    @BeforeAll
    static void start() {
        export = smb.export();
        port = smb.server().port();
    }

    /** FILE_FULL_EA_INFORMATION of name/value pairs, written by hand: each entry 4-byte aligned. */
    static byte[] eaList(String... nameValue) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (int i = 0; i < nameValue.length; i += 2) {
            byte[] n = nameValue[i].getBytes(StandardCharsets.US_ASCII);
            byte[] v = nameValue[i + 1].getBytes(StandardCharsets.UTF_8);
            int size = 8 + n.length + 1 + v.length;
            int padded = i + 2 < nameValue.length ? (size + 3) & ~3 : size;
            ByteBuffer e = ByteBuffer.allocate(padded).order(ByteOrder.LITTLE_ENDIAN);
            e.putInt(i + 2 < nameValue.length ? padded : 0).put((byte) 0).put((byte) n.length).putShort((short) v.length)
                    .put(n).put((byte) 0).put(v);
            out.writeBytes(e.array());
        }
        return out.toByteArray();
    }

    /** FILE_GET_EA_INFORMATION of names. */
    static byte[] nameList(String... names) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (int i = 0; i < names.length; i++) {
            byte[] n = names[i].getBytes(StandardCharsets.US_ASCII);
            int size = 5 + n.length + 1;
            int padded = i + 1 < names.length ? (size + 3) & ~3 : size;
            ByteBuffer e = ByteBuffer.allocate(padded).order(ByteOrder.LITTLE_ENDIAN);
            e.putInt(i + 1 < names.length ? padded : 0).put((byte) n.length).put(n).put((byte) 0);
            out.writeBytes(e.array());
        }
        return out.toByteArray();
    }

    /** The name=value pairs of a FILE_FULL_EA_INFORMATION list. */
    static List<String> pairs(ByteBuffer r) {
        int at = r.getShort(64 + 2) & 0xffff; // OutputBufferOffset, from the header's start
        int end = at + r.getInt(64 + 4);
        List<String> out = new ArrayList<>();
        while (at < end) {
            int next = r.getInt(at);
            int nameLength = r.get(at + 5) & 0xff;
            int valueLength = r.getShort(at + 6) & 0xffff;
            byte[] n = new byte[nameLength];
            byte[] v = new byte[valueLength];
            r.get(at + 8, n).get(at + 8 + nameLength + 1, v);
            out.add(new String(n, StandardCharsets.US_ASCII) + "=" + new String(v, StandardCharsets.UTF_8));
            if (next == 0) {
                break;
            }
            at += next;
        }
        return out;
    }

    static String xattr(Path f, String name) throws Exception {
        UserDefinedFileAttributeView view = Files.getFileAttributeView(f, UserDefinedFileAttributeView.class);
        if (!view.list().contains(name)) {
            return null;
        }
        ByteBuffer b = ByteBuffer.allocate(view.size(name));
        view.read(name, b);
        return new String(b.array(), StandardCharsets.UTF_8);
    }

    @Test
    void setQueriedWholeEntriesByNameAndFromWhereTheLastQueryStopped() throws Exception {
        Path f = Files.writeString(export.resolve("eas.txt"), "x");
        try (RawSession s = new RawSession(port, "data")) {
            long[] id = RawSession.fileId(expectOk(s.request(s.create("eas.txt", READ_EA | WRITE_EA | READ_ATTRIBUTES,
                    FILE_OPEN, 0))));
            expectOk(s.request(s.setInfo(id[0], id[1], FILE_FULL_EA, eaList("Color", "blue", "Shape", "round"))));
            assertEquals("blue", xattr(f, "Color"), "the EA is the file's user xattr");
            assertEquals("round", xattr(f, "Shape"));
            // another case names the same EA: replaced under the name it has
            expectOk(s.request(s.setInfo(id[0], id[1], FILE_FULL_EA, eaList("COLOR", "green"))));
            assertEquals("green", xattr(f, "Color"));
            assertFalse(Files.getFileAttributeView(f, UserDefinedFileAttributeView.class).list().contains("COLOR"));

            ByteBuffer all = expectOk(s.request(s.queryInfo(id[0], id[1], 1, FILE_FULL_EA, 4096, SL_RESTART_SCAN, new byte[0])));
            assertEquals(List.of("Color=green", "Shape=round"), pairs(all));
            ByteBuffer size = expectOk(s.request(s.queryInfo(id[0], id[1], 1, FILE_EA, 4, 0, new byte[0])));
            assertEquals(all.getInt(64 + 4), size.getInt(72), "EaSize is the length of the list");
            assertEquals(all.getInt(64 + 4), smb.share().getFileInformation("eas.txt",
                    com.hierynomus.msfscc.fileinformation.FileAllInformation.class).getEaInformation().getEaSize(),
                    "and smbj reads it in FileAllInformation");

            // room for one entry: it alone, and BUFFER_OVERFLOW; the next query goes on from there
            ByteBuffer first = s.request(s.queryInfo(id[0], id[1], 1, FILE_FULL_EA, 20, SL_RESTART_SCAN, new byte[0]));
            assertEquals(NtStatus.BUFFER_OVERFLOW, Smb2Header.status(first));
            assertEquals(List.of("Color=green"), pairs(first));
            assertEquals(List.of("Shape=round"), pairs(expectOk(s.request(s.queryInfo(id[0], id[1], 1, FILE_FULL_EA, 4096,
                    0, new byte[0])))));
            assertEquals(NtStatus.NO_MORE_EAS, Smb2Header.status(s.request(s.queryInfo(id[0], id[1], 1, FILE_FULL_EA,
                    4096, 0, new byte[0]))));
            assertEquals(List.of("Color=green"), pairs(expectOk(s.request(s.queryInfo(id[0], id[1], 1, FILE_FULL_EA,
                    4096, SL_RESTART_SCAN | SL_RETURN_SINGLE_ENTRY, new byte[0])))));
            assertEquals(NtStatus.BUFFER_TOO_SMALL, Smb2Header.status(s.request(s.queryInfo(id[0], id[1], 1, FILE_FULL_EA,
                    8, SL_RESTART_SCAN, new byte[0]))));

            // by name, in the order asked, without case; one the file lacks with an empty value
            assertEquals(List.of("Shape=round", "Missing=", "Color=green"), pairs(expectOk(s.request(s.queryInfo(id[0],
                    id[1], 1, FILE_FULL_EA, 4096, 0, nameList("shape", "Missing", "Color"))))));

            // an empty value removes it; removing one that is not there is no error
            expectOk(s.request(s.setInfo(id[0], id[1], FILE_FULL_EA, eaList("Shape", "", "Never", ""))));
            assertEquals(null, xattr(f, "Shape"));
            expectOk(s.request(s.setInfo(id[0], id[1], FILE_FULL_EA, eaList("color", ""))));
            assertEquals(NtStatus.NO_EAS_ON_FILE, Smb2Header.status(s.request(s.queryInfo(id[0], id[1], 1, FILE_FULL_EA,
                    4096, SL_RESTART_SCAN, new byte[0]))));
            expectOk(s.request(s.close(id[0], id[1])));
        }
    }

    @Test
    void badListsAndOpensWithoutEaAccessAreRefused() throws Exception {
        Path f = Files.writeString(export.resolve("bad.txt"), "x");
        try (RawSession s = new RawSession(port, "data")) {
            long[] id = RawSession.fileId(expectOk(s.request(s.create("bad.txt", READ_EA | WRITE_EA, FILE_OPEN, 0))));
            assertEquals(NtStatus.INVALID_EA_NAME, Smb2Header.status(s.request(s.setInfo(id[0], id[1], FILE_FULL_EA,
                    eaList("a*b", "v")))));
            byte[] misaligned = eaList("A", "1", "B", "2");
            ByteBuffer.wrap(misaligned).order(ByteOrder.LITTLE_ENDIAN).putInt(0, 13); // past the first, unaligned
            assertEquals(NtStatus.EA_LIST_INCONSISTENT, Smb2Header.status(s.request(s.setInfo(id[0], id[1], FILE_FULL_EA,
                    misaligned))));
            byte[] beyond = eaList("A", "1");
            ByteBuffer.wrap(beyond).order(ByteOrder.LITTLE_ENDIAN).putShort(6, (short) 200); // a value past the end
            assertEquals(NtStatus.EA_LIST_INCONSISTENT, Smb2Header.status(s.request(s.setInfo(id[0], id[1], FILE_FULL_EA,
                    beyond))));
            assertEquals(NtStatus.EA_LIST_INCONSISTENT, Smb2Header.status(s.request(s.queryInfo(id[0], id[1], 1,
                    FILE_FULL_EA, 4096, 0, new byte[] {0, 0, 0, 0, 9, 'x'}))));
            assertTrue(Files.getFileAttributeView(f, UserDefinedFileAttributeView.class).list().isEmpty(),
                    "nothing of a refused list was set");
            expectOk(s.request(s.close(id[0], id[1])));

            long[] plain = RawSession.fileId(expectOk(s.request(s.create("bad.txt", READ_ATTRIBUTES, FILE_OPEN, 0))));
            assertEquals(NtStatus.ACCESS_DENIED, Smb2Header.status(s.request(s.setInfo(plain[0], plain[1], FILE_FULL_EA,
                    eaList("A", "1")))));
            assertEquals(NtStatus.ACCESS_DENIED, Smb2Header.status(s.request(s.queryInfo(plain[0], plain[1], 1,
                    FILE_FULL_EA, 4096, 0, new byte[0]))));
            expectOk(s.request(s.close(plain[0], plain[1])));
        }
    }

    @Test
    void aCreateWithAnEaBufferMakesTheFileWithItsEas() throws Exception {
        try (RawSession s = new RawSession(port, "data")) {
            long[] id = RawSession.fileId(expectOk(s.request(s.create("made.txt", READ_EA | WRITE_EA, FILE_CREATE, 0,
                    "ExtA", eaList("Author", "smb", "Rev", "7")))));
            assertEquals("smb", xattr(export.resolve("made.txt"), "Author"));
            assertEquals("7", xattr(export.resolve("made.txt"), "Rev"));
            expectOk(s.request(s.close(id[0], id[1])));
            assertEquals(NtStatus.INVALID_EA_NAME, Smb2Header.status(s.request(s.create("never.txt", READ_EA, FILE_CREATE,
                    0, "ExtA", eaList("bad:name", "v")))));
            assertFalse(Files.exists(export.resolve("never.txt")), "a bad EA buffer is refused before the file is made");
        }
    }

    private static ByteBuffer expectOk(ByteBuffer r) {
        assertEquals(NtStatus.SUCCESS, Smb2Header.status(r), () -> "status 0x" + Integer.toHexString(Smb2Header.status(r)));
        return r;
    }

    @Test
    void theHostsXattrsAreEasAndTheGatewaysOwnAreHidden() throws Exception {
        Path f = Files.writeString(export.resolve("host.txt"), "x");
        UserDefinedFileAttributeView view = Files.getFileAttributeView(f, UserDefinedFileAttributeView.class);
        view.write("FromHost", ByteBuffer.wrap("host-value".getBytes(StandardCharsets.UTF_8)));
        view.write("not:an:ea", ByteBuffer.wrap(new byte[] {1}));
        try (RawSession s = new RawSession(port, "data")) {
            long[] id = RawSession.fileId(expectOk(s.request(s.create("host.txt", READ_EA | WRITE_EA, FILE_OPEN, 0))));
            assertEquals(List.of("FromHost=host-value"), pairs(expectOk(s.request(s.queryInfo(id[0], id[1], 1, FILE_FULL_EA,
                    4096, SL_RESTART_SCAN, new byte[0])))), "a name Windows cannot have is not shown");
            assertEquals(NtStatus.ACCESS_DENIED, Smb2Header.status(s.request(s.setInfo(id[0], id[1], FILE_FULL_EA,
                    eaList("rdmagate.ntacl", "x")))), "the gateway's own xattr is not an EA");
            expectOk(s.request(s.close(id[0], id[1])));
        }
        assertTrue(view.list().contains("not:an:ea"), "and is left as it is");
    }
}
