package io.rdmagate.smb.server;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Samba's smbclient against the server on 127.0.0.1: share listing, and put/get/mkdir/rename/del/ls
 * with each protocol level and protection, comparing checksums. Needs the Debian package smbclient
 * (.ci/run installs it).
 */
class SmbclientTest {
    @TempDir
    static Path tmp;
    static TestServer server;
    static Path export;
    static Path local;

    @BeforeAll
    static void start() throws Exception {
        export = Files.createDirectories(tmp.resolve("export"));
        local = Files.createDirectories(tmp.resolve("local"));
        server = new TestServer(export, Files.createDirectories(tmp.resolve("state")), false, false);
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    record Result(int exit, String out) {
    }

    static Result smbclient(String... args) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of("smbclient", "-p", String.valueOf(server.port()),
                "-U", TestServer.USER + "%" + TestServer.PASSWORD, "-W", "WORKGROUP",
                "--option=client min protocol=SMB2_02"));
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).directory(local.toFile()).start();
        boolean done = p.waitFor(60, TimeUnit.SECONDS);
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!done) {
            p.destroyForcibly();
            throw new AssertionError("smbclient timed out: " + out);
        }
        return new Result(p.exitValue(), out);
    }

    static byte[] sha256(Path p) throws Exception {
        return MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(p));
    }

    @Test
    void listsShares() throws Exception {
        Result r = smbclient("-L", "//127.0.0.1");
        assertEquals(0, r.exit(), r.out());
        assertTrue(r.out().contains("data"), r.out());
        assertTrue(r.out().contains("secure"), r.out());
        assertTrue(r.out().contains("IPC$"), r.out());
    }

    @Test
    void wrongPasswordIsRefused() throws Exception {
        Process p = new ProcessBuilder("smbclient", "-p", String.valueOf(server.port()), "-U", "tester%wrong",
                "//127.0.0.1/data", "-c", "ls").redirectErrorStream(true).start();
        assertTrue(p.waitFor(60, TimeUnit.SECONDS));
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(out.contains("NT_STATUS_LOGON_FAILURE"), out);
        assertTrue(p.exitValue() != 0);
    }

    @ParameterizedTest(name = "{0} {1}")
    @CsvSource({
        "SMB2_02, off", "SMB2_10, off", "SMB2_10, sign", "SMB3_00, off", "SMB3_00, sign", "SMB3_00, encrypt",
        "SMB3, off", "SMB3, sign", "SMB3, encrypt", "SMB3_11, off", "SMB3_11, sign", "SMB3_11, encrypt"})
    void putGetMkdirRenameDelete(String protocol, String protection) throws Exception {
        String tag = protocol + "-" + protection;
        byte[] content = new byte[3 * 1024 * 1024 + 12345];
        new Random(tag.hashCode()).nextBytes(content);
        Path src = local.resolve("src-" + tag);
        Files.write(src, content);
        String dir = "dir-" + tag;
        Result r = smbclient("//127.0.0.1/data", "-m", protocol, "--client-protection=" + protection, "-c",
                "mkdir " + dir + "; cd " + dir + "; put src-" + tag + " a.bin; rename a.bin b.bin; get b.bin back-" + tag
                        + "; ls");
        assertEquals(0, r.exit(), r.out());
        assertTrue(r.out().contains("b.bin"), r.out());
        assertFalse(r.out().contains("NT_STATUS"), r.out());
        assertArrayEquals(sha256(src), sha256(local.resolve("back-" + tag)));
        assertArrayEquals(content, Files.readAllBytes(export.resolve(dir).resolve("b.bin")));
        assertFalse(Files.exists(export.resolve(dir).resolve("a.bin")));

        r = smbclient("//127.0.0.1/data", "-m", protocol, "--client-protection=" + protection, "-c",
                "cd " + dir + "; del b.bin; cd ..; rmdir " + dir + "; ls");
        assertEquals(0, r.exit(), r.out());
        assertFalse(Files.exists(export.resolve(dir)));
    }

    @Test
    void encryptedShareRefusesClientsThatCannotEncrypt() throws Exception {
        Files.writeString(export.resolve("hello.txt"), "hello over encryption\n");
        // SMB 2.1 has no encryption: the tree connect is refused (MS-SMB2 3.3.5.7)
        Result old = smbclient("//127.0.0.1/secure", "-m", "SMB2_10", "-c", "get hello.txt h1.txt");
        assertTrue(old.out().contains("NT_STATUS_ACCESS_DENIED"), old.out());
        assertFalse(Files.exists(local.resolve("h1.txt")));
        // a 3.1.1 client follows SMB2_SHAREFLAG_ENCRYPT_DATA even when it did not ask for encryption
        for (String protection : List.of("off", "encrypt")) {
            Result r = smbclient("//127.0.0.1/secure", "-m", "SMB3_11", "--client-protection=" + protection, "-c",
                    "get hello.txt h-" + protection + ".txt");
            assertEquals(0, r.exit(), r.out());
            assertEquals("hello over encryption\n", Files.readString(local.resolve("h-" + protection + ".txt")));
        }
    }

    /**
     * smbclient's setea and geteas (SMB2 SET_INFO and QUERY_INFO of FileFullEaInformation): the EA it
     * sets is the file's user xattr on the export's disk, it lists what a host process set, and
     * setea without a value removes one.
     */
    @Test
    void smbclientSetsAndListsExtendedAttributesThatAreTheFilesUserXattrs() throws Exception {
        Path f = Files.writeString(export.resolve("ea.txt"), "ea\n");
        var view = Files.getFileAttributeView(f, java.nio.file.attribute.UserDefinedFileAttributeView.class);
        view.write("FromHost", java.nio.ByteBuffer.wrap("host-value".getBytes(StandardCharsets.UTF_8)));
        Result r = smbclient("//127.0.0.1/data", "-m", "SMB3", "-c", "setea ea.txt Color blue; geteas ea.txt");
        assertEquals(0, r.exit(), r.out());
        assertTrue(r.out().contains("Color (0) =") && r.out().contains("blue"), r.out());
        // geteas prints each value as a hex dump: "host-value" is 68 6F 73 74 2D 76 61 6C 75 65
        assertTrue(r.out().contains("FromHost (0) =") && r.out().contains("68 6F 73 74 2D 76 61 6C   75 65"), r.out());
        java.nio.ByteBuffer v = java.nio.ByteBuffer.allocate(view.size("Color"));
        view.read("Color", v);
        assertEquals("blue", new String(v.array(), StandardCharsets.UTF_8), "the EA is user.Color on disk");

        r = smbclient("//127.0.0.1/data", "-m", "SMB3", "-c", "setea ea.txt Color; geteas ea.txt");
        assertEquals(0, r.exit(), r.out());
        assertTrue(!r.out().contains("Color (0)") && r.out().contains("FromHost (0) ="), r.out());
        assertTrue(!view.list().contains("Color"), "removed from the disk too");
    }

    /** smbclient's allinfo shows a file's 8.3 name (FileAlternateNameInformation). */
    @Test
    void allinfoShowsTheEightDotThreeName() throws Exception {
        Files.writeString(export.resolve("long file name.txt"), "x");
        Result r = smbclient("//127.0.0.1/data", "-m", "SMB3", "-c", "allinfo \"long file name.txt\"");
        assertEquals(0, r.exit(), r.out());
        assertTrue(r.out().contains("altname: LONGF~YW.TXT"), r.out());
    }

    /** A file opens by its 8.3 name, through a directory named by its own, in any case (MS-FSA 2.1.5.1). */
    @Test
    void filesOpenByTheirEightDotThreeNames() throws Exception {
        Path dir = Files.createDirectories(export.resolve("Program Files"));
        Files.writeString(dir.resolve("report.final.docx"), "opened by its short name\n");
        Path upper = local.resolve("upper.txt");
        Path lower = local.resolve("lower.txt");
        Result r = smbclient("//127.0.0.1/data", "-m", "SMB3", "-c",
                "get PROGR~RE\\REPOR~MH.DOC " + upper + "; get progr~re\\repor~mh.doc " + lower
                + "; allinfo PROGR~RE\\REPOR~MH.DOC");
        assertEquals(0, r.exit(), r.out());
        assertEquals("opened by its short name\n", Files.readString(upper));
        assertEquals("opened by its short name\n", Files.readString(lower));
        assertTrue(r.out().contains("altname: REPOR~MH.DOC"), r.out());

        r = smbclient("//127.0.0.1/data", "-m", "SMB3", "-c", "get PROGR~ZZ\\REPOR~MH.DOC " + local.resolve("none.txt"));
        assertTrue(r.out().contains("NT_STATUS_OBJECT_PATH_NOT_FOUND"), "a short name of nothing: " + r.out());
        r = smbclient("//127.0.0.1/data", "-m", "SMB3", "-c", "get PROGR~RE\\REPOR~ZZ.DOC " + local.resolve("none.txt"));
        assertTrue(r.out().contains("NT_STATUS_OBJECT_NAME_NOT_FOUND"), "a short name of nothing: " + r.out());
    }

    @Test
    void readOnlyShareRefusesWrites() throws Exception {
        Files.writeString(local.resolve("up.txt"), "x");
        Result r = smbclient("//127.0.0.1/ro", "-m", "SMB3", "-c", "put up.txt up.txt");
        assertTrue(r.out().contains("NT_STATUS_ACCESS_DENIED"), r.out());
        assertFalse(Files.exists(export.resolve("up.txt")));
    }
}
