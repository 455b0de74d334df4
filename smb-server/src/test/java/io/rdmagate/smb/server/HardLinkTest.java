package io.rdmagate.smb.server;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.hierynomus.msdtyp.AccessMask;
import com.hierynomus.mserref.NtStatus;
import com.hierynomus.msfscc.fileinformation.FileAllInformation;
import com.hierynomus.msfscc.fileinformation.FileInternalInformation;
import com.hierynomus.msfscc.fileinformation.FileStandardInformation;
import com.hierynomus.mssmb2.SMB2CreateDisposition;
import com.hierynomus.mssmb2.SMB2ShareAccess;
import com.hierynomus.mssmb2.SMBApiException;
import com.hierynomus.smbj.SMBClient;
import com.hierynomus.smbj.connection.Connection;
import com.hierynomus.smbj.share.Directory;
import com.hierynomus.smbj.share.DiskShare;
import com.hierynomus.smbj.share.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EnumSet;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** SET_INFO FileLinkInformation (MS-FSCC 2.4.27.2) through smbj, as the cifs client's ln uses it. */
class HardLinkTest {
    @TempDir
    static Path tmp;
    static TestServer server;
    static Path export;

    @BeforeAll
    static void start() throws Exception {
        export = Files.createDirectories(tmp.resolve("export"));
        server = new TestServer(export, Files.createDirectories(tmp.resolve("state")), false, false);
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    interface ShareTest {
        void run(DiskShare share) throws Exception;
    }

    static void withShare(ShareTest t) throws Exception {
        try (SMBClient client = new SMBClient(SmbjTest.config().build());
             Connection c = client.connect("127.0.0.1", server.port());
             DiskShare share = (DiskShare) c.authenticate(SmbjTest.auth(TestServer.PASSWORD)).connectShare("data")) {
            t.run(share);
        }
    }

    static void write(DiskShare share, String name, String text) {
        try (File f = share.openFile(name, EnumSet.of(AccessMask.GENERIC_WRITE), null, SMB2ShareAccess.ALL,
                SMB2CreateDisposition.FILE_OVERWRITE_IF, null)) {
            f.write(text.getBytes(StandardCharsets.UTF_8), 0);
        }
    }

    static String read(DiskShare share, String name) {
        try (File f = share.openFile(name, EnumSet.of(AccessMask.GENERIC_READ), null, SMB2ShareAccess.ALL,
                SMB2CreateDisposition.FILE_OPEN, null)) {
            byte[] b = new byte[100];
            int n = f.read(b, 0);
            return new String(b, 0, Math.max(n, 0), StandardCharsets.UTF_8);
        }
    }

    /** The open cifs makes for ln: read attributes only. */
    static File attributesOpen(DiskShare share, String name) {
        return share.openFile(name, EnumSet.of(AccessMask.FILE_READ_ATTRIBUTES), null, SMB2ShareAccess.ALL,
                SMB2CreateDisposition.FILE_OPEN, null);
    }

    static long links(DiskShare share, String name) {
        return share.getFileInformation(name, FileStandardInformation.class).getNumberOfLinks();
    }

    @Test
    void aLinkIsTheSameFileAndNumberOfLinksFollows() throws Exception {
        withShare(share -> {
            share.mkdir("hl1");
            write(share, "hl1\\target", "target-data");
            try (File f = attributesOpen(share, "hl1\\target")) {
                f.createHardlink("hl1\\hard");
            }
            assertEquals("target-data", read(share, "hl1\\hard"));
            // MS-FSCC 2.4.41 FileStandardInformation and 2.4.2 FileAllInformation: NumberOfLinks
            assertEquals(2, links(share, "hl1\\target"));
            assertEquals(2, links(share, "hl1\\hard"));
            FileAllInformation all = share.getFileInformation("hl1\\hard");
            assertEquals(2, all.getStandardInformation().getNumberOfLinks());
            assertEquals(share.getFileInformation("hl1\\target", FileInternalInformation.class).getIndexNumber(),
                    share.getFileInformation("hl1\\hard", FileInternalInformation.class).getIndexNumber());
            assertEquals(Files.readString(export.resolve("hl1/target")), Files.readString(export.resolve("hl1/hard")));

            share.rm("hl1\\target");
            assertFalse(share.fileExists("hl1\\target"));
            assertEquals("target-data", read(share, "hl1\\hard"));
            assertEquals(1, links(share, "hl1\\hard"));
            share.rm("hl1\\hard");
            share.rmdir("hl1", false);
        });
    }

    @Test
    void anExistingNameIsACollisionUnlessReplaced() throws Exception {
        withShare(share -> {
            share.mkdir("hl2");
            write(share, "hl2\\a", "a");
            write(share, "hl2\\b", "b");
            try (File f = attributesOpen(share, "hl2\\a")) {
                SMBApiException e = assertThrows(SMBApiException.class, () -> f.createHardlink("hl2\\b", false));
                assertEquals(NtStatus.STATUS_OBJECT_NAME_COLLISION, e.getStatus());
                assertEquals("b", read(share, "hl2\\b"));
                f.createHardlink("hl2\\b", true);
            }
            assertEquals("a", read(share, "hl2\\b"));
            assertEquals(2, links(share, "hl2\\a"));
        });
    }

    @Test
    void directoriesAndMissingParentsAreRefused() throws Exception {
        withShare(share -> {
            share.mkdir("hl3");
            share.mkdir("hl3\\dir");
            write(share, "hl3\\f", "f");
            try (Directory d = share.openDirectory("hl3\\dir", EnumSet.of(AccessMask.FILE_READ_ATTRIBUTES), null,
                    SMB2ShareAccess.ALL, SMB2CreateDisposition.FILE_OPEN, null)) {
                SMBApiException e = assertThrows(SMBApiException.class, () -> d.createHardlink("hl3\\dir2"));
                assertEquals(NtStatus.STATUS_FILE_IS_A_DIRECTORY, e.getStatus());
            }
            try (File f = attributesOpen(share, "hl3\\f")) {
                SMBApiException e = assertThrows(SMBApiException.class, () -> f.createHardlink("hl3\\nodir\\x"));
                assertEquals(NtStatus.STATUS_OBJECT_PATH_NOT_FOUND, e.getStatus());
                // a directory is never replaced (MS-FSA 2.1.5.14.6)
                e = assertThrows(SMBApiException.class, () -> f.createHardlink("hl3\\dir", true));
                assertEquals(NtStatus.STATUS_ACCESS_DENIED, e.getStatus());
            }
            assertEquals(1, links(share, "hl3\\f"));
        });
    }

    @Test
    void theReadOnlyShareRefusesLinks() throws Exception {
        write0("hl4.txt");
        try (SMBClient client = new SMBClient(SmbjTest.config().build());
             Connection c = client.connect("127.0.0.1", server.port());
             DiskShare share = (DiskShare) c.authenticate(SmbjTest.auth(TestServer.PASSWORD)).connectShare("ro");
             File f = attributesOpen(share, "hl4.txt")) {
            SMBApiException e = assertThrows(SMBApiException.class, () -> f.createHardlink("hl4-link.txt"));
            assertEquals(NtStatus.STATUS_ACCESS_DENIED, e.getStatus());
        }
        assertFalse(Files.exists(export.resolve("hl4-link.txt")));
        assertArrayEquals("x".getBytes(StandardCharsets.UTF_8), Files.readAllBytes(export.resolve("hl4.txt")));
    }

    private static void write0(String name) throws Exception {
        Files.writeString(export.resolve(name), "x");
    }
}
