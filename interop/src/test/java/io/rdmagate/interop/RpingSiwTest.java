package io.rdmagate.interop;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.rdmagate.rdma.rping.RpingServer;
import io.rdmagate.rdma.softiwarp.SoftIwarpDevice;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Linux rping -c over siw in the guest against the Java rping server on the host's soft-iWARP
 * provider: wire compatibility of MPA, DDP and RDMAP with the kernel's siw (Sends, RDMA Read,
 * RDMA Write), with rping comparing every ping's data (-V). The server runs on the HOST; the
 * guest reaches it through a qemu forward.
 */
@Tag("interop")
class RpingSiwTest {
    private static final int COUNT = 20;
    private static final int SIZE = 4096;
    private static final Duration JOB_TIMEOUT = Duration.ofMinutes(6);

    @RegisterExtension
    final GuestLab lab = new GuestLab();

    @Test
    void linuxRpingClientPingsTheJavaServerWithVerifiedData() throws Exception {
        SoftIwarpDevice device = new SoftIwarpDevice("siw-host", SoftIwarpDevice.Options.DEFAULT);
        try (RpingServer server = new RpingServer(device, new InetSocketAddress(InetAddress.getLoopbackAddress(), 0),
                SIZE)) {
            // the client connects once the guest has booted: the server waits as long as the job may run
            CompletableFuture<Integer> served = CompletableFuture.supplyAsync(() -> {
                try {
                    return server.serveOne(JOB_TIMEOUT);
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            int port = server.address().getPort();
            lab.job("rping-rdmagate")
                    .labScript("rping-rdmagate.sh")
                    .env("RPING_PORT", port)
                    .env("RPING_COUNT", COUNT)
                    .env("RPING_SIZE", SIZE)
                    .forward(port)
                    .timeout(JOB_TIMEOUT)
                    .run()
                    .assertPassed(List.of("nic-up", "siw-nic", "rping-c-to-rdmagate"));
            assertEquals(COUNT, served.get(60, TimeUnit.SECONDS), "the Java server served every ping");
        }
    }
}
