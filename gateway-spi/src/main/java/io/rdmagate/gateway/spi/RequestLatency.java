package io.rdmagate.gateway.spi;

import java.time.Duration;

/** The one set of latency histogram buckets every protocol's request timer uses, so series compare. */
public final class RequestLatency {
    /** 50 µs to 10 s, 16 buckets. */
    private static final Duration[] BUCKETS = {
        Duration.ofNanos(50_000), Duration.ofNanos(100_000), Duration.ofNanos(250_000), Duration.ofNanos(500_000),
        Duration.ofMillis(1), Duration.ofNanos(2_500_000), Duration.ofMillis(5), Duration.ofMillis(10),
        Duration.ofMillis(25), Duration.ofMillis(50), Duration.ofMillis(100), Duration.ofMillis(250),
        Duration.ofMillis(500), Duration.ofSeconds(1), Duration.ofMillis(2500), Duration.ofSeconds(10),
    };

    private RequestLatency() {
    }

    /** A copy: the array itself stays as it is. */
    public static Duration[] buckets() {
        return BUCKETS.clone();
    }
}
