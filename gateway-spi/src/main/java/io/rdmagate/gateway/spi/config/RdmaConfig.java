package io.rdmagate.gateway.spi.config;

import java.time.Duration;

/**
 * The RDMA device the gateway opens for its RDMA listeners (NFS over RDMA now, SMB Direct next),
 * and the bounds of its connections.
 *
 * @param provider             which device: {@code auto} picks the best this host has; {@code soft}
 *                             the built-in software iWARP (Linux siw clients reach it over any IP
 *                             network)
 * @param maxConnections       RDMA connections open at once per listener; each holds its receive and
 *                             send buffers and a queue pair. A connect beyond is rejected
 * @param maxPendingHandshakes TCP connections of one soft-iWARP listener that have not sent their MPA
 *                             Request; one more closes the one silent longest, unanswered
 * @param handshakeTimeout     how long the MPA exchange may take
 */
public record RdmaConfig(Provider provider, int maxConnections, int maxPendingHandshakes, Duration handshakeTimeout) {
    public enum Provider { AUTO, SOFT }

    public static final RdmaConfig DEFAULT = new RdmaConfig(Provider.AUTO, 256, 64, Duration.ofSeconds(10));
}
