package io.rdmagate.nfs;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.micrometer.core.instrument.Timer;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.rdmagate.gateway.spi.config.ClientRule.Access;
import io.rdmagate.nfs.client.Nfs3Client;
import io.rdmagate.nfs.client.Nfs3Client.NfsStatusException;
import io.rdmagate.nfs.mount.Mount;
import io.rdmagate.nfs.nlm.Nlm4;
import io.rdmagate.nfs.nlm.NlmLock;
import io.rdmagate.nfs.v3.Nfs3;
import io.rdmagate.nfs.v3.Nfs3Status;
import io.rdmagate.oncrpc.client.RpcClient;
import io.rdmagate.oncrpc.rpc.AuthSys;
import io.rdmagate.vfs.ExportOptions;
import io.rdmagate.vfs.local.LocalFileSystem;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * The NFS service's meters and its denial log, driven by real calls over loopback TCP with the
 * in-repo client against the local backend, read back from a Prometheus registry.
 */
class NfsMetricsTest {
    @TempDir
    Path dir;
    final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    final Logger security = (Logger) LoggerFactory.getLogger(NfsExports.SECURITY_LOG);
    final ListAppender<ILoggingEvent> lines = new ListAppender<>();
    Level level;
    NfsFixture fx;
    byte[] root;

    @BeforeEach
    void start() throws Exception {
        level = security.getLevel();
        security.setLevel(Level.INFO);
        lines.start();
        security.addAppender(lines);
        Path data = Files.createDirectories(dir.resolve("data"));
        Path refused = Files.createDirectories(dir.resolve("refused"));
        fx = new NfsFixture(List.of(
                NfsFixture.export(0, "data", LocalFileSystem.open(data, dir.resolve("s0"), ExportOptions.DEFAULT),
                        NfsFixture.rule("*", Access.RW, false, false)),
                NfsFixture.export(1, "refused", LocalFileSystem.open(refused, dir.resolve("s1"), ExportOptions.DEFAULT),
                        NfsFixture.rule("10.0.0.0/8", Access.RW, false, false))), h -> null, registry);
        root = Nfs3Client.mount(fx.mount(), "/data", NfsFixture.ROOT);
    }

    @AfterEach
    void stop() {
        fx.close();
        security.detachAppender(lines);
        security.setLevel(level);
        registry.close();
    }

    private double requests(String program, String version, String procedure, String status) {
        var c = registry.find("rdmagate.nfs.requests").tags("program", program, "version", version, "procedure",
                procedure, "status", status).counter();
        return c == null ? 0 : c.count();
    }

    private double counter(String name, String... tags) {
        var c = registry.find(name).tags(tags).counter();
        return c == null ? 0 : c.count();
    }

    private List<String> securityLines() {
        return lines.list.stream().map(ILoggingEvent::getFormattedMessage).toList();
    }

    @Test
    void aMebibyteWrittenAndReadOverTcpIsCountedWithItsBytesLatencyAndNoCopy() throws Exception {
        byte[] data = new byte[1 << 20];
        new Random(13).nextBytes(data);
        double in0 = counter("rdmagate.nfs.bytes.received", "transport", "tcp");
        double out0 = counter("rdmagate.nfs.bytes.sent", "transport", "tcp");
        try (Nfs3Client nfs = Nfs3Client.connect(fx.nfs(), NfsFixture.ROOT)) {
            byte[] fh = nfs.create(root, "big", 0644);
            assertEquals(1.0, registry.get("rdmagate.nfs.connections").tags("listener", "nfs", "transport", "tcp")
                    .gauge().value(), "the client's connection is open (it was answered, so it was accepted)");
            nfs.write(fh, 0, data, Nfs3.FILE_SYNC);
            assertArrayEquals(data, nfs.read(fh, 0, data.length).data());
        }
        assertEquals(1.0, requests("nfs", "3", "CREATE", "NFS3_OK"));
        assertEquals(1.0, requests("nfs", "3", "WRITE", "NFS3_OK"));
        assertEquals(1.0, requests("nfs", "3", "READ", "NFS3_OK"));
        assertEquals(1.0, requests("mount", "3", "MNT", "MNT3_OK"));
        Timer read = registry.get("rdmagate.nfs.request").tags("program", "nfs", "procedure", "READ").timer();
        assertEquals(1, read.count());
        assertTrue(read.totalTime(java.util.concurrent.TimeUnit.NANOSECONDS) > 0);
        assertTrue(counter("rdmagate.nfs.bytes.received", "transport", "tcp") - in0 >= data.length, "the WRITE's data");
        assertTrue(counter("rdmagate.nfs.bytes.sent", "transport", "tcp") - out0 >= data.length, "the READ's data");
        assertEquals(1.0, counter("rdmagate.nfs.connections.accepted", "listener", "nfs", "transport", "tcp"));
        // TCP is zero-copy in the gateway: the WRITE's data is written from the receive buffers, the READ's
        // payload is sent from the memory the file was read into
        assertEquals(0, fx.copies.counter("tcp").sum());

        String text = registry.scrape();
        assertTrue(text.contains(
                "rdmagate_nfs_requests_total{procedure=\"READ\",program=\"nfs\",status=\"NFS3_OK\",version=\"3\"} 1"),
                text);
        assertTrue(text.contains("rdmagate_nfs_request_seconds_bucket{procedure=\"READ\",program=\"nfs\",version=\"3\","),
                "a latency histogram");
        assertTrue(text.contains("rdmagate_nfs_bytes_received_total{transport=\"tcp\"}"));
        assertTrue(text.contains("rdmagate_nfs_bytes_sent_total{transport=\"tcp\"}"));
        assertTrue(text.contains("rdmagate_nfs_connections{listener=\"nfs\",transport=\"tcp\"}"));
    }

    @Test
    void errorStatusesAreCountedByName() throws Exception {
        try (Nfs3Client nfs = Nfs3Client.connect(fx.nfs(), NfsFixture.ROOT)) {
            NfsStatusException e = assertThrows(NfsStatusException.class, () -> nfs.lookup(root, "missing"));
            assertEquals(Nfs3Status.NFS3ERR_NOENT, e.status());
            assertThrows(NfsStatusException.class, () -> nfs.getattr(new byte[28]));
            nfs.ping();
        }
        assertEquals(1.0, requests("nfs", "3", "LOOKUP", "NFS3ERR_NOENT"));
        assertEquals(1.0, requests("nfs", "3", "GETATTR", "NFS3ERR_BADHANDLE"));
        assertEquals(1.0, requests("nfs", "3", "NULL", "OK"));
        try (RpcClient c = RpcClient.connect(fx.nfs(), Nfs3Client.TIMEOUT).credentials(NfsFixture.ROOT)) {
            c.call(Nfs3.PROGRAM, 3, 99, new byte[0], Nfs3Client.TIMEOUT);
            c.call(Nfs3.PROGRAM, 3, Nfs3.GETATTR, new byte[] {0, 0, 1}, Nfs3Client.TIMEOUT);
            c.call(Nfs3.PROGRAM, 2, Nfs3.NULL, new byte[0], Nfs3Client.TIMEOUT);
        }
        assertEquals(1.0, requests("nfs", "3", "OTHER", "PROC_UNAVAIL"));
        assertEquals(1.0, requests("nfs", "3", "GETATTR", "GARBAGE_ARGS"));
        assertEquals(1.0, requests("nfs", "3", "NULL", "PROG_MISMATCH"), "counted under the lowest version");
    }

    @Test
    void nlmAndNsmCallsAreCountedWithTheirStatus() throws Exception {
        byte[] fh;
        try (Nfs3Client nfs = Nfs3Client.connect(fx.nfs(), NfsFixture.ROOT)) {
            fh = nfs.create(root, "locked", 0644);
        }
        NlmLock lock = new NlmLock("alpha", fh, "oh-1".getBytes(StandardCharsets.US_ASCII), 1, 0, 10);
        try (RpcClient nlm = RpcClient.connect(fx.nlm(), Nfs3Client.TIMEOUT).credentials(NfsFixture.ROOT)) {
            var r = nlm.call(Nlm4.PROGRAM, 4, Nlm4.LOCK, Nfs3Client.encode(e -> {
                e.writeOpaque(new byte[] {1, 2, 3, 4, 5}).writeBool(false).writeBool(true);
                lock.write(e);
                e.writeBool(false).writeInt(1);
            }), Nfs3Client.TIMEOUT);
            var d = r.results();
            d.readOpaque(1024);
            assertEquals(Nlm4.GRANTED_STAT, d.readInt());
        }
        try (RpcClient nsm = RpcClient.connect(fx.nsm(), Nfs3Client.TIMEOUT)) {
            nsm.call(Nlm4.NSM_PROGRAM, 1, Nlm4.SM_STAT, Nfs3Client.encode(e -> e.writeString("x")), Nfs3Client.TIMEOUT);
        }
        assertEquals(1.0, requests("nlm", "4", "LOCK", "NLM4_GRANTED"));
        assertEquals(1.0, requests("nsm", "1", "STAT", "STAT_SUCC") + requests("nsm", "1", "STAT", "STAT_FAIL"));
        assertEquals(1.0, counter("rdmagate.nfs.connections.accepted", "listener", "nlm", "transport", "tcp"));
    }

    @Test
    void aRefusedMountIsCountedAndLoggedOnceWithClientUidAndPath() throws Exception {
        NfsStatusException e = assertThrows(NfsStatusException.class,
                () -> Nfs3Client.mount(fx.mount(), "/refused", NfsFixture.ALICE));
        assertEquals(Mount.MNT3ERR_ACCES, e.status());
        assertEquals(1.0, requests("mount", "3", "MNT", "MNT3ERR_ACCES"));
        List<String> l = securityLines();
        assertEquals(1, l.size(), l.toString());
        assertTrue(l.getFirst().contains("/refused") && l.getFirst().contains("127.0.0.1")
                && l.getFirst().contains("uid 1000") && l.getFirst().contains("refused"), l.getFirst());
        assertEquals(Level.WARN, lines.list.getFirst().getLevel());
    }

    @Test
    void aBurstOfAThousandRefusedMountsWritesABoundedNumberOfLines() throws Exception {
        try (RpcClient c = RpcClient.connect(fx.mount(), Nfs3Client.TIMEOUT).credentials(NfsFixture.ROOT)) {
            for (int i = 0; i < 1000; i++) {
                var r = c.call(Mount.PROGRAM, Mount.VERSION, Mount.MNT, Nfs3Client.encode(x -> x.writeString("/refused")),
                        Nfs3Client.TIMEOUT);
                assertEquals(Mount.MNT3ERR_ACCES, r.results().readInt());
            }
        }
        assertEquals(1000.0, requests("mount", "3", "MNT", "MNT3ERR_ACCES"));
        assertEquals(5, securityLines().size(), "the per-client budget of a minute");
    }

    @Test
    void anAccessDeniedAnswerIsLoggedWithUidClientAndProcedure() throws Exception {
        byte[] fh;
        try (Nfs3Client nfs = Nfs3Client.connect(fx.nfs(), NfsFixture.ROOT)) {
            fh = nfs.create(root, "private", 0600);
            nfs.write(fh, 0, new byte[] {1, 2, 3}, Nfs3.FILE_SYNC);
        }
        AuthSys mallory = new AuthSys(1, "client", 4242, 4242, new int[] {4242});
        try (Nfs3Client nfs = Nfs3Client.connect(fx.nfs(), mallory)) {
            NfsStatusException e = assertThrows(NfsStatusException.class, () -> nfs.read(fh, 0, 3));
            assertEquals(Nfs3Status.NFS3ERR_ACCES, e.status());
        }
        assertEquals(1.0, requests("nfs", "3", "READ", "NFS3ERR_ACCES"));
        List<String> l = securityLines();
        assertEquals(1, l.size(), l.toString());
        assertTrue(l.getFirst().contains("READ") && l.getFirst().contains("NFS3ERR_ACCES")
                && l.getFirst().contains("uid 4242") && l.getFirst().contains("127.0.0.1"), l.getFirst());
    }
}
