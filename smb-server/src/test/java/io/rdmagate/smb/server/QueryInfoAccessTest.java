package io.rdmagate.smb.server;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.rdmagate.smb.mserref.NtStatus;
import io.rdmagate.smb.mssmb2.Smb2Header;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * QUERY_INFO as MS-FSA 2.1.5.11 has it for an open's granted access: the classes that report
 * times and attributes need FILE_READ_ATTRIBUTES, the others do not; and the 8.3 name
 * (FileAlternateNameInformation) of a long name, of an 8.3 one, and of the share's root (none).
 */
class QueryInfoAccessTest {
    static final int FILE_READ_DATA = 0x1;
    static final int READ_ATTRIBUTES = 0x80;
    static final int SYNCHRONIZE = 0x100000;
    static final int FILE_OPEN = 1;
    static final int BASIC = 4;
    static final int STANDARD = 5;
    static final int ALL = 18;
    static final int ALTERNATE_NAME = 21;
    static final int NETWORK_OPEN = 34;

    @RegisterExtension
    static final SmbjShare smb = new SmbjShare();

    private static int status(RawSession s, long[] id, int cls) throws Exception {
        return Smb2Header.status(s.request(s.queryInfo(id[0], id[1], 1, cls, 4096, 0, new byte[0])));
    }

    /** The name of a FileNameInformation-shaped answer. */
    private static String name(ByteBuffer r) {
        int at = r.getShort(64 + 2) & 0xffff;
        byte[] n = new byte[r.getInt(at)];
        r.get(at + 4, n);
        return new String(n, StandardCharsets.UTF_16LE);
    }

    @Test
    void timesAndAttributesNeedReadAttributesAndOtherClassesDoNot() throws Exception {
        Files.writeString(smb.export().resolve("attrs.txt"), "x");
        try (RawSession s = new RawSession(smb.server().port(), "data")) {
            long[] data = RawSession.fileId(s.request(s.create("attrs.txt", FILE_READ_DATA | SYNCHRONIZE, FILE_OPEN, 0)));
            for (int cls : new int[] {BASIC, ALL, NETWORK_OPEN}) {
                assertEquals(NtStatus.ACCESS_DENIED, status(s, data, cls), "class " + cls);
            }
            assertEquals(NtStatus.SUCCESS, status(s, data, STANDARD));
            s.request(s.close(data[0], data[1]));
            long[] attrs = RawSession.fileId(s.request(s.create("attrs.txt", READ_ATTRIBUTES, FILE_OPEN, 0)));
            for (int cls : new int[] {BASIC, ALL, NETWORK_OPEN, STANDARD}) {
                assertEquals(NtStatus.SUCCESS, status(s, attrs, cls), "class " + cls);
            }
            assertEquals("ATTRS.TXT", name(s.request(s.queryInfo(attrs[0], attrs[1], 1, ALTERNATE_NAME, 4096, 0,
                    new byte[0]))), "an 8.3 name in upper case");
            s.request(s.close(attrs[0], attrs[1]));
        }
    }

    @Test
    void aLongNameHasAMangledEightDotThreeNameAndTheRootNone() throws Exception {
        Files.writeString(smb.export().resolve("report.final.docx"), "x");
        try (RawSession s = new RawSession(smb.server().port(), "data")) {
            long[] f = RawSession.fileId(s.request(s.create("report.final.docx", READ_ATTRIBUTES, FILE_OPEN, 0)));
            assertEquals("REPOR~MH.DOC", name(s.request(s.queryInfo(f[0], f[1], 1, ALTERNATE_NAME, 4096, 0, new byte[0]))));
            s.request(s.close(f[0], f[1]));
            long[] root = RawSession.fileId(s.request(s.create("", READ_ATTRIBUTES, FILE_OPEN, 1)));
            assertEquals(NtStatus.OBJECT_NAME_NOT_FOUND, status(s, root, ALTERNATE_NAME));
            s.request(s.close(root[0], root[1]));
        }
    }
}
