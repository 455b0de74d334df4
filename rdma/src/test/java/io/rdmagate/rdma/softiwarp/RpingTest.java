package io.rdmagate.rdma.softiwarp;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.rdmagate.rdma.rping.RpingClient;
import io.rdmagate.rdma.rping.RpingServer;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * rping's protocol between the Java client and the Java server over soft iWARP on loopback TCP;
 * the interop lab runs the same two against Linux rping over siw.
 */
class RpingTest {
    @Test
    void clientAndServerPingWithVerifiedData() throws Exception {
        SoftIwarpDevice dev = new SoftIwarpDevice("rping", SoftIwarpDevice.Options.DEFAULT);
        for (int size : new int[] {64, 4096, 65535}) {
            try (RpingServer server = new RpingServer(dev, new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), size);
                    RpingClient client = new RpingClient(dev, size)) {
                CompletableFuture<Integer> served = CompletableFuture.supplyAsync(() -> {
                    try {
                        return server.serveOne();
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                });
                assertEquals(100, client.run(server.address(), 100));
                assertEquals(100, served.get(30, TimeUnit.SECONDS), "the server counts the same pings, size " + size);
            }
        }
    }
}
