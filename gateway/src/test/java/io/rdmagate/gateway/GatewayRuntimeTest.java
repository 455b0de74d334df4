package io.rdmagate.gateway;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rdmagate.gateway.config.ConfigParser;
import io.rdmagate.gateway.spi.BoundListener;
import io.rdmagate.gateway.spi.GatewayContext;
import io.rdmagate.gateway.spi.ListenerKind;
import io.rdmagate.gateway.spi.ProtocolService;
import io.rdmagate.gateway.spi.StartException;
import io.rdmagate.gateway.spi.config.GatewayConfig;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Start and stop in-process with a fake protocol service. Needs the real LocalFileSystem. */
class GatewayRuntimeTest {
    private static final InetAddress LOOPBACK = InetAddress.getLoopbackAddress();

    @TempDir
    Path dir;

    /** Records what the gateway hands a protocol service. */
    static final class FakeService implements ProtocolService {
        GatewayContext context;
        Duration stoppedWith;
        final List<String> events = new ArrayList<>();

        @Override
        public String name() {
            return "fake";
        }

        @Override
        public Set<ListenerKind> listeners() {
            return Set.of(ListenerKind.NFS);
        }

        @Override
        public List<BoundListener> start(GatewayContext c) {
            context = c;
            events.add("start");
            int port = c.ports().port(ListenerKind.NFS).orElseThrow().port();
            return List.of(new BoundListener("nfs", "tcp", new InetSocketAddress(LOOPBACK, port)));
        }

        @Override
        public void stop(Duration grace) {
            stoppedWith = grace;
            events.add("stop");
        }
    }

    private GatewayConfig config(int nfsPort, Path export) throws Exception {
        return ConfigParser.parse("t.yaml", """
                stateDir: %s
                http: {address: 127.0.0.1, port: 0}
                exports:
                  - {name: data, path: %s, clients: [{match: "*"}]}
                transports:
                  nfs: {port: %d}
                  rpcbind: {mode: off}
                  smb: {enabled: false}
                """.formatted(dir.resolve("state"), export, nfsPort));
    }

    private static int freePort() throws Exception {
        try (ServerSocket s = new ServerSocket()) {
            s.bind(new InetSocketAddress(LOOPBACK, 0));
            return s.getLocalPort();
        }
    }

    @Test
    void servicesGetTheContextAndAreStoppedWithTheGrace() throws Exception {
        Path export = Files.createDirectories(dir.resolve("export"));
        int port = freePort();
        FakeService service = new FakeService();
        GatewayRuntime g = GatewayRuntime.start(config(port, export), e -> false, List.of(service),
                new PortPlanner(new Privileges(false, 1024), () -> false), LOOPBACK);
        try {
            GatewayContext c = service.context;
            assertNotNull(c);
            assertEquals(Set.of("data"), c.exports().keySet());
            assertNotNull(c.exports().get("data").getattr(c.exports().get("data").root()));
            assertNotNull(c.pool());
            assertNotNull(c.metrics().find("gateway.payload.copy").tag("transport", "tcp").functionCounter());
            assertEquals(port, c.ports().port(ListenerKind.NFS).orElseThrow().port());
            assertTrue(g.health().listeners().contains("nfs/tcp on 127.0.0.1:" + port), g.health().toString());
            assertEquals("up", g.health().status());
        } finally {
            g.stop(Duration.ofSeconds(3));
        }
        assertEquals(List.of("start", "stop"), service.events);
        assertEquals(Duration.ofSeconds(3), service.stoppedWith);
    }

    @Test
    void aCreatedExportDirectoryIsWritableByEveryUserLikeTmp() throws Exception {
        Path export = dir.resolve("data");
        GatewayRuntime g = GatewayRuntime.start(config(freePort(), export), e -> true, List.of(),
                new PortPlanner(new Privileges(false, 1024), () -> false), LOOPBACK);
        try {
            assertEquals(01777, (Integer) Files.getAttribute(export, "unix:mode") & 07777);
        } finally {
            g.stop(Duration.ZERO);
        }
    }

    @Test
    void aMissingExportDirectoryIsAStartError() throws Exception {
        StartException e = assertThrows(StartException.class, () -> GatewayRuntime.start(
                config(freePort(), dir.resolve("absent")), x -> false, List.of(),
                new PortPlanner(new Privileges(true, 1024), () -> false), LOOPBACK));
        assertTrue(e.getMessage().contains("does not exist"), e.getMessage());
    }

    /**
     * The handle store is what keeps every client's file handles valid across restarts: a corrupt
     * one stops the start with a message naming it, and is left as it was for the operator (never
     * replaced by an empty store, which would turn every handle clients hold stale).
     */
    @Test
    void aCorruptHandleStoreIsAStartErrorAndIsLeftAsItWas() throws Exception {
        Path export = Files.createDirectories(dir.resolve("export"));
        GatewayConfig config = config(freePort(), export);
        GatewayRuntime first = GatewayRuntime.start(config, e -> false, List.of(),
                new PortPlanner(new Privileges(false, 1024), () -> false), LOOPBACK);
        first.stop(Duration.ZERO);
        Path store = config.exportStateDir("data").resolve("handles.mv.db");
        byte[] garbage = new byte[(int) Files.size(store)];
        new java.util.Random(9).nextBytes(garbage);
        Files.write(store, garbage);
        StartException e = assertThrows(StartException.class, () -> GatewayRuntime.start(config, x -> false, List.of(),
                new PortPlanner(new Privileges(false, 1024), () -> false), LOOPBACK));
        assertTrue(e.getMessage().contains("export 'data'") && e.getMessage().contains("cannot be opened")
                && e.getMessage().contains(config.exportStateDir("data").toString()), e.getMessage());
        assertTrue(java.util.Arrays.equals(garbage, Files.readAllBytes(store)), "the store is left as it was");
    }

    /** A state directory that cannot be created (here: a file is in its place) stops the start, naming it. */
    @Test
    void aStateDirectoryThatCannotBeCreatedIsAStartError() throws Exception {
        Path export = Files.createDirectories(dir.resolve("export"));
        Files.writeString(dir.resolve("state"), "a file where the state directory should be\n");
        StartException e = assertThrows(StartException.class, () -> GatewayRuntime.start(config(freePort(), export),
                x -> false, List.of(), new PortPlanner(new Privileges(false, 1024), () -> false), LOOPBACK));
        assertTrue(e.getMessage().contains(dir.resolve("state").toString()), e.getMessage());
    }
}
