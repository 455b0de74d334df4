package io.rdmagate.interop;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a new user does first, as root on the gateway's host: {@code rdmagate serve} in an empty
 * directory (no configuration: the embedded default, its default ports), then the client lines
 * it prints, run as printed with HOST replaced, and libnfs as root and as an ordinary uid.
 */
class FirstRunTest {
    private static final Pattern CLIENT = Pattern.compile("client: (.+)");

    @TempDir
    Path cwd;

    @Test
    void theEmbeddedDefaultIsWritableByRootAnOrdinaryNfsUidAndTheGeneratedSmbUser() throws Exception {
        assertEquals("root", System.getProperty("user.name"), "the first run is tried as root, as the README says");
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Path log = cwd.resolve("serve.log");
        Process p = new ProcessBuilder(java, "--enable-native-access=ALL-UNNAMED", "-cp",
                System.getProperty("java.class.path"), "io.rdmagate.gateway.Main", "serve")
                .directory(cwd.toFile()).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        try {
            awaitStarted(p, log);
            List<String> lines = new ArrayList<>();
            Matcher m = CLIENT.matcher(Files.readString(log));
            while (m.find()) {
                lines.add(m.group(1).strip());
            }
            Path data = cwd.resolve("data");
            assertEquals(01777, (Integer) Files.getAttribute(data, "unix:mode") & 07777, "./data is created like /tmp");

            byte[] content = new byte[3 << 20];
            new Random(13).nextBytes(content);
            Path in = Files.write(cwd.resolve("in.bin"), content);

            // NFS as root, through the embedded rpcbind, as the newcomer typed it
            run(cwd, "nfs-cp", in.toString(), "nfs://127.0.0.1/data/root.bin?version=3");
            assertEquals(0, Files.getAttribute(data.resolve("root.bin"), "unix:uid"), "root on this host is root");
            // an ordinary uid, on the ports of the printed mount line
            String mount = lines.stream().filter(l -> l.startsWith("mount -t nfs -o vers=3,port=")).findFirst()
                    .orElseThrow(() -> new AssertionError("no NFS mount line: " + lines));
            Matcher ports = Pattern.compile("port=(\\d+),mountport=(\\d+) HOST:(\\S+) ").matcher(mount);
            assertTrue(ports.find(), mount);
            String url = "nfs://127.0.0.1" + ports.group(3) + "/u.bin?version=3&nfsport=" + ports.group(1)
                    + "&mountport=" + ports.group(2) + "&uid=1000&gid=1000";
            run(cwd, "nfs-cp", in.toString(), url);
            assertEquals(1000, Files.getAttribute(data.resolve("u.bin"), "unix:uid"));
            run(cwd, "nfs-cp", url, cwd.resolve("u.out").toString());
            assertArrayEquals(content, Files.readAllBytes(cwd.resolve("u.out")));

            // SMB: the printed smbclient line, verbatim but for HOST
            String smb = lines.stream().filter(l -> l.startsWith("smbclient ")).findFirst()
                    .orElseThrow(() -> new AssertionError("no smbclient line: " + lines));
            assertTrue(smb.contains(" -A ./state/smb-credentials"), smb);
            List<String> smbclient = new ArrayList<>(List.of(smb.replace("HOST", "127.0.0.1").split(" ")));
            smbclient.addAll(List.of("-c", "put in.bin x.bin; rename x.bin y.bin; get y.bin back.bin; put in.bin keep.bin;"
                    + " del y.bin"));
            run(cwd, smbclient.toArray(String[]::new));
            assertArrayEquals(content, Files.readAllBytes(cwd.resolve("back.bin")));
            assertFalse(Files.exists(data.resolve("y.bin")), "removed over SMB");
            int smbUid = (Integer) Files.getAttribute(data.resolve("keep.bin"), "unix:uid");
            String store = Files.readString(cwd.resolve("state/smb-user"), StandardCharsets.UTF_8);
            assertEquals(store.split(":")[1], Integer.toString(smbUid), "files belong to the generated user");
            assertNotEquals(0, smbUid);
            assertTrue(lines.stream().anyMatch(l -> l.startsWith("mount -t cifs -o ")
                    && l.contains("credentials=" + cwd.resolve("state/smb-credentials"))), lines.toString());
            // the sticky directory: the SMB user may not remove root's file
            List<String> del = new ArrayList<>(List.of(smb.replace("HOST", "127.0.0.1").split(" ")));
            del.addAll(List.of("-c", "del root.bin"));
            Process d = new ProcessBuilder(del).directory(cwd.toFile()).redirectErrorStream(true).start();
            String out = new String(d.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            d.waitFor();
            assertTrue(out.contains("NT_STATUS_ACCESS_DENIED"), out);
            assertTrue(Files.exists(data.resolve("root.bin")));

            // what an operator sees: the operations above in /metrics (default http 127.0.0.1:9049)
            String metrics = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                    URI.create("http://127.0.0.1:9049/metrics")).build(), HttpResponse.BodyHandlers.ofString()).body();
            assertTrue(counter(metrics, "rdmagate_smb_requests_total{command=\"WRITE\",status=\"STATUS_SUCCESS\"}") >= 2,
                    metrics);
            assertTrue(counter(metrics, "rdmagate_nfs_requests_total{procedure=\"WRITE\",program=\"nfs\",status=\"NFS3_OK\","
                    + "version=\"3\"}") >= 2, metrics);
            assertTrue(counter(metrics, "rdmagate_smb_bytes_received_total{transport=\"tcp\"}") >= 2 * content.length,
                    metrics);
            // the NFS/RDMA listener runs on the gateway's one soft-iWARP device, whose domain holds the
            // pool's slabs (the writes above leased from it): at least one region, never one per I/O
            assertTrue(counter(metrics, "rdmagate_rdma_registered_regions{device=\"siw0\"}") >= 1, metrics);
            assertEquals(counter(metrics, "rdmagate_io_pool_slabs"),
                    counter(metrics, "rdmagate_rdma_registered_regions{device=\"siw0\"}"),
                    "one registration per slab of the one pool");
            assertEquals(0, counter(metrics, "rdmagate_rdma_queue_pairs{listener=\"nfs\"}"), metrics);
            assertEquals(0, counter(metrics, "rdmagate_rdma_rejected_connections_total{listener=\"nfs\"}"), metrics);

            // SMB Direct listens on 5445 on the same soft-iWARP device, and the start log prints the
            // cifs line for it; an MS-SMBD negotiation through a soft-iWARP connection of our own
            // (what a siw client does) is answered with credits granted
            String started = Files.readString(log);
            assertTrue(started.contains("listening: smb-direct/rdma"), started);
            assertTrue(lines.stream().anyMatch(l -> l.startsWith("mount -t cifs -o rdma,vers=3.1.1,credentials=")), lines.toString());
            try (var device = new io.rdmagate.rdma.softiwarp.SoftIwarpDevice("client",
                    io.rdmagate.rdma.softiwarp.SoftIwarpDevice.Options.DEFAULT);
                    var direct = io.rdmagate.smbdirect.client.SmbDirectClient.connect(device,
                            new java.net.InetSocketAddress("127.0.0.1", 5445))) {
                var negotiated = direct.negotiateResponse();
                assertEquals(0x0100, negotiated.negotiatedVersion());
                assertTrue(negotiated.creditsGranted() > 0, negotiated.toString());
            }
        } finally {
            p.destroy();
            if (!p.waitFor(30, TimeUnit.SECONDS)) {
                p.destroyForcibly();
            }
        }
        assertEquals(0, p.exitValue(), Files.readString(log));
    }

    /** The value of one series line of a Prometheus text page; -1 if absent. */
    private static double counter(String page, String series) {
        return HostGateway.counter(page, series);
    }

    private static void awaitStarted(Process p, Path log) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
        while (System.nanoTime() < deadline) {
            if (Files.readString(log).contains("rdmagate started")) {
                return;
            }
            if (!p.isAlive()) {
                fail("rdmagate serve exited with " + p.exitValue() + ":\n" + Files.readString(log));
            }
            p.waitFor(100, TimeUnit.MILLISECONDS);
        }
        fail("rdmagate serve did not start:\n" + Files.readString(log));
    }

    private static void run(Path cwd, String... command) throws IOException, InterruptedException {
        Process c = new ProcessBuilder(command).directory(cwd.toFile()).redirectErrorStream(true).start();
        String out = new String(c.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(c.waitFor(120, TimeUnit.SECONDS), String.join(" ", command));
        assertEquals(0, c.exitValue(), String.join(" ", command) + ":\n" + out);
    }
}
