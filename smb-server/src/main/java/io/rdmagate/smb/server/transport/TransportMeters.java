package io.rdmagate.smb.server.transport;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The meters of one SMB transport kind: {@code rdmagate_smb_bytes_{received,sent}_total},
 * {@code rdmagate_smb_connections} and {@code rdmagate_smb_connections_accepted_total}, each
 * tagged {@code transport="tcp"} or {@code "rdma"}.
 */
public final class TransportMeters {
    private final Counter received;
    private final Counter sent;
    private final AtomicInteger open = new AtomicInteger();
    private final Counter accepted;

    public TransportMeters(MeterRegistry registry, String kind) {
        received = Counter.builder("rdmagate.smb.bytes.received").description("SMB transport bytes received")
                .tag("transport", kind).register(registry);
        sent = Counter.builder("rdmagate.smb.bytes.sent").description("SMB transport bytes sent")
                .tag("transport", kind).register(registry);
        Gauge.builder("rdmagate.smb.connections", open, AtomicInteger::get).description("SMB connections open now")
                .tag("transport", kind).strongReference(true).register(registry);
        accepted = Counter.builder("rdmagate.smb.connections.accepted").description("SMB connections accepted")
                .tag("transport", kind).register(registry);
    }

    public void received(long bytes) {
        received.increment(bytes);
    }

    public void sent(long bytes) {
        sent.increment(bytes);
    }

    public void opened() {
        open.incrementAndGet();
        accepted.increment();
    }

    public void closed() {
        open.decrementAndGet();
    }

    /** Connections open now. */
    public int open() {
        return open.get();
    }
}
