package io.rdmagate.gateway.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rdmagate.vfs.memory.IoMemoryPool;
import io.rdmagate.vfs.memory.MemoryRegistrar;
import io.rdmagate.vfs.memory.PayloadCopies;
import io.rdmagate.vfs.memory.PoolLimits;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import io.rdmagate.gateway.spi.config.HttpConfig;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class HttpEndpointTest {
    private final HttpClient client = HttpClient.newHttpClient();
    private GatewayMetrics metrics;
    private IoMemoryPool pool;
    private PayloadCopies copies;
    private HttpEndpoint http;
    private volatile Health health = new Health("up", "test", Duration.ofSeconds(3),
            List.of(new Health.Export("data", "/srv/\"data\"", -2, "fanotify group open")), List.of("http/tcp on 127.0.0.1:1"));

    @BeforeEach
    void start() throws Exception {
        metrics = new GatewayMetrics();
        pool = new IoMemoryPool(PoolLimits.DEFAULT, MemoryRegistrar.NONE);
        copies = new PayloadCopies();
        metrics.bindPool(pool);
        metrics.bindPayloadCopies(copies);
        http = start(HttpConfig.DEFAULT_MAX_CONNECTIONS, HttpConfig.DEFAULT_REQUEST_TIMEOUT);
    }

    private HttpEndpoint start(int maxConnections, Duration requestTimeout) throws Exception {
        return HttpEndpoint.start(new HttpConfig(InetAddress.getLoopbackAddress(), 0, maxConnections, requestTimeout),
                metrics, () -> health);
    }

    /** Restarts the endpoint with other bounds. */
    private void restart(int maxConnections, Duration requestTimeout) throws Exception {
        http.close();
        http = start(maxConnections, requestTimeout);
    }

    private Socket connect() throws Exception {
        Socket s = new Socket(InetAddress.getLoopbackAddress(), http.address().getPort());
        s.setSoTimeout(30_000); // a bound for a failing test only: each read below ends sooner when the endpoint works
        return s;
    }

    private static String readAll(Socket s) throws Exception {
        return new String(s.getInputStream().readAllBytes(), StandardCharsets.ISO_8859_1);
    }

    @AfterEach
    void stop() {
        http.close();
        pool.close();
        metrics.close();
    }

    private HttpResponse<String> send(String method, String path) throws Exception {
        URI uri = URI.create("http://127.0.0.1:" + http.address().getPort() + path);
        return client.send(HttpRequest.newBuilder(uri).method(method, HttpRequest.BodyPublishers.noBody()).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void health() throws Exception {
        HttpResponse<String> r = send("GET", "/health");
        assertEquals(200, r.statusCode());
        assertEquals("application/json", r.headers().firstValue("Content-Type").orElseThrow());
        assertEquals("{\"status\":\"up\",\"version\":\"test\",\"uptimeSeconds\":3,\"exports\":[{\"name\":\"data\","
                + "\"path\":\"/srv/\\\"data\\\"\",\"volumeId\":\"fffffffe\",\"hostChanges\":\"fanotify group open\"}],\"listeners\":[\"http/tcp on 127.0.0.1:1\"]}",
                r.body());
    }

    @Test
    void healthIsUnavailableWhileTheGatewayStops() throws Exception {
        health = new Health("stopping", "test", Duration.ofSeconds(3), List.of(), List.of());
        HttpResponse<String> r = send("GET", "/health");
        assertEquals(503, r.statusCode(), "an HTTP probe must see it as not ready");
        assertTrue(r.body().contains("\"status\":\"stopping\""), r.body());
    }

    @Test
    void metricsInPrometheusTextFormat() throws Exception {
        copies.add("rdma", 4096);
        pool.account("t").lease(8192).release();
        HttpResponse<String> r = send("GET", "/metrics");
        assertEquals(200, r.statusCode());
        assertEquals("text/plain; version=0.0.4; charset=utf-8", r.headers().firstValue("Content-Type").orElseThrow());
        String body = r.body();
        for (String name : List.of("# TYPE gateway_payload_copy_bytes_total counter",
                "gateway_payload_copy_bytes_total{transport=\"tcp\"} 0.0",
                "gateway_payload_copy_bytes_total{transport=\"rdma\"} 4096.0",
                "rdmagate_io_pool_allocated_bytes 4194304.0",
                "rdmagate_io_pool_leased_bytes 0.0",
                "rdmagate_io_pool_slabs 1.0",
                "rdmagate_io_pool_exhausted_total 0.0",
                "jvm_memory_used_bytes", "jvm_gc_", "jvm_threads_live_threads", "jvm_classes_loaded_classes",
                "system_cpu_count", "process_uptime_seconds")) {
            assertTrue(body.contains(name), "missing " + name);
        }
    }

    @Test
    void theRdmaDomainShowsThePoolRegisteredOncePerSlab() throws Exception {
        io.rdmagate.rdma.RdmaResources rdma = io.rdmagate.rdma.RdmaResources.open(
                new io.rdmagate.rdma.softiwarp.SoftIwarpDevice("siw-metrics", io.rdmagate.rdma.softiwarp.SoftIwarpDevice.Options.DEFAULT));
        try (IoMemoryPool registered = new IoMemoryPool(PoolLimits.DEFAULT, rdma)) {
            metrics.bindRdma(rdma);
            var a = registered.account("t");
            var leases = new java.util.ArrayList<io.rdmagate.vfs.memory.IoMemory>();
            for (int i = 0; i < 8; i++) {
                leases.add(a.lease(64 << 10)); // eight I/Os, one slab: one registration
            }
            String body = send("GET", "/metrics").body();
            assertTrue(body.contains("rdmagate_rdma_registered_bytes{device=\"siw-metrics\"} 4194304.0"), body);
            assertTrue(body.contains("rdmagate_rdma_registered_regions{device=\"siw-metrics\"} 1.0"), body);
            assertTrue(body.contains("rdmagate_rdma_refused_handshakes_total{device=\"siw-metrics\"} 0.0"), body);
            leases.forEach(io.rdmagate.vfs.memory.IoMemory::release);
        } finally {
            rdma.close();
        }
    }

    @Test
    void theOneStateShowsRecallsAndSharingViolationsPerExport() throws Exception {
        try (var fs = io.rdmagate.vfs.inmemory.InMemoryFileSystem.create(5, io.rdmagate.vfs.ExportOptions.DEFAULT)) {
            metrics.bindStates("media", fs.states());
            var smb = new io.rdmagate.vfs.state.CacheHolder() {
                @Override
                public String protocol() {
                    return "smb";
                }

                @Override
                public boolean holdsAnything() {
                    return true;
                }

                @Override
                public io.rdmagate.vfs.state.Recall recall(int volume, long file, long generation, io.rdmagate.vfs.state.Conflict c, Object breaker) {
                    return null;
                }
            };
            fs.states().register(smb);
            // an SMB open of file 1 that shares reading only
            fs.states().shares().reserve(1, 0, io.rdmagate.vfs.state.ShareReservations.READ,
                    io.rdmagate.vfs.state.ShareReservations.WRITE, smb, "a session");
            assertEquals(io.rdmagate.vfs.VfsError.SHARING_VIOLATION, org.junit.jupiter.api.Assertions.assertThrows(
                    io.rdmagate.vfs.VfsException.class,
                    () -> fs.states().begin(1, io.rdmagate.vfs.state.Conflict.WRITE)).error());
            String body = send("GET", "/metrics").body();
            for (String c : List.of("read", "write", "namespace", "lock")) {
                assertTrue(body.contains("rdmagate_state_recalls_total{conflict=\"" + c + "\",export=\"media\"} 0.0"), body);
            }
            assertTrue(body.contains("rdmagate_state_sharing_violations_total{export=\"media\"} 1.0"), body);
            assertTrue(body.contains("rdmagate_state_recall_timeouts_total{export=\"media\"} 0.0"), body);
            assertTrue(body.contains("rdmagate_state_recall_wait_seconds_total{export=\"media\"} 0.0"), body);
            assertTrue(body.contains("rdmagate_state_foreign_changes_total{conflict=\"write\",export=\"media\"} 0.0"), body);
            assertTrue(body.contains("rdmagate_state_watched_files{export=\"media\"} 0.0"), body);
            assertTrue(body.contains("rdmagate_state_opens{export=\"media\"} 1.0"), body);
        }
    }

    @Test
    void otherPathsAndMethods() throws Exception {
        assertEquals(404, send("GET", "/").statusCode());
        assertEquals(404, send("GET", "/healthz").statusCode());
        HttpResponse<String> post = send("POST", "/health");
        assertEquals(405, post.statusCode());
        assertEquals("GET", post.headers().firstValue("Allow").orElseThrow());
        assertEquals(405, send("DELETE", "/metrics").statusCode());
    }

    @Test
    void oneConnectionServesRequestsOneAfterAnother() throws Exception {
        try (Socket s = connect()) {
            String get = "GET /health HTTP/1.1\r\nHost: x\r\n\r\n";
            s.getOutputStream().write((get + get + "GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            String all = readAll(s); // the third asked for the close
            assertEquals(3, all.split("HTTP/1.1 200 OK", -1).length - 1, all);
            assertTrue(all.contains("# TYPE jvm_memory_used_bytes gauge"), all);
        }
    }

    @Test
    void aRequestThatIsNeverFinishedIsCutAtTheRequestTimeout() throws Exception {
        restart(8, Duration.ofSeconds(1));
        try (Socket silent = connect(); Socket slow = connect(); Socket idle = connect()) {
            slow.getOutputStream().write("GET /hea".getBytes(StandardCharsets.US_ASCII));
            idle.getOutputStream().write("GET /health HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
            assertEquals("", readAll(silent), "closed without a word");
            assertEquals("", readAll(slow), "a request line sent a byte at a time is cut");
            String kept = readAll(idle); // answered, kept alive, then closed when no second request came
            assertTrue(kept.startsWith("HTTP/1.1 200 OK") && kept.endsWith("}"), kept);
        }
        assertEquals(200, send("GET", "/health").statusCode());
    }

    @Test
    void aFloodOfSilentConnectionsKeepsNoProbeOut() throws Exception {
        restart(8, Duration.ofMinutes(10));
        List<Socket> flood = new java.util.ArrayList<>();
        try {
            for (int i = 0; i < 200; i++) {
                flood.add(connect());
            }
            assertEquals(200, send("GET", "/health").statusCode(), "a probe among 200 silent sockets");
            assertEquals("", readAll(flood.getFirst()), "the quietest were closed to make room");
            assertTrue(http.connections() <= 8, "open: " + http.connections());
            assertTrue(http.evicted() >= 193, "closed to make room: " + http.evicted());
        } finally {
            for (Socket s : flood) {
                s.close();
            }
        }
    }

    @Test
    void badRequestsAreAnsweredAndTheConnectionClosed() throws Exception {
        for (String request : List.of("GET /" + "a".repeat(5000) + " HTTP/1.1\r\n\r\n", // request line over 4096
                "GET /health HTTP/1.1\r\nX: " + "b".repeat(9000) + "\r\n\r\n", // headers over 8192
                "GET /%zz HTTP/1.1\r\nHost: x\r\n\r\n", // a path that does not decode
                "\u0001\u0002 garbage\r\n\r\n")) {
            try (Socket s = connect()) {
                s.getOutputStream().write(request.getBytes(StandardCharsets.ISO_8859_1));
                String answer = readAll(s);
                assertTrue(answer.startsWith("HTTP/1.1 400 Bad Request"), answer);
            }
        }
        assertEquals(200, send("GET", "/health").statusCode());
    }

    @Test
    void aRequestWithABodyIsAnsweredWithoutReadingIt() throws Exception {
        try (Socket s = connect()) {
            s.getOutputStream().write(("POST /health HTTP/1.1\r\nHost: x\r\nContent-Length: 1000000000\r\n\r\n"
                    + "x".repeat(100)).getBytes(StandardCharsets.US_ASCII));
            String answer = readAll(s); // closed after the answer, not after a gigabyte
            assertTrue(answer.startsWith("HTTP/1.1 405 Method Not Allowed"), answer);
        }
    }

    @Test
    void aClientThatDoesNotReadItsResponsesIsClosed() throws Exception {
        restart(8, Duration.ofMinutes(10)); // the outbound buffer's bound ends it, not the deadline
        byte[] requests = "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n".repeat(1000).getBytes(StandardCharsets.US_ASCII);
        long sent = 0;
        try (Socket s = connect()) {
            try {
                while (sent < (1L << 30)) {
                    s.getOutputStream().write(requests);
                    sent += requests.length;
                }
            } catch (java.io.IOException closed) {
                // reset by the endpoint
            }
        }
        assertTrue(sent < (1L << 30), "closed after " + sent + " bytes of requests");
        assertEquals(200, send("GET", "/health").statusCode());
    }
}
