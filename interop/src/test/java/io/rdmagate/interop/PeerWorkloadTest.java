package io.rdmagate.interop;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The client workloads (lab/workloads) against the guest's own kernel servers, so that the
 * scripts are known-good before rdmagate serves them. Everything runs in the guest; rdmagate
 * is not involved. One boot per server (lab/job/peers.sh), the large file sized by
 * -Drdmagate.interop.bigMiB (64 MiB in the build, 1 GiB by hand).
 */
@Tag("interop")
class PeerWorkloadTest {
    private static final List<String> CHECKS = List.of("mount", "small-tree", "large-file", "namespace", "symlink",
            "hardlink", "attributes", "flock", "fcntl-lock", "concurrent-writers", "unmount");

    @RegisterExtension
    final GuestLab lab = new GuestLab();

    @Test
    void knfsdNfs3And41And42OverTcpAndRdma() {
        List<String> expected = new ArrayList<>(List.of("siw-up", "knfsd-start", "kernel-clean"));
        for (String vers : List.of("3", "4.1", "4.2")) {
            for (String proto : List.of("tcp", "rdma")) {
                expected.addAll(checks("knfsd-v" + vers + "-" + proto));
            }
        }
        lab.job("knfsd").labScript("peers.sh").env("PEERS", "nfs").env("WORKLOAD_BIG_MIB", GuestLab.bigMiB())
                .timeout(Duration.ofMinutes(25)).run().assertPassed(expected);
    }

    @Test
    void ksmbdSmb311OverTcpAndSmbDirect() {
        List<String> expected = new ArrayList<>(List.of("siw-up", "ksmbd-start", "kernel-clean"));
        for (String t : List.of("tcp", "rdma")) {
            expected.addAll(checks("ksmbd-3.1.1-" + t));
        }
        GuestRun run = ksmbdRun("ksmbd");
        if (run.exitCode() != 0 && knownPeerDefect(run.console())) {
            // ksmbd 6.1 under concurrent writers over SMB Direct (docs/interop.md, peer defects):
            // the guest's kernel crashed, or the siw queue pair between the kernel's cifs and ksmbd
            // failed and the writers hung; rdmagate is not involved in this test. Say so, and boot
            // once more.
            System.out.println("interop: ksmbd failed in the guest's kernel (known peer defects); booting again");
            run = ksmbdRun("ksmbd-again");
        }
        run.assertPassed(expected);
    }

    private static boolean knownPeerDefect(String console) {
        return console.contains("Workqueue: ksmbd-io") && console.contains("list_del corruption")
                || console.contains("QP fatal error on device siw0") && console.contains("ksmbd: smb_direct: disconnected");
    }

    private GuestRun ksmbdRun(String name) {
        return lab.job(name).labScript("peers.sh").env("PEERS", "smb").env("WORKLOAD_BIG_MIB", GuestLab.bigMiB())
                .timeout(Duration.ofMinutes(15)).run();
    }

    private static List<String> checks(String label) {
        return CHECKS.stream().map(c -> label + "/" + c).toList();
    }
}
