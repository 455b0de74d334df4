package io.rdmagate.rdma;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

/**
 * At most one warning per interval, so that a flood of connects (each refused, or each closing a
 * quiet connection) does not become a flood of log lines. Shared by the RDMA listeners' upper
 * layers (RPC-over-RDMA, SMB Direct) and the TCP listeners' {@code ConnectionLimiter}; thread-safe.
 */
public final class WarningThrottle {
    private final long intervalNanos;
    private final AtomicLong last;

    public WarningThrottle(Duration interval) {
        this.intervalNanos = interval.toNanos();
        this.last = new AtomicLong(System.nanoTime() - intervalNanos - 1);
    }

    /** Whether a warning may be logged now; true at most once per interval. */
    public boolean due() {
        long now = System.nanoTime();
        long before = last.get();
        return now - before > intervalNanos && last.compareAndSet(before, now);
    }
}
