package io.rdmagate.nfs;

import io.rdmagate.gateway.spi.config.AddressMatch;
import io.rdmagate.gateway.spi.config.ClientRule;
import io.rdmagate.gateway.spi.config.ExportConfig;
import io.rdmagate.nfs.nlm.NlmService;
import io.rdmagate.oncrpc.rpc.AuthSys;
import io.rdmagate.vfs.VirtualFileSystem;
import io.rdmagate.vfs.memory.IoMemoryPool;
import io.rdmagate.vfs.memory.MemoryRegistrar;
import io.rdmagate.vfs.memory.PayloadCopies;
import io.rdmagate.vfs.memory.PoolLimits;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.List;
import java.util.function.Function;

/** An NFS server on the loopback over given exports, every port chosen by the kernel. */
final class NfsFixture implements AutoCloseable {
    static final InetAddress LOOPBACK = InetAddress.getLoopbackAddress();
    static final AuthSys ROOT = new AuthSys(1, "client", 0, 0, new int[0]);
    static final AuthSys ALICE = new AuthSys(1, "client", 1000, 1000, new int[] {1000});

    final IoMemoryPool pool = new IoMemoryPool(PoolLimits.DEFAULT, MemoryRegistrar.NONE);
    final PayloadCopies copies = new PayloadCopies();
    final NfsExports exports;
    final NfsServer server;

    NfsFixture(List<NfsExport> exports, Function<InetAddress, InetSocketAddress> clientRpcbind) throws Exception {
        this(exports, clientRpcbind, new io.micrometer.core.instrument.simple.SimpleMeterRegistry());
    }

    /** With the NFS meters registered in {@code metrics}. */
    NfsFixture(List<NfsExport> exports, Function<InetAddress, InetSocketAddress> clientRpcbind,
            io.micrometer.core.instrument.MeterRegistry metrics) throws Exception {
        this(exports, clientRpcbind, metrics, null);
    }

    /** Serving NFSv4.1 too, with {@code nfs4} (null: NFSv3 only). */
    NfsFixture(List<NfsExport> exports, Function<InetAddress, InetSocketAddress> clientRpcbind,
            io.micrometer.core.instrument.MeterRegistry metrics, io.rdmagate.nfs.v4.Nfs4Server.Options nfs4)
            throws Exception {
        this.exports = new NfsExports(exports);
        this.server = NfsServer.builder().exports(this.exports).pool(pool).payloadCopies(copies).maxIoSize(1 << 20)
                .metrics(metrics).address(LOOPBACK).ports(0, 0, 0, 0).nlm(e -> new NlmService(e, clientRpcbind))
                .nfs4(nfs4).start();
    }

    /** An insecure rule: the tests' own clients call from unreserved ports. */
    static ClientRule rule(String match, ClientRule.Access access, boolean rootSquash, boolean allSquash) {
        return new ClientRule(AddressMatch.parse(match), access, rootSquash, allSquash, 65534, 65534, false);
    }

    /** A secure read-write rule without squashing: stated credentials only from reserved ports. */
    static ClientRule secureRule(String match) {
        return new ClientRule(AddressMatch.parse(match), ClientRule.Access.RW, false, false, 65534, 65534, true);
    }

    static NfsExport export(int id, String name, VirtualFileSystem fs, ClientRule... rules) {
        return new NfsExport(id, new ExportConfig(name, Path.of("/" + name), "/" + name, false, false, 0, true,
                List.of(rules)), fs);
    }

    InetSocketAddress nfs() {
        return new InetSocketAddress(LOOPBACK, server.port("nfs"));
    }

    InetSocketAddress mount() {
        return new InetSocketAddress(LOOPBACK, server.port("mount"));
    }

    InetSocketAddress nlm() {
        return new InetSocketAddress(LOOPBACK, server.port("nlm"));
    }

    InetSocketAddress nsm() {
        return new InetSocketAddress(LOOPBACK, server.port("nsm"));
    }

    @Override
    public void close() {
        server.close();
        exports.all().forEach(e -> e.fs().close());
        pool.close();
    }
}
