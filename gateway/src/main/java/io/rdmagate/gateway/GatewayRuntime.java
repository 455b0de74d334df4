package io.rdmagate.gateway;

import io.rdmagate.gateway.config.ExportConfig;
import io.rdmagate.gateway.config.GatewayConfig;
import io.rdmagate.gateway.http.GatewayMetrics;
import io.rdmagate.gateway.http.Health;
import io.rdmagate.gateway.http.HttpEndpoint;
import io.rdmagate.vfs.memory.IoMemoryPool;
import io.rdmagate.vfs.memory.MemoryRegistrar;
import io.rdmagate.vfs.memory.PayloadCopies;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A running gateway. Start: plan ports, check the ports the present services will bind, open
 * the exports, create the I/O pool and metrics, start the protocol services, then the HTTP
 * endpoint. Stop, in order: the services (they stop accepting, then finish within the grace
 * period), the exports (their handle stores flush), the pool, the HTTP endpoint.
 */
public final class GatewayRuntime {
    private static final Logger log = LoggerFactory.getLogger(GatewayRuntime.class);

    private final GatewayConfig config;
    private final Instant started = Instant.now();
    private final List<ProtocolService> running = new ArrayList<>();
    private final List<BoundListener> listeners = new ArrayList<>();
    private OpenExports exports;
    private IoMemoryPool pool;
    private GatewayMetrics metrics;
    private HttpEndpoint http;
    private volatile String status = "starting";

    private GatewayRuntime(GatewayConfig config) {
        this.config = config;
    }

    /**
     * @param createIfMissing  which missing export directories to create (the default's ./data only)
     * @param protocolAddress      where protocol listeners bind (the wildcard in production)
     */
    public static GatewayRuntime start(GatewayConfig config, Predicate<ExportConfig> createIfMissing,
            List<ProtocolService> services, PortPlanner planner, InetAddress protocolAddress) throws StartException {
        GatewayRuntime g = new GatewayRuntime(config);
        try {
            g.startAll(createIfMissing, services, planner, protocolAddress);
            return g;
        } catch (StartException | RuntimeException e) {
            g.stop(Duration.ZERO);
            throw e;
        }
    }

    private void startAll(Predicate<ExportConfig> createIfMissing, List<ProtocolService> services, PortPlanner planner,
            InetAddress protocolAddress) throws StartException {
        log.info("rdmagate {} starting with {}", Version.get(), config.source());
        ListenerPlan plan = planner.plan(config.transports());
        logPlan(plan, services);
        Set<ListenerKind> claimed = EnumSet.noneOf(ListenerKind.class);
        services.forEach(s -> claimed.addAll(s.listeners()));
        plan.bindCheck(protocolAddress, claimed);

        exports = OpenExports.open(config, createIfMissing);
        pool = new IoMemoryPool(config.limits().pool(), MemoryRegistrar.NONE);
        PayloadCopies copies = new PayloadCopies();
        metrics = new GatewayMetrics();
        metrics.bindPool(pool);
        metrics.bindPayloadCopies(copies);
        GatewayContext context = new GatewayContext(config, exports.byName(), pool, metrics.registry(), copies, plan,
                protocolAddress);
        for (ProtocolService s : services) {
            List<BoundListener> bound;
            try {
                bound = s.start(context);
            } catch (Exception e) {
                throw new StartException("protocol service " + s.name() + " failed to start: " + e.getMessage(), e);
            }
            running.add(s);
            for (BoundListener l : bound) {
                listeners.add(l);
                log.info("listening: {}", l);
            }
        }
        InetSocketAddress httpAddress = new InetSocketAddress(config.http().address(), config.http().port());
        try {
            http = HttpEndpoint.start(httpAddress, metrics, this::health);
        } catch (IOException e) {
            throw new StartException("cannot listen on " + BoundListener.hostPort(httpAddress)
                    + " for http (set http.port in the configuration): " + e.getMessage(), e);
        }
        log.info("listening: http/tcp on {} (/health, /metrics)", BoundListener.hostPort(http.address()));
        status = "up";
        log.info("rdmagate started");
    }

    private void logPlan(ListenerPlan plan, List<ProtocolService> services) {
        if (services.isEmpty()) {
            log.info("protocol listeners in this build: none (NFS and SMB are not built yet); serving /health and /metrics");
        } else {
            log.info("protocol services in this build: {}",
                    services.stream().map(ProtocolService::name).collect(Collectors.joining(", ")));
        }
        for (PlannedPort p : plan.ports()) {
            log.info("port plan: {} {}{}", p.kind(), p.port(), p.note() == null ? "" : " (" + p.note() + ")");
        }
        log.info("port plan: rpcbind {}", plan.rpcbind().name().toLowerCase(java.util.Locale.ROOT));
        Set<ListenerKind> served = EnumSet.noneOf(ListenerKind.class);
        services.forEach(s -> served.addAll(s.listeners()));
        for (String c : ClientCommands.of(config, plan, served, "HOST")) {
            log.info("client: {}", c);
        }
    }

    /** The HTTP endpoint's bound address. */
    public InetSocketAddress httpAddress() {
        return http.address();
    }

    public Health health() {
        List<Health.Export> ex = new ArrayList<>();
        if (exports != null) {
            exports.byName().forEach((name, fs) -> ex.add(new Health.Export(name, exports.path(name).toString(),
                    fs.volumeId())));
        }
        List<String> ls = new ArrayList<>();
        listeners.forEach(l -> ls.add(l.toString()));
        if (http != null) {
            ls.add("http/tcp on " + BoundListener.hostPort(http.address()));
        }
        return new Health(status, Version.get(), Duration.between(started, Instant.now()), ex, ls);
    }

    /** The orderly stop; safe to call once after a failed start, too. */
    public void stop(Duration grace) {
        if (status.equals("up")) {
            log.info("stopping (grace {}s)", grace.toSeconds());
        }
        status = "stopping";
        for (ProtocolService s : running.reversed()) {
            try {
                s.stop(grace);
                log.info("protocol service {} stopped", s.name());
            } catch (RuntimeException e) {
                log.error("stopping protocol service {} failed", s.name(), e);
            }
        }
        running.clear();
        if (exports != null) {
            exports.close();
        }
        if (pool != null) {
            pool.close();
        }
        if (http != null) {
            http.close();
        }
        if (metrics != null) {
            metrics.close();
        }
    }
}
