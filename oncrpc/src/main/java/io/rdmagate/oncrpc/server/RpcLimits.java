package io.rdmagate.oncrpc.server;

import java.time.Duration;

/**
 * Resource bounds of an RPC server.
 *
 * @param maxRecordSize       largest record accepted (all fragments together); a larger one closes
 *                            the connection before any of it is buffered
 * @param maxFragments        most fragments one record may have
 * @param maxInFlight         calls of one connection being processed or written at once; past it
 *                            the connection is not read
 * @param maxConnections      connections open at once; a new one closes the quietest (longest without
 *                            a byte read or written), as knfsd does
 * @param maxConnectionsPerAddress connections open at once from one source address; a new one
 *                            closes the quietest of that address's
 * @param idleTimeout         a connection with nothing read or written and no call in flight for
 *                            this long is closed; zero disables
 * @param drcEntries          duplicate request cache entries (LRU); zero disables the cache
 * @param drcMaxAge           how long a cached reply may be replayed
 * @param drcChecksumBytes    argument bytes covered by the cache key's checksum
 * @param recordTimeout       how long a record may take to arrive once its first byte has; a
 *                            connection still sending it after that is closed; zero disables
 * @param sendTimeout         how long replies may wait without the client taking a byte of them
 *                            (its receive window stays shut); the connection is then closed and
 *                            what its replies held released; zero disables
 */
public record RpcLimits(int maxRecordSize, int maxFragments, int maxInFlight, int maxConnections,
        int maxConnectionsPerAddress, Duration idleTimeout, int drcEntries, Duration drcMaxAge, int drcChecksumBytes,
        Duration recordTimeout, Duration sendTimeout) {

    public static final RpcLimits DEFAULT = new RpcLimits(4 * 1024 * 1024 + 64 * 1024, 1024, 64, 1024, 512,
            Duration.ofMinutes(6), 4096, Duration.ofMinutes(2), 256, Duration.ofMinutes(2),
            Duration.ofMinutes(2));

    public RpcLimits {
        if (maxRecordSize < 8 || maxFragments < 1 || maxInFlight < 1 || maxConnections < 1
                || maxConnectionsPerAddress < 1 || drcEntries < 0 || drcChecksumBytes < 0 || idleTimeout.isNegative()
                || drcMaxAge.isNegative() || recordTimeout.isNegative() || sendTimeout.isNegative()) {
            throw new IllegalArgumentException("bad RPC limits " + "(" + maxRecordSize + ", " + maxFragments + ", "
                    + maxInFlight + ", " + maxConnections + ", " + drcEntries + ", " + drcChecksumBytes + ")");
        }
    }

    public RpcLimits withMaxRecordSize(int v) {
        return new RpcLimits(v, maxFragments, maxInFlight, maxConnections, maxConnectionsPerAddress, idleTimeout,
                drcEntries, drcMaxAge, drcChecksumBytes, recordTimeout, sendTimeout);
    }

    public RpcLimits withMaxInFlight(int v) {
        return new RpcLimits(maxRecordSize, maxFragments, v, maxConnections, maxConnectionsPerAddress, idleTimeout,
                drcEntries, drcMaxAge, drcChecksumBytes, recordTimeout, sendTimeout);
    }

    public RpcLimits withMaxConnections(int v) {
        return new RpcLimits(maxRecordSize, maxFragments, maxInFlight, v, maxConnectionsPerAddress, idleTimeout,
                drcEntries, drcMaxAge, drcChecksumBytes, recordTimeout, sendTimeout);
    }

    public RpcLimits withMaxConnectionsPerAddress(int v) {
        return new RpcLimits(maxRecordSize, maxFragments, maxInFlight, maxConnections, v, idleTimeout, drcEntries,
                drcMaxAge, drcChecksumBytes, recordTimeout, sendTimeout);
    }

    public RpcLimits withRecordTimeout(Duration v) {
        return new RpcLimits(maxRecordSize, maxFragments, maxInFlight, maxConnections, maxConnectionsPerAddress,
                idleTimeout, drcEntries, drcMaxAge, drcChecksumBytes, v, sendTimeout);
    }

    public RpcLimits withSendTimeout(Duration v) {
        return new RpcLimits(maxRecordSize, maxFragments, maxInFlight, maxConnections, maxConnectionsPerAddress,
                idleTimeout, drcEntries, drcMaxAge, drcChecksumBytes, recordTimeout, v);
    }

    public RpcLimits withIdleTimeout(Duration v) {
        return new RpcLimits(maxRecordSize, maxFragments, maxInFlight, maxConnections, maxConnectionsPerAddress, v,
                drcEntries, drcMaxAge, drcChecksumBytes, recordTimeout, sendTimeout);
    }

    public RpcLimits withDrc(int entries, Duration maxAge) {
        return new RpcLimits(maxRecordSize, maxFragments, maxInFlight, maxConnections, maxConnectionsPerAddress,
                idleTimeout, entries, maxAge, drcChecksumBytes, recordTimeout, sendTimeout);
    }
}
