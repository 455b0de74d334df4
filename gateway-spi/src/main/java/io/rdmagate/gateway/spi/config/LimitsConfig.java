package io.rdmagate.gateway.spi.config;

import io.rdmagate.vfs.memory.PoolLimits;

/**
 * Resource bounds.
 *
 * @param maxConnections connections open at once per TCP listener
 * @param maxConnectionsPerAddress connections open at once per TCP listener from one source address
 * @param maxIoSize     the largest READ or WRITE payload offered to clients
 * @param maxRecordSize the largest RPC record or SMB message accepted
 * @param recordTimeout how long an RPC record may take to arrive once its first byte has
 * @param sendTimeout   how long RPC replies may wait without the client taking any of them
 */
public record LimitsConfig(PoolLimits pool, int maxConnections, int maxConnectionsPerAddress, int maxIoSize,
        int maxRecordSize, java.time.Duration recordTimeout, java.time.Duration sendTimeout) {
}
