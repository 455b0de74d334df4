package io.rdmagate.vfs.memory;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * Counts every payload byte the gateway copies, per transport ("tcp", "rdma", "smb-direct", ...),
 * so that zero-copy is a measured number. The gateway exports it as
 * {@code gateway_payload_copy_bytes_total{transport=...}}.
 */
public final class PayloadCopies {
    private final Map<String, LongAdder> byTransport = new ConcurrentHashMap<>();

    public void add(String transport, long bytes) {
        if (bytes > 0) {
            counter(transport).add(bytes);
        }
    }

    /** The live counter of one transport (created on first use). */
    public LongAdder counter(String transport) {
        return byTransport.computeIfAbsent(transport, t -> new LongAdder());
    }

    public long total() {
        long t = 0;
        for (LongAdder a : byTransport.values()) {
            t += a.sum();
        }
        return t;
    }

    /** A snapshot of the transports seen so far. */
    public Map<String, Long> snapshot() {
        Map<String, Long> m = new java.util.TreeMap<>();
        byTransport.forEach((k, v) -> m.put(k, v.sum()));
        return m;
    }
}
