package io.rdmagate.interop;

import static io.rdmagate.interop.HostClients.run;
import static io.rdmagate.interop.HostClients.smbclient;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rdmagate.interop.HostClients.Run;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The real gateway on its default limits, each of its ports flooded in turn with 2,000 TCP
 * connections that connect and never send a byte, from four addresses (127.0.0.1, the real
 * clients' own, among them): NFS, MOUNT, SMB, HTTP, NFS over RDMA and SMB Direct. While the flood
 * is held, a real client is served on that port (libnfs reads a file through MOUNT and NFS,
 * smbclient reads it over SMB, /health answers, and an MPA Request gets its Reply on the soft-iWARP
 * ports), and the gateway's descriptors stay within the port's bound: its quietest connections
 * make room ({@code limits.maxConnections}, 1,024 per TCP listener; {@code http.maxConnections},
 * 64), as do the sockets that owe their MPA Request ({@code rdma.maxPendingHandshakes}, 64). After the floods, the descriptors are
 * back where they were.
 */
@Tag("interop")
class ConnectionFloodTest {
    private static final int FLOOD = 2_000;
    private static final String USER = "flood";
    private static final String PASSWORD = "Flood-pass-1";

    @TempDir
    Path dir;

    @Test
    void twoThousandIdleConnectionsOnEachPortKeepNoClientOut() throws Exception {
        int nfs = HostGateway.freePort();
        int mount = HostGateway.freePort();
        int smb = HostGateway.freePort();
        int nfsRdma = HostGateway.freePort();
        int smbDirect = HostGateway.freePort();
        String transports = """
                  nfs: {port: %d, mountPort: %d, rdmaPort: %d, nlmPort: %d, nsmPort: %d}
                  rpcbind: {mode: off}
                  smb: {port: %d, directPort: %d}
                """.formatted(nfs, mount, nfsRdma, HostGateway.freePort(), HostGateway.freePort(), smb, smbDirect);
        Files.createDirectories(dir.resolve("export"));
        Files.writeString(dir.resolve("export/public.txt"), "inside");
        Path work = Files.createDirectories(dir.resolve("client"));
        String url = "nfs://127.0.0.1/data/public.txt?version=3&nfsport=" + nfs + "&mountport=" + mount;
        try (HostGateway g = HostGateway.start(dir, HostGateway.rootSmbUser(USER, PASSWORD), transports)) {
            Map<String, Integer> ports = new LinkedHashMap<>();
            ports.put("nfs", nfs);
            ports.put("mount", mount);
            ports.put("smb", smb);
            ports.put("http", g.httpPort());
            ports.put("nfs-rdma", nfsRdma);
            ports.put("smb-direct", smbDirect);
            assertServed("before the floods", work, url, smb, g.httpPort(), nfsRdma, smbDirect);
            long base = descriptors(g);
            for (var port : ports.entrySet()) {
                List<Socket> flood = new ArrayList<>();
                try {
                    for (int i = 0; i < FLOOD; i++) {
                        InetAddress from = InetAddress.getByName("127.0.0." + (1 + i % 4));
                        Socket s = new Socket();
                        s.bind(new InetSocketAddress(from, 0));
                        s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port.getValue()), 10_000);
                        flood.add(s);
                    }
                    String what = "with " + FLOOD + " idle connections on the " + port.getKey() + " port";
                    assertServed(what, work, url, smb, g.httpPort(), nfsRdma, smbDirect);
                    long held = descriptors(g) - base;
                    int bound = switch (port.getKey()) {
                        case "nfs-rdma", "smb-direct", "http" -> 64;
                        default -> 1024;
                    };
                    System.out.printf("ConnectionFloodTest: %s port: gateway holds %d more descriptors%n", port.getKey(), held);
                    assertTrue(held <= bound + 16, what + ", the gateway holds " + held + " more descriptors; bound " + bound);
                } finally {
                    for (Socket s : flood) {
                        s.setSoLinger(true, 0); // a reset: 2,000 ports in TIME_WAIT would collide with later listeners
                        s.close();
                    }
                }
            }
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (descriptors(g) > base + 16 && System.nanoTime() < deadline) {
                Thread.sleep(100); // each closed socket is seen when its event loop or handshake reads it
            }
            assertTrue(descriptors(g) <= base + 16, "descriptors back to " + base + ": " + descriptors(g));
            assertServed("after the floods", work, url, smb, g.httpPort(), nfsRdma, smbDirect);
        }
    }

    private void assertServed(String when, Path work, String url, int smb, int http, int nfsRdma, int smbDirect)
            throws Exception {
        Run cat = run(work, "nfs-cat", url);
        assertEquals(0, cat.exit(), "libnfs " + when + ": " + cat.output());
        assertTrue(cat.output().contains("inside"), cat.output());
        Files.deleteIfExists(work.resolve("got.txt"));
        Run get = smbclient(work, smb, USER, PASSWORD, "get public.txt got.txt");
        assertEquals(0, get.exit(), "smbclient " + when + ": " + get.output());
        assertEquals("inside", Files.readString(work.resolve("got.txt")));
        HttpResponse<String> health = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                URI.create("http://127.0.0.1:" + http + "/health")).timeout(java.time.Duration.ofSeconds(10)).build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(200, health.statusCode(), "/health " + when);
        for (int port : new int[] {nfsRdma, smbDirect}) {
            assertEquals("MPA ID Rep Frame", mpaReply(port), "an MPA Reply on port " + port + " " + when);
        }
    }

    /** Sends an MPA Request (RFC 5044 §7.1, revision 2, IRD and ORD 16) and returns the Reply's key, if accepted. */
    private static String mpaReply(int port) throws IOException {
        try (Socket s = new Socket(InetAddress.getLoopbackAddress(), port)) {
            s.setSoTimeout(10_000);
            ByteBuffer req = ByteBuffer.allocate(24);
            req.put("MPA ID Req Frame".getBytes(StandardCharsets.US_ASCII)).put((byte) 0x10).put((byte) 2)
                    .putShort((short) 4).putShort((short) 16).putShort((short) 16);
            s.getOutputStream().write(req.array());
            InputStream in = s.getInputStream();
            byte[] header = in.readNBytes(20);
            if (header.length < 20) {
                return "closed";
            }
            if ((header[16] & 0x20) != 0) {
                return "rejected";
            }
            return new String(header, 0, 16, StandardCharsets.US_ASCII);
        }
    }

    private static long descriptors(HostGateway g) throws IOException {
        try (var s = Files.list(Path.of("/proc/" + g.pid() + "/fd"))) {
            return s.count();
        }
    }
}
