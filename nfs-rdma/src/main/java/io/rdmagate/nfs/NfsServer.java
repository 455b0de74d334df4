package io.rdmagate.nfs;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.rdmagate.nfs.mount.Mount;
import io.rdmagate.nfs.mount.MountProgram;
import io.rdmagate.nfs.v3.Nfs3;
import io.rdmagate.nfs.v3.Nfs3Program;
import io.rdmagate.oncrpc.rpcbind.PortAdvertiser;
import io.rdmagate.oncrpc.rpcbind.RpcbindClient;
import io.rdmagate.oncrpc.rpcbind.RpcbindRegistry;
import io.rdmagate.oncrpc.rpcbind.RpcbindServer;
import io.rdmagate.oncrpc.server.RpcLimits;
import io.rdmagate.oncrpc.server.RpcProgram;
import io.rdmagate.oncrpc.server.RpcServer;
import io.rdmagate.vfs.memory.IoMemoryPool;
import io.rdmagate.vfs.memory.PayloadCopies;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * The NFSv3 server's listeners: NFS, MOUNT, NLM and NSM each on its own RPC server and port, and
 * the embedded rpcbind when asked for, with every program advertised through rpcbind. Usable on
 * its own (tests, benchmarks) or through {@link NfsService} in the gateway.
 *
 * <p>Start order: rpcbind first (so registrations have somewhere to go), then NFS, MOUNT, NLM,
 * NSM, each advertised as soon as it listens. Stop order is the reverse: withdraw the
 * advertisements, stop accepting and drain each server within the grace period, then rpcbind.
 */
public final class NfsServer implements AutoCloseable {
    /** How the programs are made findable (the gateway's resolved rpcbind mode). */
    public enum Rpcbind { EMBEDDED, SYSTEM, OFF }

    /** A bound listener: protocol name ("nfs", "mount", "nlm", "nsm", "rpcbind") and address. */
    public record Listener(String protocol, InetSocketAddress address) {
    }

    private final List<RpcServer> servers = new ArrayList<>();
    private final List<Listener> listeners = new ArrayList<>();
    private RpcbindServer rpcbind;
    private PortAdvertiser advertiser;
    private Nlm nlm;
    private NfsMetrics metrics;
    private io.rdmagate.rpcrdma.server.RpcRdmaServer rdma;
    private io.rdmagate.nfs.v4.Nfs4Server nfs4;

    /** The NLM and NSM programs, built by the nlm package around the same exports. */
    public interface Nlm extends AutoCloseable {
        RpcProgram nlm();

        RpcProgram nsm();

        @Override
        void close();
    }

    private NfsServer() {
    }

    public static Builder builder() {
        return new Builder();
    }

    public List<Listener> listeners() {
        return List.copyOf(listeners);
    }

    /** The port of a protocol's listener, or -1. */
    public int port(String protocol) {
        return listeners.stream().filter(l -> l.protocol().equals(protocol)).mapToInt(l -> l.address().getPort())
                .findFirst().orElse(-1);
    }

    public void stop(Duration grace) {
        if (advertiser != null) {
            advertiser.close();
            advertiser = null;
        }
        if (rdma != null) {
            rdma.stop(grace);
            rdma = null;
        }
        for (RpcServer s : servers.reversed()) {
            s.stop(grace);
        }
        servers.clear();
        if (nlm != null) {
            nlm.close();
            nlm = null;
        }
        if (nfs4 != null) {
            nfs4.close();
        }
        if (rpcbind != null) {
            rpcbind.stop(grace);
            rpcbind = null;
        }
    }

    @Override
    public void close() {
        stop(Duration.ofSeconds(2));
    }

    public static final class Builder {
        private NfsExports exports;
        private IoMemoryPool pool;
        private PayloadCopies copies = new PayloadCopies();
        private MeterRegistry registry = new SimpleMeterRegistry();
        private int maxIoSize = 1 << 20;
        private io.rdmagate.nfs.v4.Nfs4Server.Options nfs4;
        private java.nio.file.Path nfs4Recovery;
        private RpcLimits limits = RpcLimits.DEFAULT;
        private InetAddress address = InetAddress.getLoopbackAddress();
        private int nfsPort;
        private int mountPort;
        private int nlmPort = -1;
        private int nsmPort = -1;
        private Rpcbind rpcbindMode = Rpcbind.OFF;
        private int rpcbindPort;
        private int rpcbindMappings = RpcbindRegistry.DEFAULT_MAX_MAPPINGS;
        private Function<NfsExports, Nlm> nlmFactory;
        private io.rdmagate.rdma.RdmaDevice rdmaDevice;
        private io.rdmagate.rdma.RdmaResources rdmaResources;
        private int rdmaPort = -1;
        private io.rdmagate.rpcrdma.server.RpcRdmaOptions rdmaOptions =
                io.rdmagate.rpcrdma.server.RpcRdmaOptions.DEFAULT;
        private io.rdmagate.vfs.memory.PoolLimits rdmaPool = io.rdmagate.vfs.memory.PoolLimits.DEFAULT;
        private io.rdmagate.oncrpc.gss.RpcSecGss gss;

        private Builder() {
        }

        /** RPCSEC_GSS (Kerberos) for NFS and MOUNT over TCP and RDMA; null (the default) for AUTH_SYS only. */
        public Builder gss(io.rdmagate.oncrpc.gss.RpcSecGss g) {
            this.gss = g;
            return this;
        }

        public Builder exports(NfsExports e) {
            this.exports = e;
            return this;
        }

        public Builder pool(IoMemoryPool p) {
            this.pool = p;
            return this;
        }

        public Builder payloadCopies(PayloadCopies c) {
            this.copies = c;
            return this;
        }

        /** Where the NFS meters are registered ({@link NfsMetrics}); a registry of the server's own by default. */
        public Builder metrics(MeterRegistry r) {
            this.registry = r;
            return this;
        }

        public Builder maxIoSize(int n) {
            this.maxIoSize = n;
            return this;
        }

        /**
         * Also serves NFSv4.1 (RFC 8881) beside NFSv3, on the NFS port and over RDMA, with these
         * options; null (the default) serves NFSv3 only.
         */
        public Builder nfs4(io.rdmagate.nfs.v4.Nfs4Server.Options options) {
            return nfs4(options, null);
        }

        /** As {@link #nfs4(io.rdmagate.nfs.v4.Nfs4Server.Options)}, recording its clients in {@code recoveryFile} for reclaim after a restart. */
        public Builder nfs4(io.rdmagate.nfs.v4.Nfs4Server.Options options, java.nio.file.Path recoveryFile) {
            this.nfs4 = options;
            this.nfs4Recovery = recoveryFile;
            return this;
        }

        public Builder limits(RpcLimits l) {
            this.limits = l;
            return this;
        }

        public Builder address(InetAddress a) {
            this.address = a;
            return this;
        }

        /** Ports; 0 takes any free port, -1 (NLM, NSM) serves none. */
        public Builder ports(int nfs, int mount, int nlm, int nsm) {
            this.nfsPort = nfs;
            this.mountPort = mount;
            this.nlmPort = nlm;
            this.nsmPort = nsm;
            return this;
        }

        public Builder rpcbind(Rpcbind mode, int port) {
            this.rpcbindMode = mode;
            this.rpcbindPort = port;
            return this;
        }

        /** The registrations the embedded rpcbind keeps (RpcbindRegistry). */
        public Builder rpcbindMappings(int max) {
            this.rpcbindMappings = max;
            return this;
        }

        /** Serves NLM and NSM with what the factory builds (see io.rdmagate.nfs.nlm.NlmService). */
        public Builder nlm(Function<NfsExports, Nlm> factory) {
            this.nlmFactory = factory;
            return this;
        }

        /**
         * Also serves NFSv3 over RPC-over-RDMA (RFC 8267) on {@code device} at {@code port} (0: any,
         * -1: none); READ and WRITE data move by RDMA Write and Read from a pool registered with
         * that device.
         */
        public Builder rdma(io.rdmagate.rdma.RdmaDevice device, int port,
                io.rdmagate.rpcrdma.server.RpcRdmaOptions options, io.rdmagate.vfs.memory.PoolLimits pool) {
            this.rdmaDevice = device;
            this.rdmaPort = port;
            this.rdmaOptions = options;
            this.rdmaPool = pool;
            return this;
        }

        /**
         * Also serves NFSv3 over RPC-over-RDMA (RFC 8267) on the process's RDMA domain at {@code port}
         * (0: any, -1: none); READ and WRITE data move by RDMA Write and Read from {@link #pool}, which
         * must be the pool registered with {@code rdma}.
         */
        public Builder rdma(io.rdmagate.rdma.RdmaResources rdma, int port,
                io.rdmagate.rpcrdma.server.RpcRdmaOptions options) {
            this.rdmaResources = rdma;
            this.rdmaDevice = rdma.device();
            this.rdmaPort = port;
            this.rdmaOptions = options;
            return this;
        }

        public NfsServer start() throws IOException {
            NfsServer s = new NfsServer();
            try {
                s.startAll(this);
                return s;
            } catch (IOException | RuntimeException e) {
                s.stop(Duration.ZERO);
                throw e;
            }
        }
    }

    private void startAll(Builder b) throws IOException {
        switch (b.rpcbindMode) {
            case EMBEDDED -> {
                rpcbind = RpcbindServer.start(b.address, b.rpcbindPort, new RpcbindRegistry(b.rpcbindMappings), null,
                        b.limits);
                listeners.add(new Listener("rpcbind", rpcbind.tcpAddress()));
                advertiser = PortAdvertiser.embedded(rpcbind.registry());
            }
            case SYSTEM -> advertiser = PortAdvertiser.system(RpcbindClient.system());
            case OFF -> advertiser = PortAdvertiser.none();
        }
        metrics = new NfsMetrics(b.registry, b.exports.denials());
        ConnectionAccounts accounts = new ConnectionAccounts(b.pool);
        if (b.nfs4 != null) {
            nfs4 = new io.rdmagate.nfs.v4.Nfs4Server(b.exports, b.nfs4, b.maxIoSize, b.nfs4Recovery == null
                    ? io.rdmagate.nfs.v4.state.ClientRecovery.NONE : io.rdmagate.nfs.v4.state.ClientRecovery.at(b.nfs4Recovery));
        }
        RpcServer nfs = serve(b, "nfs", nfsProgram(b, accounts), b.nfsPort, false);
        advertiser.advertise(Nfs3.PROGRAM, Nfs3.VERSION, "tcp", nfs.port());
        if (nfs4 != null) {
            advertiser.advertise(Nfs3.PROGRAM, io.rdmagate.nfs.v4.Nfs4.VERSION, "tcp", nfs.port());
        }
        if (b.rdmaDevice != null && b.rdmaPort >= 0) {
            serveRdma(b);
        }
        RpcServer mount = serve(b, "mount", new MountProgram(b.exports), b.mountPort, true);
        for (int v = Mount.LOW_VERSION; v <= Mount.VERSION; v++) {
            advertiser.advertise(Mount.PROGRAM, v, "tcp", mount.port());
            advertiser.advertise(Mount.PROGRAM, v, "udp", mount.port());
        }
        if (b.nlmFactory != null && b.nlmPort >= 0 && b.nsmPort >= 0) {
            nlm = b.nlmFactory.apply(b.exports);
            RpcServer n = serve(b, "nlm", nlm.nlm(), b.nlmPort, true);
            for (int v = nlm.nlm().lowVersion(); v <= nlm.nlm().highVersion(); v++) {
                advertiser.advertise(nlm.nlm().program(), v, "tcp", n.port());
                advertiser.advertise(nlm.nlm().program(), v, "udp", n.port());
            }
            RpcServer m = serve(b, "nsm", nlm.nsm(), b.nsmPort, true);
            advertiser.advertise(nlm.nsm().program(), 1, "tcp", m.port());
            advertiser.advertise(nlm.nsm().program(), 1, "udp", m.port());
        }
    }

    /**
     * NFSv3 on RPC-over-RDMA: its own dispatcher and duplicate request cache, and a program whose
     * READ payloads are leased from the RDMA server's registered pool (the process's one pool when
     * the gateway owns the domain), so SendTo writes them with no registration per I/O. The NFS upper-layer binding (RFC 8267 §2) is the program's payload
     * marking: READ data and READLINK text go through XdrEncoder.writePayload, WRITE data arrives
     * as the read chunk at its position.
     */
    private void serveRdma(Builder b) throws IOException {
        RpcLimits l = b.limits;
        io.rdmagate.oncrpc.server.DuplicateRequestCache drc = l.drcEntries() == 0 ? null
                : new io.rdmagate.oncrpc.server.DuplicateRequestCache(l.drcEntries(), l.drcMaxAge(),
                        l.drcChecksumBytes(), b.copies);
        io.rdmagate.oncrpc.server.RpcDispatcher d = new io.rdmagate.oncrpc.server.RpcDispatcher(drc,
                io.netty.buffer.ByteBufAllocator.DEFAULT, metrics.listener("nfs")).gss(b.gss);
        io.rdmagate.rpcrdma.server.RpcRdmaServer s = b.rdmaResources != null
                ? io.rdmagate.rpcrdma.server.RpcRdmaServer.create(b.rdmaResources, b.pool, d, b.rdmaOptions)
                : io.rdmagate.rpcrdma.server.RpcRdmaServer.create(b.rdmaDevice, d, b.rdmaOptions, b.rdmaPool);
        d.register(nfsProgram(b, new ConnectionAccounts(s.pool())));
        try {
            s.listen(new InetSocketAddress(b.address, b.rdmaPort));
        } catch (io.rdmagate.rdma.RdmaException e) {
            throw new IOException("NFS over RDMA cannot listen on port " + b.rdmaPort, e);
        }
        rdma = s;
        listeners.add(new Listener("nfs-rdma", s.localAddress()));
    }

    /** NFSv3, and NFSv4.1 when it is served, over one transport's pool account. */
    private RpcProgram nfsProgram(Builder b, ConnectionAccounts accounts) {
        Nfs3Program v3 = new Nfs3Program(b.exports, accounts, b.copies, b.maxIoSize);
        return nfs4 == null ? v3
                : io.rdmagate.oncrpc.server.RpcVersions.of(v3, new io.rdmagate.nfs.v4.Nfs4Program(nfs4, accounts, b.copies));
    }

    /** The NFSv4.1 server every transport shares, or null when NFSv4.1 is not served. */
    public io.rdmagate.nfs.v4.Nfs4Server nfs4() {
        return nfs4;
    }

    /** The RPC-over-RDMA server, or null when not serving RDMA. */
    public io.rdmagate.rpcrdma.server.RpcRdmaServer rdmaServer() {
        return rdma;
    }

    private RpcServer serve(Builder b, String protocol, RpcProgram program, int port, boolean udp) throws IOException {
        RpcServer s = RpcServer.builder().program(program).limits(b.limits).payloadCopies(b.copies).udp(udp)
                .observer(metrics.listener(protocol)).gss(b.gss).bind(b.address, port);
        servers.add(s);
        listeners.add(new Listener(protocol, s.tcpAddress()));
        return s;
    }
}
