package io.rdmagate.interop;

import static io.rdmagate.interop.HostClients.run;
import static io.rdmagate.interop.HostClients.smbclient;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rdmagate.interop.HostClients.Run;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What an attacker with a real client tries against the real gateway on its default client
 * rules, kept as a test so that none of it comes back: SMB logons with a wrong password, an
 * unknown user or none at all; names that climb out of the share; symlinks a host user left in
 * the export pointing outside it, over SMB and NFS; and a user other than root on a client host
 * claiming uids over NFS. Each attempt is refused, and a file outside the export never reaches a
 * client. Beside each refusal, the same client doing the allowed thing succeeds, so a refusal is
 * never an outage.
 */
@Tag("interop")
class SecurityRegressionTest {
    private static final String USER = "keeper";
    private static final String PASSWORD = "Keeper-pass-1";

    @TempDir
    Path dir;


    @Test
    void logonsNamesSymlinksAndUnreservedPortsAreRefusedWithRealClients() throws Exception {
        HostGateway.NfsAndSmb ports = HostGateway.NfsAndSmb.onFreePorts();
        String secret = "outside-the-export-" + UUID.randomUUID();
        Path outside = Files.createDirectories(dir.resolve("outside"));
        Files.writeString(outside.resolve("secret.txt"), secret);
        Path export = Files.createDirectories(dir.resolve("export"));
        Files.writeString(export.resolve("public.txt"), "inside");
        // what a user on the gateway's host may leave in the export
        Files.createSymbolicLink(export.resolve("out"), Path.of("../outside"));
        Files.createSymbolicLink(export.resolve("secret-link.txt"), outside.resolve("secret.txt"));
        Path work = Files.createDirectories(dir.resolve("client"));

        try (HostGateway gateway = HostGateway.start(dir, HostGateway.rootSmbUser(USER, PASSWORD),
                ports.transports())) {
            // SMB logons
            Run good = smbclient(work, ports.smb(), List.of("-U", USER + "%" + PASSWORD), "get public.txt got.txt");
            assertEquals(0, good.exit(), good.output());
            assertEquals("inside", Files.readString(work.resolve("got.txt")), "the user is served");
            Run wrong = smbclient(work, ports.smb(), List.of("-U", USER + "%not-" + PASSWORD), "ls");
            assertRefused(wrong, "NT_STATUS_LOGON_FAILURE", "a wrong password");
            Run unknown = smbclient(work, ports.smb(), List.of("-U", "nobody-here%" + PASSWORD), "ls");
            assertRefused(unknown, "NT_STATUS_LOGON_FAILURE", "an unknown user");
            Run anonymous = smbclient(work, ports.smb(), List.of("-N"), "ls");
            assertNotEquals(0, anonymous.exit(), "anonymous on a share that is not guestOk: " + anonymous.output());
            assertFalse(anonymous.output().contains("public.txt"), anonymous.output());

            // SMB names and symlinks that lead out
            for (String path : List.of("..\\outside\\secret.txt", "out\\secret.txt", "secret-link.txt")) {
                Path local = work.resolve("smb-" + Math.abs(path.hashCode()) + ".txt");
                Run r = smbclient(work, ports.smb(), List.of("-U", USER + "%" + PASSWORD),
                        "get \"" + path + "\" " + local.getFileName());
                assertTrue(r.output().contains("NT_STATUS_"), "SMB get " + path + " is refused: " + r.output());
                assertFalse(Files.exists(local) && Files.readString(local).contains(secret),
                        "SMB get " + path + " never brings the file outside the export");
            }

            // NFS: the secure default lets root's libnfs in, and another user of this host not
            Run nfsGood = run(work, "nfs-cat", ports.nfsUrl("public.txt"));
            assertEquals(0, nfsGood.exit(), nfsGood.output());
            assertTrue(nfsGood.output().contains("inside"), nfsGood.output());
            for (String path : List.of("out/secret.txt", "secret-link.txt")) {
                Run r = run(work, "nfs-cat", ports.nfsUrl(path));
                assertFalse(r.output().contains(secret), "NFS read of " + path + " never brings the file outside: "
                        + r.output());
            }
            Run nobody = run(work, "setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "nfs-cat",
                    ports.nfsUrl("public.txt"));
            assertNotEquals(0, nobody.exit(), "a user other than root calls from an unreserved port: "
                    + nobody.output());
            assertFalse(nobody.output().contains("inside"), nobody.output());
            assertTrue(gateway.log().contains("called from port"), "the security log names the port:\n"
                    + gateway.log());

            assertTrue(!gateway.log().contains("Exception"), "no exception in the gateway's log:\n" + gateway.log());
        }
        assertEquals(secret, Files.readString(outside.resolve("secret.txt")), "the file outside is untouched");
    }

    private static void assertRefused(Run r, String status, String what) {
        assertNotEquals(0, r.exit(), what + ": " + r.output());
        assertTrue(r.output().contains(status), what + " is " + status + ": " + r.output());
    }


}
