package io.rdmagate.oncrpc.rpcbind;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Makes the gateway's RPC programs findable through rpcbind, the way the gateway's
 * {@code rpcbind.mode} says (its PortPlanner resolves {@code auto}): {@link #embedded} records
 * them in the embedded rpcbind's registry, {@link #system} registers them with the host's rpcbind
 * (127.0.0.1:111), {@link #none} does nothing. {@link #close} withdraws what was advertised.
 */
public abstract class PortAdvertiser implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(PortAdvertiser.class);

    private record Advertised(int prog, int vers) {
    }

    private final List<Advertised> advertised = new ArrayList<>();

    /** Advertises a program version on a netid ("tcp", "udp") and port. */
    public final synchronized void advertise(int prog, int vers, String netid, int port) throws IOException {
        if (!set(prog, vers, netid, port)) {
            // a stale registration (a previous run that did not stop cleanly): replace it
            unset(prog, vers);
            if (!set(prog, vers, netid, port)) {
                throw new IOException("rpcbind refused to register program " + prog + " version " + vers + " on "
                        + netid + " port " + port);
            }
        }
        Advertised a = new Advertised(prog, vers);
        if (!advertised.contains(a)) {
            advertised.add(a);
        }
    }

    /** Withdraws everything advertised; failures are logged, not thrown (this runs at shutdown). */
    @Override
    public final synchronized void close() {
        for (Advertised a : advertised) {
            try {
                unset(a.prog(), a.vers());
            } catch (IOException e) {
                LOG.warn("could not unregister program {} version {} from rpcbind: {}", a.prog(), a.vers(),
                        e.getMessage());
            }
        }
        advertised.clear();
    }

    protected abstract boolean set(int prog, int vers, String netid, int port) throws IOException;

    protected abstract void unset(int prog, int vers) throws IOException;

    public static PortAdvertiser embedded(RpcbindRegistry registry) {
        return new PortAdvertiser() {
            @Override
            protected boolean set(int prog, int vers, String netid, int port) {
                return registry.set(new Mapping(prog, vers, netid, port, "superuser"));
            }

            @Override
            protected void unset(int prog, int vers) {
                registry.unset(prog, vers, null);
            }
        };
    }

    public static PortAdvertiser system(RpcbindClient client) {
        return new PortAdvertiser() {
            @Override
            protected boolean set(int prog, int vers, String netid, int port) throws IOException {
                return client.set(prog, vers, netid, port);
            }

            @Override
            protected void unset(int prog, int vers) throws IOException {
                client.unset(prog, vers);
            }
        };
    }

    public static PortAdvertiser none() {
        return new PortAdvertiser() {
            @Override
            protected boolean set(int prog, int vers, String netid, int port) {
                return true;
            }

            @Override
            protected void unset(int prog, int vers) {
            }
        };
    }
}
