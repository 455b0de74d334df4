package io.rdmagate.gateway.spi;

import io.rdmagate.gateway.spi.config.TransportsConfig.Rpcbind.Mode;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * The ports the protocol listeners will use, decided by {@link PortPlanner}.
 *
 * @param rpcbind how NFSv3 side protocols are advertised: EMBEDDED (the plan holds its port),
 *                SYSTEM (register with the host's rpcbind) or OFF
 */
public record ListenerPlan(List<PlannedPort> ports, Mode rpcbind) {
    public ListenerPlan {
        ports = List.copyOf(ports);
    }

    public Optional<PlannedPort> port(ListenerKind kind) {
        return ports.stream().filter(p -> p.kind() == kind).findFirst();
    }

    /**
     * Binds, then releases, a TCP socket on each planned port of the given kinds, so that start
     * fails before anything is served when a port is taken or not allowed; the listener rebinds.
     */
    public void bindCheck(java.util.function.Function<ListenerKind, InetAddress> address, Set<ListenerKind> kinds) throws StartException {
        for (PlannedPort p : ports) {
            if (!kinds.contains(p.kind())) {
                continue;
            }
            try (ServerSocket s = new ServerSocket()) {
                s.bind(new InetSocketAddress(address.apply(p.kind()), p.port()));
            } catch (IOException e) {
                String origin = p.requested().explicit() ? "set at " + p.requested().origin() : "the default";
                throw new StartException("cannot listen on port " + p.port() + " for " + p.kind() + " (" + origin
                        + "): " + e.getMessage() + hint(p, e), e);
            }
        }
    }

    private static String hint(PlannedPort p, IOException e) {
        String m = String.valueOf(e.getMessage()).toLowerCase(java.util.Locale.ROOT);
        if (m.contains("permission") || m.contains("access")) {
            return "; run as root, grant CAP_NET_BIND_SERVICE, or choose a port of 1024 or above";
        }
        if (m.contains("in use")) {
            return "; another program listens there (see: ss -ltnp 'sport = :" + p.port() + "')";
        }
        return "";
    }
}
