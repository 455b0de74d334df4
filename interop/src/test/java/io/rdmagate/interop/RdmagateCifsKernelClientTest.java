package io.rdmagate.interop;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.rdmagate.gateway.users.NtHash;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Linux kernel cifs client against rdmagate: rdmagate runs on the HOST (the real program,
 * as a child process, with one SMB user stored as an NT hash); the guest mounts its share with
 * SMB 3.1.1 over TCP through a qemu forward, signed and then sealed, and runs the workload that
 * PeerWorkloadTest proves against ksmbd.
 */
@Tag("interop")
class RdmagateCifsKernelClientTest {
    private static final List<String> CHECKS = List.of("mount", "small-tree", "large-file", "namespace", "symlink",
            "hardlink", "attributes", "flock", "fcntl-lock", "concurrent-writers", "unmount");
    private static final String USER = "lab";
    private static final String PASSWORD = "Lab-pass-1";

    @RegisterExtension
    final GuestLab lab = new GuestLab();

    @TempDir
    Path dir;

    @Test
    void kernelClientMountsSmb311AndRunsTheWorkload() throws Exception {
        int smb = HostGateway.freePort();
        String transports = """
                  nfs: {enabled: false}
                  smb: {port: %d}
                """.formatted(smb);
        String users = """
                users:
                  - {name: %s, uid: 0, gid: 0, ntHash: %s}
                """.formatted(USER, NtHash.of(PASSWORD.toCharArray()));
        try (HostGateway gateway = HostGateway.start(dir, users, transports)) {
            List<String> expected = new ArrayList<>(List.of("nic-up", "kernel-clean"));
            for (String mode : List.of("tcp", "seal")) {
                for (String c : CHECKS) {
                    expected.add("rdmagate-3.1.1-" + mode + "/" + c);
                }
            }
            GuestRun run = lab.job("rdmagate-cifs")
                    .labScript("rdmagate-cifs.sh")
                    .env("SMB_PORT", smb)
                    .env("SMB_USER", USER)
                    .env("SMB_PASSWORD", PASSWORD)
                    .env("WORKLOAD_BIG_MIB", GuestLab.bigMiB())
                    .forward(smb)
                    .timeout(Duration.ofMinutes(25))
                    .run();
            run.assertPassed(expected);
            assertEquals(0, gateway.stop(), gateway.log());
        }
    }

}
