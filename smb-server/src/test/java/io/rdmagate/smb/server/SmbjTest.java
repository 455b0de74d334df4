package io.rdmagate.smb.server;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.hierynomus.msdtyp.AccessMask;
import com.hierynomus.mserref.NtStatus;
import com.hierynomus.msfscc.fileinformation.FileIdBothDirectoryInformation;
import com.hierynomus.mssmb2.SMB2CreateDisposition;
import com.hierynomus.mssmb2.SMB2CreateOptions;
import com.hierynomus.mssmb2.SMB2Dialect;
import com.hierynomus.mssmb2.SMB2ShareAccess;
import com.hierynomus.mssmb2.SMBApiException;
import com.hierynomus.smbj.SMBClient;
import com.hierynomus.smbj.SmbConfig;
import com.hierynomus.smbj.auth.AuthenticationContext;
import com.hierynomus.smbj.connection.Connection;
import com.hierynomus.smbj.session.Session;
import com.hierynomus.smbj.share.DiskShare;
import com.hierynomus.smbj.share.File;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** smbj 0.14.0 against the server on 127.0.0.1: every dialect it offers, signing, encryption, listing, large files. */
class SmbjTest {
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

    static SmbConfig.Builder config() {
        return SmbConfig.builder().withTimeout(30, TimeUnit.SECONDS).withSoTimeout(60, TimeUnit.SECONDS);
    }

    static AuthenticationContext auth(String password) {
        return new AuthenticationContext(TestServer.USER, password.toCharArray(), "WORKGROUP");
    }

    static byte[] random(int n, long seed) {
        byte[] b = new byte[n];
        new Random(seed).nextBytes(b);
        return b;
    }

    static void roundTrip(DiskShare share, String name, byte[] data) throws Exception {
        File f = share.openFile(name, EnumSet.of(AccessMask.GENERIC_WRITE, AccessMask.GENERIC_READ), null,
                SMB2ShareAccess.ALL, SMB2CreateDisposition.FILE_OVERWRITE_IF, null);
        try (f; OutputStream os = f.getOutputStream()) {
            os.write(data);
        }
        File r = share.openFile(name, EnumSet.of(AccessMask.GENERIC_READ), null, SMB2ShareAccess.ALL,
                SMB2CreateDisposition.FILE_OPEN, null);
        try (r; InputStream in = r.getInputStream()) {
            assertArrayEquals(data, in.readAllBytes());
        }
    }

    @ParameterizedTest
    @EnumSource(value = SMB2Dialect.class, names = {"SMB_2_0_2", "SMB_2_1", "SMB_3_0", "SMB_3_0_2", "SMB_3_1_1"})
    void everyDialectReadsAndWrites(SMB2Dialect dialect) throws Exception {
        try (SMBClient client = new SMBClient(config().withDialects(dialect).build());
             Connection c = client.connect("127.0.0.1", server.port())) {
            assertEquals(dialect, c.getConnectionContext().getNegotiatedProtocol().getDialect());
            Session s = c.authenticate(auth(TestServer.PASSWORD));
            try (DiskShare share = (DiskShare) s.connectShare("data")) {
                byte[] data = random(200_000, dialect.ordinal());
                roundTrip(share, "dialect-" + dialect + ".bin", data);
                assertArrayEquals(data, Files.readAllBytes(export.resolve("dialect-" + dialect + ".bin")));
            }
        }
    }

    @Test
    void signingRequiredByTheClient() throws Exception {
        try (SMBClient client = new SMBClient(config().withSigningRequired(true).build());
             Connection c = client.connect("127.0.0.1", server.port());
             DiskShare share = (DiskShare) c.authenticate(auth(TestServer.PASSWORD)).connectShare("data")) {
            roundTrip(share, "signed.bin", random(100_000, 7));
        }
    }

    @Test
    void encryptedSession() throws Exception {
        try (SMBClient client = new SMBClient(config().withDialects(SMB2Dialect.SMB_3_1_1).withEncryptData(true).build());
             Connection c = client.connect("127.0.0.1", server.port());
             DiskShare share = (DiskShare) c.authenticate(auth(TestServer.PASSWORD)).connectShare("secure")) {
            roundTrip(share, "encrypted.bin", random(300_000, 8));
        }
    }

    @Test
    void largeFileInOneMegabyteReadsAndWrites() throws Exception {
        byte[] data = random(24 * 1024 * 1024 + 17, 9);
        try (SMBClient client = new SMBClient(config().withDialects(SMB2Dialect.SMB_3_1_1).build());
             Connection c = client.connect("127.0.0.1", server.port());
             DiskShare share = (DiskShare) c.authenticate(auth(TestServer.PASSWORD)).connectShare("data")) {
            roundTrip(share, "large.bin", data);
            assertEquals(data.length, share.getFileInformation("large.bin").getStandardInformation().getEndOfFile());
        }
        assertArrayEquals(data, Files.readAllBytes(export.resolve("large.bin")));
    }

    @Test
    void directoryListingWithPatterns() throws Exception {
        Path d = Files.createDirectories(export.resolve("listing"));
        for (int i = 0; i < 300; i++) {
            Files.writeString(d.resolve("file" + i + (i % 2 == 0 ? ".txt" : ".dat")), "x".repeat(i));
        }
        Files.createDirectories(d.resolve("sub"));
        try (SMBClient client = new SMBClient(config().build());
             Connection c = client.connect("127.0.0.1", server.port());
             DiskShare share = (DiskShare) c.authenticate(auth(TestServer.PASSWORD)).connectShare("data")) {
            List<FileIdBothDirectoryInformation> all = share.list("listing");
            Set<String> names = all.stream().map(FileIdBothDirectoryInformation::getFileName).collect(Collectors.toSet());
            assertEquals(303, names.size()); // 300 files, sub, . and ..
            assertTrue(names.containsAll(Set.of(".", "..", "sub", "file299.dat")));
            assertEquals(150, share.list("listing", "*.txt").size());
            FileIdBothDirectoryInformation f7 = share.list("listing", "file7.dat").getFirst();
            assertEquals(7, f7.getEndOfFile());
            assertTrue(share.folderExists("listing\\sub"));
            assertFalse(share.fileExists("listing\\nothing"));
        }
    }

    @Test
    void shareModesAreEnforcedAcrossOpens() throws Exception {
        try (SMBClient client = new SMBClient(config().build());
             Connection c = client.connect("127.0.0.1", server.port());
             DiskShare share = (DiskShare) c.authenticate(auth(TestServer.PASSWORD)).connectShare("data")) {
            File exclusive = share.openFile("exclusive.txt", EnumSet.of(AccessMask.GENERIC_WRITE), null,
                    EnumSet.noneOf(SMB2ShareAccess.class), SMB2CreateDisposition.FILE_OVERWRITE_IF, null);
            try (exclusive) {
                SMBApiException e = assertThrows(SMBApiException.class, () -> share.openFile("exclusive.txt",
                        EnumSet.of(AccessMask.GENERIC_READ), null, SMB2ShareAccess.ALL, SMB2CreateDisposition.FILE_OPEN, null));
                assertEquals(NtStatus.STATUS_SHARING_VIOLATION, e.getStatus());
            }
            share.openFile("exclusive.txt", EnumSet.of(AccessMask.GENERIC_READ), null, SMB2ShareAccess.ALL,
                    SMB2CreateDisposition.FILE_OPEN, null).close();
        }
    }

    @Test
    void deleteOnCloseRemovesTheFile() throws Exception {
        try (SMBClient client = new SMBClient(config().build());
             Connection c = client.connect("127.0.0.1", server.port());
             DiskShare share = (DiskShare) c.authenticate(auth(TestServer.PASSWORD)).connectShare("data")) {
            File f = share.openFile("temp.txt", EnumSet.of(AccessMask.GENERIC_WRITE, AccessMask.DELETE), null,
                    SMB2ShareAccess.ALL, SMB2CreateDisposition.FILE_CREATE, EnumSet.of(SMB2CreateOptions.FILE_DELETE_ON_CLOSE));
            f.write(new byte[] {1, 2, 3}, 0);
            assertTrue(Files.exists(export.resolve("temp.txt")));
            f.close();
            assertFalse(Files.exists(export.resolve("temp.txt")));
            SMBApiException e = assertThrows(SMBApiException.class, () -> share.openFile("temp.txt",
                    EnumSet.of(AccessMask.GENERIC_READ), null, SMB2ShareAccess.ALL, SMB2CreateDisposition.FILE_OPEN, null));
            assertEquals(NtStatus.STATUS_OBJECT_NAME_NOT_FOUND, e.getStatus());
        }
    }

    @Test
    void wrongPasswordFailsLogon() throws Exception {
        try (SMBClient client = new SMBClient(config().build());
             Connection c = client.connect("127.0.0.1", server.port())) {
            Exception e = assertThrows(Exception.class, () -> c.authenticate(auth("not-the-password")));
            assertTrue(String.valueOf(e.getMessage()).contains("LOGON_FAILURE"), e.toString());
        }
    }
}
