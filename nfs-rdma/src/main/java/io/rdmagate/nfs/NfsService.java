package io.rdmagate.nfs;

import io.rdmagate.gateway.spi.BoundListener;
import io.rdmagate.gateway.spi.GatewayContext;
import io.rdmagate.gateway.spi.ListenerKind;
import io.rdmagate.gateway.spi.PlannedPort;
import io.rdmagate.gateway.spi.ProtocolService;
import io.rdmagate.gateway.spi.StartException;
import io.rdmagate.gateway.spi.config.ClientRule;
import io.rdmagate.gateway.spi.config.ExportConfig;
import io.rdmagate.gateway.spi.config.KerberosConfig;
import io.rdmagate.gateway.spi.security.KerberosAcceptor;
import io.rdmagate.gateway.spi.security.KerberosException;
import io.rdmagate.gateway.spi.security.KerberosIdentities;
import io.rdmagate.nfs.nlm.NlmService;
import io.rdmagate.oncrpc.server.RpcLimits;
import io.rdmagate.rpcrdma.server.RpcRdmaOptions;
import io.rdmagate.vfs.VirtualFileSystem;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * The gateway's NFS protocol service (found with ServiceLoader): NFSv3, MOUNT, NLM and NSM on the
 * planned ports, advertised through rpcbind as the plan says (the embedded rpcbind on its planned
 * port, the host's, or none). With NFS disabled in the configuration the plan has no NFS port and
 * the service binds nothing.
 */
public final class NfsService implements ProtocolService {
    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(NfsService.class);
    private NfsServer server;

    @Override
    public String name() {
        return "nfs";
    }

    @Override
    public Set<ListenerKind> listeners() {
        return Set.of(ListenerKind.RPCBIND, ListenerKind.NFS, ListenerKind.NFS_RDMA, ListenerKind.MOUNT, ListenerKind.NLM,
                ListenerKind.NSM);
    }

    @Override
    public List<BoundListener> start(GatewayContext context) throws Exception {
        var plan = context.ports();
        if (plan.port(ListenerKind.NFS).isEmpty()) {
            return List.of();
        }
        List<NfsExport> exports = new ArrayList<>();
        int id = 0;
        for (ExportConfig e : context.config().exports()) {
            VirtualFileSystem fs = context.exports().get(e.name());
            if (fs != null) {
                exports.add(new NfsExport(id, e, fs));
            }
            id++;
        }
        NfsServer.Rpcbind mode = switch (plan.rpcbind()) {
            case EMBEDDED -> NfsServer.Rpcbind.EMBEDDED;
            case SYSTEM -> NfsServer.Rpcbind.SYSTEM;
            case OFF, AUTO -> NfsServer.Rpcbind.OFF;
        };
        var limits = context.config().limits();
        NfsServer.Builder builder = NfsServer.builder();
        int rdmaPort = port(plan, ListenerKind.NFS_RDMA);
        if (rdmaPort >= 0) {
            // RPC-over-RDMA on the gateway's RDMA device, with READ/WRITE data in the one pool it registered
            var rdma = context.rdma().orElseThrow(() -> new IllegalStateException(
                    "NFS over RDMA is planned on port " + rdmaPort + " but the gateway opened no RDMA device"));
            builder.rdma(rdma, rdmaPort, RpcRdmaOptions.DEFAULT.withMaxConnections(context.config().rdma().maxConnections()));
        }
        var nfsConfig = context.config().transports().nfs();
        if (nfsConfig.serves4()) {
            var v4 = nfsConfig.v4();
            int maxMinor = nfsConfig.serves42() ? io.rdmagate.nfs.v4.Nfs4.MINOR_VERSION_2
                    : nfsConfig.serves41() ? io.rdmagate.nfs.v4.Nfs4.MINOR_VERSION : io.rdmagate.nfs.v4.Nfs4.MINOR_VERSION_0;
            int minMinor = nfsConfig.serves40() ? io.rdmagate.nfs.v4.Nfs4.MINOR_VERSION_0
                    : io.rdmagate.nfs.v4.Nfs4.MINOR_VERSION;
            builder.nfs4(new io.rdmagate.nfs.v4.Nfs4Server.Options(v4.leaseTime(), v4.maxClients(), v4.maxSessions(),
                    v4.maxSlots(), v4.maxOperations(), v4.maxCachedReply(), v4.graceTime(), v4.maxDelegations(),
                    v4.idmapDomain(), maxMinor, v4.maxCopy(), minMinor),
                    context.config().stateDir().resolve("nfs4").resolve("clients"));
        }
        server = builder
                .exports(new NfsExports(exports))
                .pool(context.pool())
                .payloadCopies(context.payloadCopies())
                .metrics(context.metrics())
                .maxIoSize(limits.maxIoSize())
                .limits(RpcLimits.DEFAULT.withMaxRecordSize(limits.maxRecordSize())
                        .withMaxConnections(limits.maxConnections())
                        .withMaxConnectionsPerAddress(limits.maxConnectionsPerAddress())
                        .withRecordTimeout(limits.recordTimeout())
                        .withSendTimeout(limits.sendTimeout()))
                .address(context.bindAddress(ListenerKind.NFS))
                .ports(port(plan, ListenerKind.NFS), port(plan, ListenerKind.MOUNT), port(plan, ListenerKind.NLM),
                        port(plan, ListenerKind.NSM))
                .rpcbind(mode, Math.max(0, port(plan, ListenerKind.RPCBIND)))
                .rpcbindMappings(context.config().transports().rpcbind().maxMappings())
                .nlm(NlmService::new)
                .gss(gss(context))
                .start();
        var rdmaServer = server.rdmaServer();
        if (rdmaServer != null) {
            bindRdmaMetrics(context, rdmaServer);
        }
        if (server.nfs4() != null) {
            bindNfs4Metrics(context, server.nfs4());
        }
        List<BoundListener> out = new ArrayList<>();
        for (NfsServer.Listener l : server.listeners()) {
            boolean rdma = l.protocol().equals("nfs-rdma");
            out.add(new BoundListener(rdma ? "nfs" : l.protocol(), rdma ? "rdma (" + rdmaKind(context) + ")" : "tcp",
                    l.address()));
        }
        return out;
    }

    /**
     * RPCSEC_GSS with Kerberos when a client rule of some export allows sec krb5: the acceptor of
     * nfs/FQDN@REALM (security.kerberos.nfsPrincipal), checked now so that a keytab without its key
     * stops the start with the fix; principals map as for SMB (idmap, the users, NSS).
     */
    private static io.rdmagate.oncrpc.gss.RpcSecGss gss(GatewayContext context) throws StartException {
        var config = context.config();
        boolean wanted = config.exports().stream().flatMap(e -> e.clients().stream())
                .anyMatch(r -> r.sec().stream().anyMatch(ClientRule.Sec::kerberos));
        KerberosConfig k = config.security().kerberos();
        if (!wanted || k == null) {
            return null;
        }
        try {
            KerberosAcceptor acceptor = KerberosAcceptor.forService(k, "nfs", k.nfsPrincipal());
            LOG.info("NFS Kerberos (RPCSEC_GSS): accepting tickets for {} with the keys of {}", acceptor.principal(),
                    k.keytab());
            return new io.rdmagate.oncrpc.gss.RpcSecGss(acceptor, KerberosIdentities.withUsers(k, config.users()),
                    k.maxContexts(), k.contextIdle());
        } catch (KerberosException e) {
            throw new StartException("NFS Kerberos: " + e.getMessage(), e);
        }
    }

    /**
     * rdmagate_nfs4_clients, rdmagate_nfs4_sessions, rdmagate_nfs4_open_states, rdmagate_nfs4_grace (1 while
     * it runs), rdmagate_nfs4_back_channels{state="up"|"down"} and
     * rdmagate_nfs4_callbacks_total{call="CB_NULL"|"CB_NOTIFY_LOCK"|"CB_RECALL"|"CB_RECALL_ANY",result="ok"|"failed"},
     * rdmagate_nfs4_delegations{type="read"|"write"} (held now) and rdmagate_nfs4_delegation_events_total{event="granted"|
     * "recalled"|"returned"|"revoked"|"recall_any"}, rdmagate_nfs4_server_side_copy_bytes_total{op="COPY"|"CLONE"}.
     */
    private static void bindNfs4Metrics(GatewayContext context, io.rdmagate.nfs.v4.Nfs4Server s) {
        var r = context.metrics();
        var state = s.state();
        io.micrometer.core.instrument.Gauge.builder("rdmagate.nfs4.clients", state,
                io.rdmagate.nfs.v4.state.Nfs4State::clientCount).description("NFSv4.1 client records").register(r);
        io.micrometer.core.instrument.Gauge.builder("rdmagate.nfs4.sessions", state,
                io.rdmagate.nfs.v4.state.Nfs4State::sessionCount).description("NFSv4.1 sessions").register(r);
        io.micrometer.core.instrument.Gauge.builder("rdmagate.nfs4.open.states", state,
                io.rdmagate.nfs.v4.state.Nfs4State::openCount).description("NFSv4.1 opens (open stateids)").register(r);
        io.micrometer.core.instrument.Gauge.builder("rdmagate.nfs4.grace", s, x -> x.state().inGrace(x.now()) ? 1 : 0)
                .description("1 while the grace period after a restart runs").register(r);
        for (boolean down : new boolean[] {false, true}) {
            io.micrometer.core.instrument.Gauge.builder("rdmagate.nfs4.back.channels", state, x -> x.backChannels(down))
                    .tag("state", down ? "down" : "up")
                    .description("NFSv4.1 back channels whose CB_NULL probe was answered (up) or that are down")
                    .register(r);
        }
        var delegations = state.delegations();
        io.micrometer.core.instrument.Gauge.builder("rdmagate.nfs4.delegations", delegations, x -> x.held() - x.writesHeld())
                .tag("type", "read").description("NFSv4.1 delegations held now").register(r);
        io.micrometer.core.instrument.Gauge.builder("rdmagate.nfs4.delegations", delegations,
                io.rdmagate.nfs.v4.state.Delegations::writesHeld).tag("type", "write")
                .description("NFSv4.1 delegations held now").register(r);
        java.util.Map<String, java.util.function.ToDoubleFunction<io.rdmagate.nfs.v4.state.Delegations>> events =
                java.util.Map.of("granted", x -> x.granted(), "recalled", x -> x.recalls(), "returned", x -> x.returns(),
                        "revoked", x -> x.revocations(), "recall_any", x -> x.recallAnys());
        events.forEach((event, f) -> io.micrometer.core.instrument.FunctionCounter
                .builder("rdmagate.nfs4.delegation.events", delegations, f).tag("event", event)
                .description("NFSv4.1 delegations handed out, recalled (CB_RECALL), returned (DELEGRETURN), revoked")
                .register(r));
        io.micrometer.core.instrument.FunctionCounter.builder("rdmagate.nfs4.server.side.copy.bytes", s,
                x -> x.copiedBytes().sum()).tag("op", "COPY")
                .description("bytes NFSv4.2 COPY had the backend copy: payload that never crossed the wire").register(r);
        io.micrometer.core.instrument.FunctionCounter.builder("rdmagate.nfs4.server.side.copy.bytes", s,
                x -> x.clonedBytes().sum()).tag("op", "CLONE")
                .description("bytes NFSv4.2 CLONE made share storage").register(r);
        for (String call : new String[] {"CB_NULL", "CB_NOTIFY_LOCK", "CB_RECALL", "CB_RECALL_ANY"}) {
            for (boolean ok : new boolean[] {true, false}) {
                io.micrometer.core.instrument.FunctionCounter.builder("rdmagate.nfs4.callbacks", call,
                        x -> io.rdmagate.nfs.v4.callback.Callbacks.sent(x, ok)).tag("call", call)
                        .tag("result", ok ? "ok" : "failed")
                        .description("calls to NFSv4.1 clients' callback services, answered (ok) or not").register(r);
            }
        }
    }

    /**
     * rdmagate_rdma_queue_pairs, rdmagate_rdma_credits_in_use, rdmagate_rdma_send_queue_waiting_chains and
     * rdmagate_rdma_rejected_connections_total, rdmagate_rdma_evicted_connections_total, with listener="nfs".
     */
    private static void bindRdmaMetrics(GatewayContext context, io.rdmagate.rpcrdma.server.RpcRdmaServer s) {
        var r = context.metrics();
        io.micrometer.core.instrument.Gauge.builder("rdmagate.rdma.queue.pairs", s,
                io.rdmagate.rpcrdma.server.RpcRdmaServer::connectionCount).tag("listener", "nfs")
                .description("RDMA connections (queue pairs) open now").register(r);
        io.micrometer.core.instrument.Gauge.builder("rdmagate.rdma.credits.in.use", s,
                io.rdmagate.rpcrdma.server.RpcRdmaServer::creditsInUse).tag("listener", "nfs")
                .description("RPC-over-RDMA credits held by calls not yet answered").register(r);
        io.micrometer.core.instrument.Gauge.builder("rdmagate.rdma.send.queue.waiting.chains", s,
                io.rdmagate.rpcrdma.server.RpcRdmaServer::chainsWaiting).tag("listener", "nfs")
                .description("work request chains waiting for Send Queue room").register(r);
        io.micrometer.core.instrument.FunctionCounter.builder("rdmagate.rdma.rejected.connections", s,
                io.rdmagate.rpcrdma.server.RpcRdmaServer::refusedConnections).tag("listener", "nfs")
                .description("connects rejected because rdma.maxConnections were open, all busy").register(r);
        io.micrometer.core.instrument.FunctionCounter.builder("rdmagate.rdma.evicted.connections", s,
                io.rdmagate.rpcrdma.server.RpcRdmaServer::evictedConnections).tag("listener", "nfs")
                .description("idle connections closed to make room at rdma.maxConnections").register(r);
    }

    private static String rdmaKind(GatewayContext context) {
        return context.rdma().map(r -> r.device() instanceof io.rdmagate.rdma.softiwarp.SoftIwarpDevice ? "soft iWARP"
                : r.device().name()).orElse("none");
    }

    private static int port(io.rdmagate.gateway.spi.ListenerPlan plan, ListenerKind kind) {
        return plan.port(kind).map(PlannedPort::port).orElse(-1);
    }

    @Override
    public void stop(Duration grace) {
        if (server != null) {
            server.stop(grace);
            server = null;
        }
    }
}
