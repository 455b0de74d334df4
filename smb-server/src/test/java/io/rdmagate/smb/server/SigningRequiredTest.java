package io.rdmagate.smb.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rdmagate.smb.mserref.NtStatus;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A server configured to require signing (MS-SMB2 3.3.5.2.4): on a signed session, a request
 * that is not signed, or whose signature was made with another key, is refused with
 * STATUS_ACCESS_DENIED and does nothing; signed requests go on being served on the same
 * connection, so an attacker in the path can neither inject nor alter a request.
 */
class SigningRequiredTest {
    private static final int FILE_CREATE = 2;
    private static final int READ_WRITE = 0x0012019f;

    @TempDir
    Path dir;

    @Test
    void unsignedAndForgedRequestsAreRefusedAndDoNothing() throws Exception {
        Path export = Files.createDirectories(dir.resolve("export"));
        try (TestServer server = new TestServer(export, Files.createDirectories(dir.resolve("state")), true, false);
                RawSmbClient c = new RawSmbClient(server.port()).logonSigned()) {
            RawSmbClient.Created signed = c.create("signed.txt", 0, READ_WRITE, 7, FILE_CREATE);
            assertEquals(NtStatus.SUCCESS, signed.status(), "a signed request is served");
            var key = c.signer;

            c.signer = null;
            assertEquals(NtStatus.ACCESS_DENIED, c.create("unsigned.txt", 0, READ_WRITE, 7, FILE_CREATE).status(),
                    "an unsigned request is refused");
            assertFalse(Files.exists(export.resolve("unsigned.txt")), "and made nothing");

            c.signer = RawSmbClient.signer30(new byte[16]);
            assertEquals(NtStatus.ACCESS_DENIED, c.create("forged.txt", 0, READ_WRITE, 7, FILE_CREATE).status(),
                    "a request signed with another key is refused");
            assertFalse(Files.exists(export.resolve("forged.txt")), "and made nothing");
            c.signer = null;
            assertEquals(NtStatus.ACCESS_DENIED, c.write(signed.fileId(), 0, "injected".getBytes()),
                    "an unsigned WRITE to an open file is refused");

            c.signer = key;
            assertEquals(NtStatus.SUCCESS, c.write(signed.fileId(), 0, "signed".getBytes()), "the session goes on");
            assertEquals(NtStatus.SUCCESS, c.close(signed.fileId()));
            assertEquals("signed", Files.readString(export.resolve("signed.txt")), "only the signed WRITE landed");
            assertTrue(Files.exists(export.resolve("signed.txt")));
        }
    }
}
