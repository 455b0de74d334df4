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
 * @param idleTimeout         a connection with nothing read or written and no call in flight for
 *                            this long is closed; zero disables
 * @param drcEntries          duplicate request cache entries (LRU); zero disables the cache
 * @param drcMaxAge           how long a cached reply may be replayed
 * @param drcChecksumBytes    argument bytes covered by the cache key's checksum
 */
public record RpcLimits(int maxRecordSize, int maxFragments, int maxInFlight, int maxConnections, Duration idleTimeout,
        int drcEntries, Duration drcMaxAge, int drcChecksumBytes) {

    public static final RpcLimits DEFAULT = new RpcLimits(4 * 1024 * 1024 + 64 * 1024, 1024, 64, 1024,
            Duration.ofMinutes(6), 4096, Duration.ofMinutes(2), 256);

    public RpcLimits {
        if (maxRecordSize < 8 || maxFragments < 1 || maxInFlight < 1 || maxConnections < 1 || drcEntries < 0
                || drcChecksumBytes < 0 || idleTimeout.isNegative() || drcMaxAge.isNegative()) {
            throw new IllegalArgumentException("bad RPC limits " + "(" + maxRecordSize + ", " + maxFragments + ", "
                    + maxInFlight + ", " + maxConnections + ", " + drcEntries + ", " + drcChecksumBytes + ")");
        }
    }

    public RpcLimits withMaxRecordSize(int v) {
        return new RpcLimits(v, maxFragments, maxInFlight, maxConnections, idleTimeout, drcEntries, drcMaxAge,
                drcChecksumBytes);
    }

    public RpcLimits withMaxInFlight(int v) {
        return new RpcLimits(maxRecordSize, maxFragments, v, maxConnections, idleTimeout, drcEntries, drcMaxAge,
                drcChecksumBytes);
    }

    public RpcLimits withMaxConnections(int v) {
        return new RpcLimits(maxRecordSize, maxFragments, maxInFlight, v, idleTimeout, drcEntries, drcMaxAge,
                drcChecksumBytes);
    }

    public RpcLimits withIdleTimeout(Duration v) {
        return new RpcLimits(maxRecordSize, maxFragments, maxInFlight, maxConnections, v, drcEntries, drcMaxAge,
                drcChecksumBytes);
    }

    public RpcLimits withDrc(int entries, Duration maxAge) {
        return new RpcLimits(maxRecordSize, maxFragments, maxInFlight, maxConnections, idleTimeout, entries, maxAge,
                drcChecksumBytes);
    }
}
