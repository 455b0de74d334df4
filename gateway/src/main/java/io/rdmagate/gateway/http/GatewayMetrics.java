package io.rdmagate.gateway.http;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.binder.jvm.ClassLoaderMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.rdmagate.vfs.memory.IoMemoryPool;
import io.rdmagate.vfs.memory.PayloadCopies;
import java.util.List;
import java.util.concurrent.atomic.LongAdder;

/**
 * The gateway's Prometheus registry: JVM metrics (memory, GC, threads, class loading, processor,
 * uptime), the I/O pool's gauges, and the payload-copy counters that make zero-copy a number.
 */
public final class GatewayMetrics implements AutoCloseable {
    /**
     * Where payload copies are counted, each exported from the start at 0: "tcp" and "rdma" (the
     * transports), "udp" (an RPC reply sent as one datagram), "drc" (a reply kept in, or replayed
     * from, the duplicate request cache).
     */
    public static final String[] COPY_TRANSPORTS = {"tcp", "rdma", "udp", "drc"};

    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    private final JvmGcMetrics gc = new JvmGcMetrics();

    public GatewayMetrics() {
        new JvmMemoryMetrics().bindTo(registry);
        gc.bindTo(registry);
        new JvmThreadMetrics().bindTo(registry);
        new ClassLoaderMetrics().bindTo(registry);
        new ProcessorMetrics().bindTo(registry);
        new UptimeMetrics().bindTo(registry);
    }

    public PrometheusMeterRegistry registry() {
        return registry;
    }

    /**
     * The one state of export {@code export} ({@link io.rdmagate.vfs.state.FileStates}):
     * rdmagate_state_recalls_total{export,conflict} (operations of one protocol that waited for
     * another's clients to give up caching: read, write, namespace, lock),
     * rdmagate_state_recall_timeouts_total{export} (breaks that ended by the holder's timer, not by
     * the client), rdmagate_state_recall_wait_seconds_total{export},
     * rdmagate_state_sharing_violations_total{export} (operations an open of another protocol denied),
     * rdmagate_state_foreign_changes_total{export,conflict} (changes by processes other than the
     * gateway to files clients cache, which recalled their caching: write, namespace) and
     * rdmagate_state_watched_files{export} (files watched for such changes now).
     */
    public void bindStates(String export, io.rdmagate.vfs.state.FileStates states) {
        for (io.rdmagate.vfs.state.Conflict c : io.rdmagate.vfs.state.Conflict.values()) {
            FunctionCounter.builder("rdmagate.state.recalls", states, s -> s.recalls(c))
                    .tag("export", export).tag("conflict", c.name().toLowerCase(java.util.Locale.ROOT))
                    .description("operations that waited for another protocol's clients to give up caching")
                    .register(registry);
        }
        FunctionCounter.builder("rdmagate.state.recall.timeouts", states,
                io.rdmagate.vfs.state.FileStates::recallTimeouts).tag("export", export)
                .description("recalls that ended by the break timer, not by the client").register(registry);
        FunctionCounter.builder("rdmagate.state.recall.wait", states, s -> s.recallWaitNanos() / 1e9)
                .baseUnit("seconds").tag("export", export)
                .description("time operations waited for recalls").register(registry);
        FunctionCounter.builder("rdmagate.state.sharing.violations", states, io.rdmagate.vfs.state.FileStates::denied)
                .tag("export", export).description("operations an open of another protocol denied")
                .register(registry);
        for (io.rdmagate.vfs.state.Conflict c : List.of(io.rdmagate.vfs.state.Conflict.WRITE,
                io.rdmagate.vfs.state.Conflict.NAMESPACE)) {
            FunctionCounter.builder("rdmagate.state.foreign.changes", states, s -> s.foreignChanges(c))
                    .tag("export", export).tag("conflict", c.name().toLowerCase(java.util.Locale.ROOT))
                    .description("changes by other processes to cached files, recalled from the clients")
                    .register(registry);
        }
        Gauge.builder("rdmagate.state.watched.files", states, io.rdmagate.vfs.state.FileStates::cachedFiles)
                .tag("export", export).description("cached files watched for changes by other processes")
                .register(registry);
        Gauge.builder("rdmagate.state.opens", states, s -> s.shares().size())
                .tag("export", export).description("opens of every protocol in the share reservations (NFSv4, SMB)")
                .register(registry);
    }

    /** rdmagate_io_pool_{allocated,leased}_bytes, rdmagate_io_pool_slabs, rdmagate_io_pool_exhausted_total. */
    public void bindPool(IoMemoryPool pool) {
        Gauge.builder("rdmagate.io.pool.allocated", pool, IoMemoryPool::allocatedBytes).baseUnit("bytes")
                .description("I/O memory held in slabs").register(registry);
        Gauge.builder("rdmagate.io.pool.leased", pool, IoMemoryPool::leasedBytes).baseUnit("bytes")
                .description("I/O memory leased to requests now").register(registry);
        Gauge.builder("rdmagate.io.pool.slabs", pool, IoMemoryPool::slabCount)
                .description("slabs allocated").register(registry);
        FunctionCounter.builder("rdmagate.io.pool.exhausted", pool, IoMemoryPool::exhaustedCount)
                .description("leases that failed because the pool or a client stayed full").register(registry);
    }

    /**
     * rdmagate_rdma_registered_bytes and rdmagate_rdma_registered_regions{device=...}: what the one
     * protection domain holds registered for the pool (one region per slab, never one per I/O);
     * rdmagate_rdma_refused_handshakes_total for the soft-iWARP device.
     */
    public void bindRdma(io.rdmagate.rdma.RdmaResources rdma) {
        String device = rdma.device().name();
        Gauge.builder("rdmagate.rdma.registered", rdma, io.rdmagate.rdma.RdmaResources::registeredBytes)
                .baseUnit("bytes").tag("device", device).description("pool memory registered with the protection domain")
                .register(registry);
        Gauge.builder("rdmagate.rdma.registered.regions", rdma, io.rdmagate.rdma.RdmaResources::registeredSlabs)
                .tag("device", device).description("memory regions registered for the pool").register(registry);
        if (rdma.device() instanceof io.rdmagate.rdma.softiwarp.SoftIwarpDevice siw) {
            FunctionCounter.builder("rdmagate.rdma.refused.handshakes", siw,
                    io.rdmagate.rdma.softiwarp.SoftIwarpDevice::refusedHandshakes).tag("device", device)
                    .description("TCP connections closed unanswered to make room: too many MPA Requests were pending")
                    .register(registry);
            FunctionCounter.builder("rdmagate.rdma.access.violations", siw,
                    io.rdmagate.rdma.softiwarp.SoftIwarpDevice::accessViolations).tag("device", device)
                    .description("tagged accesses refused (bad STag, rights, bounds)").register(registry);
        }
    }

    /** gateway_payload_copy_bytes_total{transport=...}, for {@link #COPY_TRANSPORTS}. */
    public void bindPayloadCopies(PayloadCopies copies) {
        for (String t : COPY_TRANSPORTS) {
            FunctionCounter.builder("gateway.payload.copy", copies.counter(t), LongAdder::sum).baseUnit("bytes")
                    .tag("transport", t).description("payload bytes the gateway copied").register(registry);
        }
    }

    /** Prometheus text exposition format 0.0.4. */
    public String scrape() {
        return registry.scrape();
    }

    @Override
    public void close() {
        gc.close();
        registry.close();
    }
}
