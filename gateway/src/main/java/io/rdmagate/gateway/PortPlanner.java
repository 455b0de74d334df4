package io.rdmagate.gateway;

import io.rdmagate.gateway.spi.ListenerKind;
import io.rdmagate.gateway.spi.ListenerPlan;
import io.rdmagate.gateway.spi.PlannedPort;
import io.rdmagate.gateway.spi.StartException;
import io.rdmagate.gateway.spi.config.Port;
import io.rdmagate.gateway.spi.config.TransportsConfig.Rpcbind.Mode;
import io.rdmagate.gateway.spi.config.TransportsConfig;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;

/**
 * Decides the port of every enabled listener. A defaulted port that this process may not bind
 * moves to its kind's unprivileged fallback (rpcbind 111 to 10111, SMB 445 to 10445); an
 * explicit port is kept as written, and {@link ListenerPlan#bindCheck} reports it if it cannot
 * be bound. Two listeners on one port are refused. rpcbind mode {@code auto} becomes
 * {@code system} when a system rpcbind answers on the loopback, else {@code embedded}.
 */
public final class PortPlanner {
    private final Privileges privileges;
    private final BooleanSupplier systemRpcbindRunning;

    public PortPlanner(Privileges privileges, BooleanSupplier systemRpcbindRunning) {
        this.privileges = privileges;
        this.systemRpcbindRunning = systemRpcbindRunning;
    }

    /** For this host: privileges from /proc, and a loopback probe for a system rpcbind. */
    public static PortPlanner forThisHost() {
        return new PortPlanner(Privileges.detect(), PortPlanner::systemRpcbindAnswers);
    }

    public ListenerPlan plan(TransportsConfig t) throws StartException {
        List<PlannedPort> out = new ArrayList<>();
        Mode rpcbind = Mode.OFF;
        if (t.nfs().enabled()) {
            rpcbind = t.rpcbind().mode();
            if (rpcbind == Mode.AUTO) {
                rpcbind = systemRpcbindRunning.getAsBoolean() ? Mode.SYSTEM : Mode.EMBEDDED;
            }
            if (rpcbind == Mode.EMBEDDED) {
                out.add(place(ListenerKind.RPCBIND, t.rpcbind().port()));
            }
            out.add(place(ListenerKind.NFS, t.nfs().port()));
            out.add(place(ListenerKind.NFS_RDMA, t.nfs().rdmaPort()));
            out.add(place(ListenerKind.MOUNT, t.nfs().mountPort()));
            out.add(place(ListenerKind.NLM, t.nfs().nlmPort()));
            out.add(place(ListenerKind.NSM, t.nfs().nsmPort()));
        }
        if (t.smb().enabled()) {
            out.add(place(ListenerKind.SMB, t.smb().port()));
            if (t.smb().direct().enabled()) {
                out.add(place(ListenerKind.SMB_DIRECT, t.smb().directPort()));
            }
        }
        Map<Integer, PlannedPort> byPort = new HashMap<>();
        for (PlannedPort p : out) {
            PlannedPort other = byPort.putIfAbsent(p.port(), p);
            if (other != null) {
                throw new StartException("port " + p.port() + " is planned for both " + other.kind() + " ("
                        + other.requested().origin() + ") and " + p.kind() + " (" + p.requested().origin() + ")");
            }
        }
        return new ListenerPlan(out, rpcbind);
    }

    private PlannedPort place(ListenerKind kind, Port requested) {
        int port = requested.number();
        if (!requested.explicit() && !privileges.mayBind(port) && kind.fallbackPort() != 0) {
            return new PlannedPort(kind, kind.fallbackPort(), requested, "port " + port
                    + " needs root or CAP_NET_BIND_SERVICE (ports below " + privileges.unprivilegedPortStart()
                    + "), so " + kind + " uses " + kind.fallbackPort());
        }
        return new PlannedPort(kind, port, requested, null);
    }

    /** Whether something accepts TCP connections on the loopback's port 111. */
    public static boolean systemRpcbindAnswers() {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), 111), 300);
            return true;
        } catch (IOException e) {
            return false;
        }
    }
}
