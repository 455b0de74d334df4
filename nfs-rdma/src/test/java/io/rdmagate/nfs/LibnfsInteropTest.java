package io.rdmagate.nfs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.rdmagate.gateway.spi.config.ClientRule.Access;
import io.rdmagate.nfs.client.Nfs3Client;
import io.rdmagate.vfs.ExportOptions;
import io.rdmagate.vfs.local.LocalFileSystem;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A real third-party client: Debian's libnfs-utils (libnfs 4.0) copies a tree into an export with
 * {@code nfs-cp}, lists it with {@code nfs-ls -R}, and copies it out again with {@code nfs-cp} and
 * {@code nfs-cat}; every file comes back with the checksum it went in with, and the files on the
 * export's disk have it too. URLs name the ports ({@code ?version=3&nfsport=N&mountport=M}, the
 * arguments libnfs 4.0 parses), so no rpcbind is needed. nfs-cp cannot make directories, so the
 * tree's directories are made with the in-repo client.
 */
class LibnfsInteropTest {
    @TempDir
    Path dir;

    private static boolean installed() {
        return Files.isExecutable(Path.of("/usr/bin/nfs-cp")) && Files.isExecutable(Path.of("/usr/bin/nfs-ls"));
    }

    private static String run(String... cmd) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        byte[] out = p.getInputStream().readAllBytes();
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), String.join(" ", cmd) + " finished");
        String text = new String(out, StandardCharsets.UTF_8);
        assertEquals(0, p.exitValue(), String.join(" ", cmd) + ":\n" + text);
        return text;
    }

    private static byte[] runBytes(String... cmd) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.DISCARD).start();
        byte[] out = p.getInputStream().readAllBytes();
        assertTrue(p.waitFor(60, TimeUnit.SECONDS));
        assertEquals(0, p.exitValue(), String.join(" ", cmd));
        return out;
    }

    private static String sha256(byte[] b) throws Exception {
        return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(b));
    }

    private static Map<String, String> checksums(Path root) throws Exception {
        Map<String, String> m = new TreeMap<>();
        try (Stream<Path> s = Files.walk(root)) {
            for (Path p : s.filter(Files::isRegularFile).toList()) {
                m.put(root.relativize(p).toString(), sha256(Files.readAllBytes(p)));
            }
        }
        return m;
    }

    @Test
    void libnfsCopiesATreeInAndOutUnchanged() throws Exception {
        // CI installs libnfs-utils (.ci/run); elsewhere the test runs where it is installed
        assertTrue(installed() || System.getenv("CI") == null, "CI must provide libnfs-utils");
        assumeTrue(installed(), "libnfs-utils is not installed");

        Path source = Files.createDirectories(dir.resolve("source"));
        Random rnd = new Random(7);
        List<String> files = new ArrayList<>();
        int[] sizes = {0, 1, 4095, 4096, 65537, 1 << 20, (3 << 20) + 12345};
        for (int i = 0; i < sizes.length; i++) {
            String rel = (i % 3 == 0 ? "" : i % 3 == 1 ? "a/" : "a/b/") + "file-" + i + ".bin";
            byte[] b = new byte[sizes[i]];
            rnd.nextBytes(b);
            Path p = source.resolve(rel);
            Files.createDirectories(p.getParent());
            Files.write(p, b);
            files.add(rel);
        }
        Path exportDir = Files.createDirectories(dir.resolve("export"));
        try (NfsFixture fx = new NfsFixture(List.of(NfsFixture.export(0, "data",
                LocalFileSystem.open(exportDir, dir.resolve("state"), ExportOptions.DEFAULT),
                NfsFixture.rule("127.0.0.0/8", Access.RW, false, false))), h -> null)) {
            String query = "?version=3&nfsport=" + fx.nfs().getPort() + "&mountport=" + fx.mount().getPort();
            String base = "nfs://127.0.0.1/data/";
            try (Nfs3Client c = Nfs3Client.connect(fx.nfs(), NfsFixture.ROOT)) {
                byte[] root = Nfs3Client.mount(fx.mount(), "/data", NfsFixture.ROOT);
                c.mkdir(c.mkdir(root, "a", 0755), "b", 0755);
            }
            for (String f : files) {
                run("nfs-cp", source.resolve(f).toString(), base + f + query);
            }
            String listing = run("nfs-ls", "-R", base + query);
            for (String f : files) {
                assertTrue(listing.contains(f.substring(f.lastIndexOf('/') + 1)), listing);
            }
            assertEquals(checksums(source), checksums(exportDir), "files on the export's disk");

            Path back = Files.createDirectories(dir.resolve("back"));
            for (String f : files) {
                Path p = back.resolve(f);
                Files.createDirectories(p.getParent());
                run("nfs-cp", base + f + query, p.toString());
            }
            assertEquals(checksums(source), checksums(back), "files copied out with nfs-cp");
            String big = files.get(files.size() - 1);
            assertEquals(sha256(Files.readAllBytes(source.resolve(big))), sha256(runBytes("nfs-cat", base + big + query)),
                    "nfs-cat of the largest file");
        }
    }

    /**
     * libnfs speaks NFSv4.0 (RFC 7530: SETCLIENTID, opens confirmed by OPEN_CONFIRM, no sessions):
     * with {@code version=4} it walks the pseudo-filesystem to the export, copies files in and out,
     * and lists them. Debian's libnfs 4.0 fails its own NFSv4 WRITEs of about 3,950 bytes or more
     * (nfs-cp exits 10 before the WRITE is sent, against any server), so what it writes is smaller;
     * what it reads is not (it reads the larger files a host process wrote).
     */
    @Test
    void libnfsSpeaksNfs40ToThePseudoFilesystem() throws Exception {
        assertTrue(installed() || System.getenv("CI") == null, "CI must provide libnfs-utils");
        assumeTrue(installed(), "libnfs-utils is not installed");
        Path exportDir = Files.createDirectories(dir.resolve("export"));
        Path source = Files.createDirectories(dir.resolve("source"));
        Random rnd = new Random(40);
        Map<String, byte[]> written = new TreeMap<>();
        for (int size : new int[] {0, 1, 1000, 3900}) {
            byte[] b = new byte[size];
            rnd.nextBytes(b);
            written.put("small-" + size + ".bin", b);
            Files.write(source.resolve("small-" + size + ".bin"), b);
        }
        byte[] large = new byte[(2 << 20) + 777];
        rnd.nextBytes(large);
        Files.write(exportDir.resolve("large.bin"), large);
        try (NfsFixture fx = new NfsFixture(List.of(NfsFixture.export(0, "data",
                LocalFileSystem.open(exportDir, dir.resolve("state"), ExportOptions.DEFAULT),
                NfsFixture.rule("127.0.0.0/8", Access.RW, false, false))), h -> null,
                new io.micrometer.core.instrument.simple.SimpleMeterRegistry(), io.rdmagate.nfs.v4.Nfs4Server.Options.DEFAULT)) {
            String query = "?version=4&nfsport=" + fx.nfs().getPort();
            String base = "nfs://127.0.0.1/data/";
            for (String f : written.keySet()) {
                run("nfs-cp", source.resolve(f).toString(), base + f + query);
            }
            for (Map.Entry<String, byte[]> f : written.entrySet()) {
                assertEquals(sha256(f.getValue()), sha256(Files.readAllBytes(exportDir.resolve(f.getKey()))),
                        f.getKey() + " on the export's disk");
            }
            String listing = run("nfs-ls", base + query);
            for (String f : written.keySet()) {
                assertTrue(listing.contains(f), listing);
            }
            assertTrue(listing.contains("large.bin"), listing);
            Path back = dir.resolve("large-back.bin");
            run("nfs-cp", base + "large.bin" + query, back.toString());
            assertEquals(sha256(large), sha256(Files.readAllBytes(back)), "the large file copied out over NFSv4.0");
            assertEquals(sha256(written.get("small-3900.bin")), sha256(runBytes("nfs-cat", base + "small-3900.bin" + query)));
            assertEquals(0, fx.server.nfs4().state().openCount(), "libnfs closed every file it opened");
        }
    }

    /**
     * exports(5) secure against a real client: libnfs run as root binds a reserved source port
     * and is served; run as another user it cannot, so it could state any uid, and MOUNT
     * refuses it. That user cannot act as root on an export whose rule does not squash root.
     */
    @Test
    void aSecureRuleServesLibnfsRunAsRootAndRefusesItRunAsAnotherUser() throws Exception {
        assertTrue(installed() || System.getenv("CI") == null, "CI must provide libnfs-utils");
        assumeTrue(installed(), "libnfs-utils is not installed");
        assumeTrue("root".equals(System.getProperty("user.name")), "binding a reserved port needs root");
        Path exportDir = Files.createDirectories(dir.resolve("export"));
        Files.writeString(exportDir.resolve("root-only.txt"), "secret");
        Path openDir = Files.createDirectories(dir.resolve("open"));
        Files.writeString(openDir.resolve("anyone.txt"), "public");
        try (NfsFixture fx = new NfsFixture(List.of(
                NfsFixture.export(0, "data", LocalFileSystem.open(exportDir, dir.resolve("state"), ExportOptions.DEFAULT),
                        NfsFixture.secureRule("127.0.0.0/8")),
                NfsFixture.export(1, "open", LocalFileSystem.open(openDir, dir.resolve("open-state"),
                        ExportOptions.DEFAULT), NfsFixture.rule("127.0.0.0/8", Access.RW, false, false))), h -> null)) {
            String query = "?version=3&nfsport=" + fx.nfs().getPort() + "&mountport=" + fx.mount().getPort();
            String secure = "nfs://127.0.0.1/data/" + query;
            assertTrue(run("nfs-ls", secure).contains("root-only.txt"), "root's nfs-ls lists the secure export");

            // as uid 65534: libnfs then states uid 65534, but any user could build a call claiming uid 0
            String[] asNobody = {"setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "nfs-ls"};
            assertTrue(run(concat(asNobody, "nfs://127.0.0.1/open/" + query)).contains("anyone.txt"),
                    "the same user lists an insecure export");
            Process p = new ProcessBuilder(concat(asNobody, secure)).redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertTrue(p.waitFor(60, TimeUnit.SECONDS), "nfs-ls as 65534 finished");
            assertTrue(p.exitValue() != 0 && !out.contains("root-only.txt"), "refused from an unreserved port:\n" + out);
        }
    }

    private static String[] concat(String[] head, String last) {
        String[] all = java.util.Arrays.copyOf(head, head.length + 1);
        all[head.length] = last;
        return all;
    }
}
