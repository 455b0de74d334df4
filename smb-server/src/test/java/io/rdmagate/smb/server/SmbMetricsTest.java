package io.rdmagate.smb.server;

import static io.rdmagate.smb.server.RawSmbClient.READ_WRITE;
import static io.rdmagate.smb.server.RawSmbClient.SHARE_ALL;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.hierynomus.msdtyp.AccessMask;
import com.hierynomus.mssmb2.SMB2CreateDisposition;
import com.hierynomus.mssmb2.SMB2Dialect;
import com.hierynomus.mssmb2.SMB2ShareAccess;
import com.hierynomus.smbj.SMBClient;
import com.hierynomus.smbj.SmbConfig;
import com.hierynomus.smbj.auth.AuthenticationContext;
import com.hierynomus.smbj.common.SMBRuntimeException;
import com.hierynomus.smbj.connection.Connection;
import com.hierynomus.smbj.session.Session;
import com.hierynomus.smbj.share.DiskShare;
import com.hierynomus.smbj.share.File;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.rdmagate.smb.mssmb2.Smb2Create;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * The SMB server's meters and its denial log, driven by smbj (and the raw client for oplock breaks)
 * over loopback TCP, read back from a Prometheus registry.
 */
class SmbMetricsTest {
    static final int MIB = 1 << 20;

    @TempDir
    Path tmp;
    final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    final Logger security = (Logger) LoggerFactory.getLogger(SmbServer.SECURITY_LOG);
    final ListAppender<ILoggingEvent> lines = new ListAppender<>();
    Level level;
    TestServer server;
    Path export;

    @BeforeEach
    void start() throws Exception {
        level = security.getLevel();
        security.setLevel(Level.INFO);
        lines.start();
        security.addAppender(lines);
        export = Files.createDirectories(tmp.resolve("export"));
        // no delay after a failed logon, so a burst of them runs quickly
        server = new TestServer(export, Files.createDirectories(tmp.resolve("state")), registry, Duration.ZERO);
    }

    @AfterEach
    void stop() {
        server.close();
        security.detachAppender(lines);
        security.setLevel(level);
        registry.close();
    }

    static SMBClient client(SMB2Dialect dialect) {
        return new SMBClient(SmbConfig.builder().withDialects(dialect).withTimeout(30, TimeUnit.SECONDS)
                .withSoTimeout(60, TimeUnit.SECONDS).build());
    }

    static AuthenticationContext auth(String user, String password, String domain) {
        return new AuthenticationContext(user, password.toCharArray(), domain);
    }

    double requests(String command, String status) {
        var c = registry.find("rdmagate.smb.requests").tags("command", command, "status", status).counter();
        return c == null ? 0 : c.count();
    }

    double counter(String name, String... tags) {
        var c = registry.find(name).tags(tags).counter();
        return c == null ? 0 : c.count();
    }

    List<String> securityLines() {
        return lines.list.stream().map(ILoggingEvent::getFormattedMessage).toList();
    }

    @Test
    void aMebibyteReadOverTcpIsCountedAndSentWithoutACopy() throws Exception {
        byte[] data = new byte[MIB];
        new Random(1).nextBytes(data);
        Files.write(export.resolve("big.bin"), data);
        try (SMBClient client = client(SMB2Dialect.SMB_3_1_1);
             Connection c = client.connect("127.0.0.1", server.port());
             DiskShare share = (DiskShare) c.authenticate(auth(TestServer.USER, TestServer.PASSWORD, "WORKGROUP"))
                     .connectShare("data")) {
            assertEquals(1.0, registry.get("rdmagate.smb.sessions").gauge().value());
            assertEquals(1.0, registry.get("rdmagate.smb.connections").tags("transport", "tcp").gauge().value());
            long copies0 = server.copies.counter("tcp").sum();
            double sent0 = counter("rdmagate.smb.bytes.sent", "transport", "tcp");
            byte[] got = new byte[MIB];
            try (File f = share.openFile("big.bin", EnumSet.of(AccessMask.GENERIC_READ), null, SMB2ShareAccess.ALL,
                    SMB2CreateDisposition.FILE_OPEN, null)) {
                assertEquals(MIB, f.read(got, 0, 0, MIB), "one READ of a mebibyte");
            }
            assertArrayEquals(data, got);
            assertEquals(1.0, requests("READ", "STATUS_SUCCESS"));
            assertTrue(counter("rdmagate.smb.bytes.sent", "transport", "tcp") - sent0 >= MIB);
            // the data goes to the socket from the memory it was read into: the response headers are gathered
            // into a direct buffer beside it, so nothing copies the payload
            assertEquals(0, server.copies.counter("tcp").sum() - copies0);
        }
        assertEquals(1, registry.get("rdmagate.smb.request").tags("command", "READ").timer().count());
        assertEquals(1.0, counter("rdmagate.smb.connections.accepted", "transport", "tcp"));
        assertEquals(1.0, requests("SESSION_SETUP", "STATUS_SUCCESS"));
        assertEquals(1.0, requests("SESSION_SETUP", "STATUS_MORE_PROCESSING_REQUIRED"));
        assertEquals(1.0, requests("TREE_CONNECT", "STATUS_SUCCESS"));

        String text = registry.scrape();
        assertTrue(text.contains("rdmagate_smb_requests_total{command=\"READ\",status=\"STATUS_SUCCESS\"} 1"), text);
        assertTrue(text.contains("rdmagate_smb_request_seconds_bucket{command=\"READ\",le="), "a latency histogram");
        assertTrue(text.contains("rdmagate_smb_bytes_received_total{transport=\"tcp\"}"));
        assertTrue(text.contains("rdmagate_smb_bytes_sent_total{transport=\"tcp\"}"));
        assertTrue(text.contains("rdmagate_smb_connections_accepted_total{transport=\"tcp\"} 1"));
        assertTrue(text.contains("rdmagate_smb_connections_closed_total{reason=\"evicted\",transport=\"tcp\"} 0"), text);
        assertTrue(text.contains("rdmagate_smb_connections_closed_total{reason=\"handshake\",transport=\"tcp\"} 0"), text);
        assertTrue(text.contains("rdmagate_smb_sessions "), "the sessions gauge");
    }

    @Test
    void aMebibyteWrittenOverTcpIsCopiedOnceWhereItIsGatheredFromSocketReads() throws Exception {
        byte[] data = new byte[MIB];
        new Random(2).nextBytes(data);
        try (SMBClient client = client(SMB2Dialect.SMB_3_1_1);
             Connection c = client.connect("127.0.0.1", server.port());
             DiskShare share = (DiskShare) c.authenticate(auth(TestServer.USER, TestServer.PASSWORD, "WORKGROUP"))
                     .connectShare("data")) {
            try (File f = share.openFile("in.bin", EnumSet.of(AccessMask.GENERIC_WRITE), null, SMB2ShareAccess.ALL,
                    SMB2CreateDisposition.FILE_OVERWRITE_IF, null)) {
                long copies0 = server.copies.counter("tcp").sum();
                double received0 = counter("rdmagate.smb.bytes.received", "transport", "tcp");
                assertEquals(MIB, f.write(data, 0, 0, MIB));
                assertEquals(1.0, requests("WRITE", "STATUS_SUCCESS"));
                assertTrue(counter("rdmagate.smb.bytes.received", "transport", "tcp") - received0 >= MIB);
                // the frame (SMB2 header 64 + WRITE request 48 + data) arrives in many socket reads of at most
                // 64 KiB and is gathered once into a buffer of its size; the vfs writes from that buffer
                assertEquals(64 + 48 + MIB, server.copies.counter("tcp").sum() - copies0);
            }
        }
        assertArrayEquals(data, Files.readAllBytes(export.resolve("in.bin")));
    }

    @Test
    void aFailedLogonIsCountedAndLoggedOnceWithUserDomainAndAddress() throws Exception {
        try (SMBClient client = client(SMB2Dialect.SMB_3_1_1);
             Connection c = client.connect("127.0.0.1", server.port())) {
            assertThrows(SMBRuntimeException.class, () -> c.authenticate(auth("mallory", "guess", "EVILCORP")));
        }
        assertEquals(1.0, requests("SESSION_SETUP", "STATUS_LOGON_FAILURE"));
        List<String> l = securityLines();
        assertEquals(1, l.size(), l.toString());
        assertTrue(l.getFirst().contains("mallory") && l.getFirst().contains("EVILCORP")
                && l.getFirst().contains("127.0.0.1") && l.getFirst().contains("logon failure"), l.getFirst());
        assertEquals(Level.WARN, lines.list.getFirst().getLevel());
    }

    @Test
    void aBurstOfAThousandFailedLogonsWritesABoundedNumberOfLines() throws Exception {
        try (SMBClient client = client(SMB2Dialect.SMB_3_1_1);
             Connection c = client.connect("127.0.0.1", server.port())) {
            for (int i = 0; i < 1000; i++) {
                assertThrows(SMBRuntimeException.class, () -> c.authenticate(auth("mallory", "guess", "EVILCORP")));
            }
        }
        assertEquals(1000.0, requests("SESSION_SETUP", "STATUS_LOGON_FAILURE"));
        assertEquals(5, securityLines().size(), "the per-client budget of a minute");
    }

    @Test
    void aRefusedTreeConnectIsCountedAndLoggedWithShareUserAndAddress() throws Exception {
        // "secure" requires encryption, which SMB 2.1 cannot do
        try (SMBClient client = client(SMB2Dialect.SMB_2_1);
             Connection c = client.connect("127.0.0.1", server.port())) {
            Session s = c.authenticate(auth(TestServer.USER, TestServer.PASSWORD, "WORKGROUP"));
            assertThrows(SMBRuntimeException.class, () -> s.connectShare("secure"));
        }
        assertEquals(1.0, requests("TREE_CONNECT", "STATUS_ACCESS_DENIED"));
        List<String> l = securityLines();
        assertEquals(1, l.size(), l.toString());
        assertTrue(l.getFirst().contains("secure") && l.getFirst().contains(TestServer.USER)
                && l.getFirst().contains("127.0.0.1"), l.getFirst());
    }

    @Test
    void oplockBreaksSentAreCounted() throws Exception {
        try (RawSmbClient a = new RawSmbClient(server.port()).logon();
             RawSmbClient b = new RawSmbClient(server.port()).logon()) {
            RawSmbClient.Created h1 = a.create("oplocked.dat", Smb2Create.OPLOCK_LEVEL_EXCLUSIVE, READ_WRITE, SHARE_ALL,
                    Smb2Create.FILE_OPEN_IF);
            assertEquals(Smb2Create.OPLOCK_LEVEL_EXCLUSIVE, h1.oplockLevel());
            var second = b.sendCreate("oplocked.dat", Smb2Create.OPLOCK_LEVEL_NONE, READ_WRITE, SHARE_ALL,
                    Smb2Create.FILE_OPEN_IF);
            assertNotNull(a.nextBreak(5000), "the holder gets a break notification");
            a.ack(h1.fileId(), Smb2Create.OPLOCK_LEVEL_II);
            second.get(5, TimeUnit.SECONDS);
        }
        assertEquals(1.0, counter("rdmagate.smb.breaks.sent", "kind", "oplock"));
        assertEquals(0.0, counter("rdmagate.smb.breaks.sent", "kind", "lease"));
        assertEquals(1.0, requests("OPLOCK_BREAK", "STATUS_SUCCESS"), "the acknowledgment");
    }
}
