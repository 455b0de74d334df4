package io.rdmagate.smb.server;

import static io.rdmagate.smb.server.RawSmbClient.READ_WRITE;
import static io.rdmagate.smb.server.RawSmbClient.SHARE_ALL;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.rdmagate.smb.mserref.NtStatus;
import io.rdmagate.smb.mssmb2.Smb2Create;
import io.rdmagate.smb.mssmb2.Smb2Header;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Re-authentication and reconnection (MS-SMB2 3.3.5.5.3), as smbtorture's smb2.session.reauth1/reconnect1 use them. */
class SessionReconnectTest {
    @TempDir
    static Path tmp;
    static TestServer server;

    @BeforeAll
    static void start() throws Exception {
        server = new TestServer(Files.createDirectories(tmp.resolve("export")), Files.createDirectories(tmp.resolve("state")),
                false, false);
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    @Test
    void reauthenticationKeepsTheSessionAndItsOpens() throws Exception {
        try (RawSmbClient a = new RawSmbClient(server.port()).logon()) {
            RawSmbClient.Created h = a.create("reauth.dat", Smb2Create.OPLOCK_LEVEL_BATCH, READ_WRITE, SHARE_ALL,
                    Smb2Create.FILE_OPEN_IF);
            long id = a.sessionId;
            assertEquals(NtStatus.SUCCESS, Smb2Header.status(a.sessionSetup(0)));
            assertEquals(id, a.sessionId);
            assertEquals(NtStatus.SUCCESS, a.queryPosition(h.fileId()));
        }
    }

    @Test
    void aReconnectNamingThePreviousSessionEndsIt() throws Exception {
        try (RawSmbClient a = new RawSmbClient(server.port()).logon()) {
            RawSmbClient.Created h = a.create("reconnect.dat", Smb2Create.OPLOCK_LEVEL_NONE, READ_WRITE, SHARE_ALL,
                    Smb2Create.FILE_OPEN_IF);
            assertEquals(NtStatus.SUCCESS, a.queryPosition(h.fileId()));
            RawSmbClient b = new RawSmbClient(server.port());
            b.previousSessionId = a.sessionId;
            try (b) {
                b.logon();
                assertEquals(NtStatus.USER_SESSION_DELETED, a.queryPosition(h.fileId()));
                // the old session's open went with it: the file can be opened exclusively now
                assertEquals(NtStatus.SUCCESS, b.create("reconnect.dat", 0, READ_WRITE, 0, Smb2Create.FILE_OPEN).status());
            }
        }
    }
}
