package io.rdmagate.interop;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The lab works: one boot of the guest (lab/job/smoke.sh) with rdmagate running on the host.
 * rdmagate runs on the HOST here; the guest reaches its /health through a qemu guestfwd
 * (user networking with restrict=on, nothing else reachable).
 */
@Tag("interop")
class LabSmokeTest {
    @RegisterExtension
    final GuestLab lab = new GuestLab();

    @TempDir
    Path dir;

    @Test
    void guestBootsRdmaComesUpPeersMountOverRdmaAndHostGatewayIsReachable() throws Exception {
        try (HostGateway gateway = HostGateway.start(dir)) {
            GuestRun run = lab.job("smoke")
                    .labScript("smoke.sh")
                    .env("HEALTH_PORT", gateway.httpPort())
                    .forward(gateway.httpPort())
                    .gatewayInGuest()
                    .timeout(Duration.ofMinutes(8))
                    .run();
            run.assertPassed(List.of(
                    "modules-from-updates", // siw.ko, cifs.ko, ksmbd.ko built by the lab are the ones modprobe loads
                    "nic-up",
                    "host-health",          // GET /health of the host's rdmagate through the forward: 200, "up"
                    "guest-restricted",     // the guest reaches nothing but the forwarded port
                    "siw-up", "rxe-up",     // soft iWARP and soft RoCE on dummy netdevs
                    "rdma-devices",         // rdmagate rdma devices (libibverbs) lists both as ibv_devinfo -v does
                    "rping-siw", "rping-rxe",
                    "knfsd-start",
                    "knfsd-rdma-siw",       // NFSv4.1 over RDMA (siw): mount, 8 MiB written and read back
                    "knfsd-rdma-rxe",       // NFSv3 over RDMA (rxe)
                    "ksmbd-start",
                    "ksmbd-smbdirect-siw",  // SMB 3.1.1 over SMB Direct (siw)
                    "ksmbd-smbdirect-rxe",  // SMB 3.1.1 over SMB Direct (rxe)
                    "kernel-clean"));
            assertEquals(0, gateway.stop(), gateway.log());
        }
    }
}
