package io.rdmagate.smb.server;

import com.hierynomus.smbj.SMBClient;
import com.hierynomus.smbj.connection.Connection;
import com.hierynomus.smbj.share.DiskShare;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * For a test class ({@code @RegisterExtension static final SmbjShare smb = new SmbjShare()}): a
 * test server over a fresh export, and smbj connected to its share "data" as the test user.
 */
final class SmbjShare implements BeforeAllCallback, AfterAllCallback {
    private Path dir;
    private TestServer server;
    private SMBClient client;
    private Connection conn;
    private DiskShare share;

    @Override
    public void beforeAll(ExtensionContext context) throws Exception {
        dir = Files.createTempDirectory("rdmagate-smbj");
        server = new TestServer(Files.createDirectories(export()), Files.createDirectories(dir.resolve("state")),
                false, false);
        client = new SMBClient(SmbjTest.config().build());
        conn = client.connect("127.0.0.1", server.port());
        share = (DiskShare) conn.authenticate(SmbjTest.auth(TestServer.PASSWORD)).connectShare("data");
    }

    @Override
    public void afterAll(ExtensionContext context) throws IOException {
        share.close();
        conn.close();
        client.close();
        server.close();
        try (Stream<Path> all = Files.walk(dir)) {
            for (Path p : all.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }

    TestServer server() {
        return server;
    }

    /** The exported directory, as the host sees it. */
    Path export() {
        return dir.resolve("export");
    }

    DiskShare share() {
        return share;
    }
}
