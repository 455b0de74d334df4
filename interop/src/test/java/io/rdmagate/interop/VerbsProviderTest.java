package io.rdmagate.interop;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The verbs provider (libibverbs and librdmacm through java.lang.foreign) on real kernel RDMA
 * devices: in one boot of the guest, {@code rdmagate rdma rping} serves Linux's {@code rping -c}
 * and pings Linux's {@code rping -s}, on rxe0 (soft RoCE) and siw0 (soft iWARP), 20 pings of 4 KiB
 * each way with every ping's data checked (lab/job/verbs.sh).
 */
@Tag("interop")
class VerbsProviderTest {
    @RegisterExtension
    final GuestLab lab = new GuestLab();

    @Test
    void rdmagateRpingsLinuxRpingBothWaysOverRoceAndIwarp() {
        lab.job("verbs")
                .labScript("verbs.sh")
                .gatewayInGuest()
                .timeout(Duration.ofMinutes(10))
                .run()
                .assertPassed(List.of("rxe-up", "siw-up", "verbs-server-rxe0", "verbs-client-rxe0", "verbs-server-siw0",
                        "verbs-client-siw0", "kernel-clean"));
    }
}
