package io.rdmagate.gateway.spi;

import io.micrometer.core.instrument.MeterRegistry;
import io.rdmagate.gateway.spi.config.GatewayConfig;
import io.rdmagate.vfs.VirtualFileSystem;
import io.rdmagate.vfs.memory.IoMemoryPool;
import io.rdmagate.vfs.memory.PayloadCopies;
import java.util.Map;

/**
 * What a {@link ProtocolService} gets to serve with.
 *
 * @param exports        the open exports by export name, in configuration order
 * @param pool           the one I/O memory pool (registered with {@code rdma}'s domain when there is one)
 * @param metrics        where services register their meters
 * @param payloadCopies  where services count the payload bytes they copy, per transport
 * @param ports          the planned port of every enabled listener
 * @param bindAddress    where protocol listeners bind unless their protocol names an address (the wildcard
 *                       in production, the loopback in tests)
 * @param rdma           the process's one RDMA device and protection domain, opened when an RDMA
 *                       listener is planned; empty otherwise
 */
public record GatewayContext(GatewayConfig config, Map<String, VirtualFileSystem> exports, IoMemoryPool pool,
        MeterRegistry metrics, PayloadCopies payloadCopies, ListenerPlan ports, java.net.InetAddress bindAddress,
        java.util.Optional<io.rdmagate.rdma.RdmaResources> rdma) {
    public GatewayContext {
        exports = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(exports));
    }

    /** Where a listener of this kind binds: its protocol's {@code address} in the configuration, else {@link #bindAddress()}. */
    public java.net.InetAddress bindAddress(ListenerKind kind) {
        return bindAddress(config.transports(), kind, bindAddress);
    }

    /** {@link #bindAddress(ListenerKind)} before a context exists. */
    public static java.net.InetAddress bindAddress(io.rdmagate.gateway.spi.config.TransportsConfig t, ListenerKind kind,
            java.net.InetAddress fallback) {
        java.net.InetAddress a = switch (kind) {
            case SMB, SMB_DIRECT -> t.smb().address();
            case RPCBIND, NFS, NFS_RDMA, MOUNT, NLM, NSM -> t.nfs().address();
        };
        return a != null ? a : fallback;
    }
}
