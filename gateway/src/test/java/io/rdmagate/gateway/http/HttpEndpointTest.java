package io.rdmagate.gateway.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rdmagate.vfs.memory.IoMemoryPool;
import io.rdmagate.vfs.memory.MemoryRegistrar;
import io.rdmagate.vfs.memory.PayloadCopies;
import io.rdmagate.vfs.memory.PoolLimits;
import java.net.InetAddress;
import java.net.InetSocketAddress;
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
        http = HttpEndpoint.start(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), metrics, () -> health);
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
}
