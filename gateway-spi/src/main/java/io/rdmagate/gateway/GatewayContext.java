package io.rdmagate.gateway;

import io.micrometer.core.instrument.MeterRegistry;
import io.rdmagate.gateway.config.GatewayConfig;
import io.rdmagate.vfs.VirtualFileSystem;
import io.rdmagate.vfs.memory.IoMemoryPool;
import io.rdmagate.vfs.memory.PayloadCopies;
import java.util.Map;

/**
 * What a {@link ProtocolService} gets to serve with.
 *
 * @param exports        the open exports by export name, in configuration order
 * @param pool           the one I/O memory pool
 * @param metrics        where services register their meters
 * @param payloadCopies  where services count the payload bytes they copy, per transport
 * @param ports          the planned port of every enabled listener
 * @param bindAddress    where protocol listeners bind (the wildcard in production, the loopback in tests)
 */
public record GatewayContext(GatewayConfig config, Map<String, VirtualFileSystem> exports, IoMemoryPool pool,
        MeterRegistry metrics, PayloadCopies payloadCopies, ListenerPlan ports, java.net.InetAddress bindAddress) {
    public GatewayContext {
        exports = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(exports));
    }
}
