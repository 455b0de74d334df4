package io.rdmagate.gateway.spi;

import java.time.Duration;
import java.util.List;
import java.util.Set;

/**
 * A protocol server the gateway runs (NFS, SMB, the embedded rpcbind). Implementations are
 * found with {@link java.util.ServiceLoader} (a {@code META-INF/services/io.rdmagate.gateway.spi.ProtocolService}
 * entry in their module), so a new protocol module plugs in without changes to the gateway.
 *
 * <p>Life cycle: the gateway bind-checks the ports of {@link #listeners()} in the plan, then calls
 * {@link #start} once, then {@link #stop} once at shutdown. Both are called from one thread.
 */
public interface ProtocolService {
    /** Short name for logs, e.g. "nfs". */
    String name();

    /** The planned listeners this service binds; the gateway checks their ports before start. */
    Set<ListenerKind> listeners();

    /** Binds and starts serving, using the ports in {@link GatewayContext#ports()}. */
    List<BoundListener> start(GatewayContext context) throws Exception;

    /** Stops accepting, lets work in flight finish for up to {@code grace}, then closes everything. */
    void stop(Duration grace);
}
