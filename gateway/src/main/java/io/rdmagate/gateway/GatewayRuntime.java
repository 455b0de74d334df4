package io.rdmagate.gateway;

import io.rdmagate.gateway.http.GatewayMetrics;
import io.rdmagate.gateway.http.Health;
import io.rdmagate.gateway.http.HttpEndpoint;
import io.rdmagate.gateway.spi.BoundListener;
import io.rdmagate.gateway.spi.GatewayContext;
import io.rdmagate.gateway.spi.ListenerKind;
import io.rdmagate.gateway.spi.ListenerPlan;
import io.rdmagate.gateway.spi.PlannedPort;
import io.rdmagate.gateway.spi.ProtocolService;
import io.rdmagate.gateway.spi.StartException;
import io.rdmagate.gateway.spi.config.ExportConfig;
import io.rdmagate.gateway.spi.config.GatewayConfig;
import io.rdmagate.gateway.users.GeneratedSmbUser;
import io.rdmagate.gateway.users.HostAccounts;
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
 * the exports, open the RDMA device when an RDMA listener is planned, create the I/O pool
 * (registered with that device's protection domain) and metrics, start the protocol services,
 * then the HTTP endpoint. Stop, in order: the services (they stop accepting, then finish within
 * the grace period), the exports (their handle stores flush), the pool, the RDMA device, the
 * HTTP endpoint.
 */
public final class GatewayRuntime {
    private static final Logger log = LoggerFactory.getLogger(GatewayRuntime.class);

    /** The SMB domain the server names, and the generated credentials file carries. */
    static final String SMB_DOMAIN = "WORKGROUP";

    private GatewayConfig config;
    private GeneratedSmbUser.Outcome generatedUser;
    private final Instant started = Instant.now();
    private final List<ProtocolService> running = new ArrayList<>();
    /** The running services that bound a listener; only they are logged as stopped. */
    private final Set<ProtocolService> serving = new java.util.HashSet<>();
    private final List<BoundListener> listeners = new ArrayList<>();
    private OpenExports exports;
    private IoMemoryPool pool;
    private io.rdmagate.rdma.RdmaResources rdma;
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
        if (plan.port(ListenerKind.SMB).isPresent() && config.users().isEmpty()) {
            useGeneratedSmbUser();
        }
        logPlan(plan, services);
        Set<ListenerKind> claimed = EnumSet.noneOf(ListenerKind.class);
        services.forEach(s -> claimed.addAll(s.listeners()));
        plan.bindCheck(k -> GatewayContext.bindAddress(config.transports(), k, protocolAddress), claimed);

        exports = OpenExports.open(config, createIfMissing);
        if (plan.port(ListenerKind.NFS_RDMA).isPresent() || plan.port(ListenerKind.SMB_DIRECT).isPresent()) {
            // one device and one protection domain for every RDMA listener; the pool registers its
            // slabs there once, so any lease is a DMA source or sink for NFS/RDMA and SMB Direct alike
            rdma = RdmaDevices.open(config.rdma(), config.limits().sendTimeout());
            log.info("rdma: device {} ({} provider)", rdma.device().name(),
                    config.rdma().provider().name().toLowerCase(java.util.Locale.ROOT));
        }
        pool = new IoMemoryPool(config.limits().pool(), rdma != null ? rdma : MemoryRegistrar.NONE);
        PayloadCopies copies = new PayloadCopies();
        metrics = new GatewayMetrics();
        metrics.bindPool(pool);
        metrics.bindPayloadCopies(copies);
        exports.byName().forEach((name, fs) -> metrics.bindStates(name, fs.states()));
        if (rdma != null) {
            metrics.bindRdma(rdma);
        }
        GatewayContext context = new GatewayContext(config, exports.byName(), pool, metrics.registry(), copies, plan,
                protocolAddress, java.util.Optional.ofNullable(rdma));
        for (ProtocolService s : services) {
            List<BoundListener> bound;
            try {
                bound = s.start(context);
            } catch (Exception e) {
                throw new StartException("protocol service " + s.name() + " failed to start: " + e.getMessage(), e);
            }
            running.add(s);
            if (bound.isEmpty()) {
                log.info("protocol service {}: disabled in the configuration", s.name());
            } else {
                serving.add(s);
            }
            for (BoundListener l : bound) {
                listeners.add(l);
                log.info("listening: {}", l);
            }
        }
        InetSocketAddress httpAddress = new InetSocketAddress(config.http().address(), config.http().port());
        try {
            http = HttpEndpoint.start(config.http(), metrics, this::health);
        } catch (IOException e) {
            throw new StartException("cannot listen on " + BoundListener.hostPort(httpAddress)
                    + " for http (set http.port in the configuration): " + e.getMessage(), e);
        }
        log.info("listening: http/tcp on {} (/health, /metrics)", BoundListener.hostPort(http.address()));
        status = "up";
        log.info("rdmagate started");
    }

    /** No SMB users configured: serve the state directory's generated one (made now if missing). */
    private void useGeneratedSmbUser() throws StartException {
        try {
            generatedUser = GeneratedSmbUser.ensure(config.stateDir(), SMB_DOMAIN, HostAccounts.read());
        } catch (IOException | RuntimeException e) {
            throw new StartException("cannot write the generated SMB user into " + config.stateDir() + ": "
                    + e.getMessage() + " (or add a user: rdmagate user add NAME)", e);
        }
        var u = generatedUser.user();
        config = config.withUsers(List.of(u));
        log.info("SMB: no users configured, so user '{}' (uid {}, gid {}) {}; its password is in {} (mode 0600)",
                u.name(), u.uid(), u.gid(), generatedUser.created() ? "was created" : "is served",
                generatedUser.credentials().toAbsolutePath());
    }

    private void logPlan(ListenerPlan plan, List<ProtocolService> services) {
        if (services.isEmpty()) {
            log.info("protocol listeners in this build: none (NFS and SMB are not built yet); serving /health and /metrics");
        } else {
            log.info("protocol services in this build: {}",
                    services.stream().map(ProtocolService::name).collect(Collectors.joining(", ")));
        }
        Set<ListenerKind> served = EnumSet.noneOf(ListenerKind.class);
        services.forEach(s -> served.addAll(s.listeners()));
        for (PlannedPort p : plan.ports()) {
            if (served.contains(p.kind())) {
                log.info("port plan: {} {}{}", p.kind(), p.port(), p.note() == null ? "" : " (" + p.note() + ")");
            }
        }
        if (served.contains(ListenerKind.NFS) && plan.port(ListenerKind.NFS).isPresent()) {
            log.info("port plan: rpcbind {}", plan.rpcbind().name().toLowerCase(java.util.Locale.ROOT));
        }
        var credentials = java.util.Optional.ofNullable(generatedUser).map(GeneratedSmbUser.Outcome::credentials);
        for (String c : ClientCommands.of(config, plan, served, "HOST", credentials)) {
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
                    fs.volumeId(), fs.states().foreignChangesStatus())));
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
                if (serving.remove(s)) {
                    log.info("protocol service {} stopped", s.name());
                }
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
        if (rdma != null) {
            rdma.close();
        }
        if (http != null) {
            http.close();
        }
        if (metrics != null) {
            metrics.close();
        }
    }
}
