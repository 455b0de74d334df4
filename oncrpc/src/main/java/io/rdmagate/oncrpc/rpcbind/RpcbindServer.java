package io.rdmagate.oncrpc.rpcbind;

import io.rdmagate.oncrpc.server.RpcLimits;
import io.rdmagate.oncrpc.server.RpcServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;

/**
 * The embedded rpcbind on its own: RFC 1833 over TCP and UDP on one port (111 on a host without a
 * system rpcbind; any port in tests). It registers itself (versions 2, 3 and 4 on tcp and udp),
 * as rpcbind does, so that DUMP and rpcinfo show it.
 */
public final class RpcbindServer implements AutoCloseable {
    private final RpcbindRegistry registry;
    private final RpcServer server;

    private RpcbindServer(RpcbindRegistry registry, RpcServer server) {
        this.registry = registry;
        this.server = server;
    }

    /**
     * @param advertised host part of the universal addresses answered, or null for the address
     *                   each query arrived on
     */
    public static RpcbindServer start(InetAddress address, int port, RpcbindRegistry registry, InetAddress advertised,
            RpcLimits limits) throws IOException {
        RpcServer s = RpcServer.builder().program(new RpcbindProgram(registry, advertised)).limits(limits).udp(true)
                .eventLoopThreads(1).bind(address, port);
        for (int v = 2; v <= 4; v++) {
            registry.set(new Mapping(Rpcbind.PROGRAM, v, "tcp", s.port(), "superuser"));
            registry.set(new Mapping(Rpcbind.PROGRAM, v, "udp", s.port(), "superuser"));
        }
        return new RpcbindServer(registry, s);
    }

    public RpcbindRegistry registry() {
        return registry;
    }

    public int port() {
        return server.port();
    }

    public InetSocketAddress tcpAddress() {
        return server.tcpAddress();
    }

    public InetSocketAddress udpAddress() {
        return server.udpAddress();
    }

    public void stop(Duration grace) {
        server.stop(grace);
        for (int v = 2; v <= 4; v++) {
            registry.unset(Rpcbind.PROGRAM, v, null);
        }
    }

    @Override
    public void close() {
        stop(Duration.ofSeconds(2));
    }
}
