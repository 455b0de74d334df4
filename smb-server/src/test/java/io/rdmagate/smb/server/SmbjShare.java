package io.rdmagate.smb.server;

import com.hierynomus.smbj.SMBClient;
import com.hierynomus.smbj.connection.Connection;
import com.hierynomus.smbj.share.DiskShare;
import java.nio.file.Files;
import java.nio.file.Path;

/** A test server over a fresh export under {@code tmp}, and smbj connected to its share "data" as the test user. */
record SmbjShare(TestServer server, Path export, SMBClient client, Connection conn, DiskShare share)
        implements AutoCloseable {

    static SmbjShare start(Path tmp) throws Exception {
        Path export = Files.createDirectories(tmp.resolve("export"));
        TestServer server = new TestServer(export, Files.createDirectories(tmp.resolve("state")), false, false);
        SMBClient client = new SMBClient(SmbjTest.config().build());
        Connection conn = client.connect("127.0.0.1", server.port());
        DiskShare share = (DiskShare) conn.authenticate(SmbjTest.auth(TestServer.PASSWORD)).connectShare("data");
        return new SmbjShare(server, export, client, conn, share);
    }

    @Override
    public void close() throws java.io.IOException {
        share.close();
        conn.close();
        client.close();
        server.close();
    }
}
