package io.rdmagate.smb.server;

import io.rdmagate.vfs.ExportOptions;
import io.rdmagate.vfs.VirtualFileSystem;
import io.rdmagate.vfs.local.LocalFileSystem;
import io.rdmagate.vfs.memory.IoMemoryPool;
import io.rdmagate.vfs.memory.MemoryRegistrar;
import io.rdmagate.vfs.memory.PayloadCopies;
import io.rdmagate.vfs.memory.PoolLimits;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.bouncycastle.crypto.digests.MD4Digest;

/**
 * An SMB server on 127.0.0.1 (a free port) over a local directory, with share "data" (plain),
 * "secure" (encryption required) and "ro" (read-only), and the user "tester" / "Secret-123".
 */
final class TestServer implements AutoCloseable {
    static final String USER = "tester";
    static final String PASSWORD = "Secret-123";
    static final int MAX_CONNECTIONS = 256;
    static final Duration HANDSHAKE_TIMEOUT = Duration.ofSeconds(60);
    static final Duration SEND_TIMEOUT = Duration.ofMinutes(2);

    final Path dir;
    final VirtualFileSystem vfs;
    final IoMemoryPool pool;
    final PayloadCopies copies = new PayloadCopies();
    final SmbServer server;

    static byte[] ntHash(String password) {
        byte[] p = password.getBytes(StandardCharsets.UTF_16LE);
        MD4Digest d = new MD4Digest();
        d.update(p, 0, p.length);
        byte[] out = new byte[16];
        d.doFinal(out, 0);
        return out;
    }

    TestServer(Path dir, Path state, boolean signingRequired, boolean encryptAll) throws Exception {
        this(dir, state, signingRequired, encryptAll, 0);
    }

    TestServer(Path dir, Path state, boolean signingRequired, boolean encryptAll, int port) throws Exception {
        this(dir, state, signingRequired, encryptAll, port, SmbServerConfig.DEFAULT_OPLOCK_BREAK_TIMEOUT);
    }

    TestServer(Path dir, Path state, boolean signingRequired, boolean encryptAll, int port, Duration oplockBreakTimeout)
            throws Exception {
        this(dir, state, signingRequired, encryptAll, port, oplockBreakTimeout, Duration.ofSeconds(60));
    }

    /** With durable handles kept {@code durableTimeout} after their connection is lost. */
    TestServer(Path dir, Path state, boolean signingRequired, boolean encryptAll, int port, Duration oplockBreakTimeout,
            Duration durableTimeout)
            throws Exception {
        this(dir, state, signingRequired, encryptAll, port, oplockBreakTimeout, durableTimeout, Duration.ofMillis(200),
                new io.micrometer.core.instrument.simple.SimpleMeterRegistry(), MAX_CONNECTIONS, HANDSHAKE_TIMEOUT, Duration.ZERO, SEND_TIMEOUT);
    }

    /** With the SMB meters in {@code metrics}, and failed logons answered after {@code logonFailureDelay} each. */
    TestServer(Path dir, Path state, io.micrometer.core.instrument.MeterRegistry metrics, Duration logonFailureDelay)
            throws Exception {
        this(dir, state, false, false, 0, SmbServerConfig.DEFAULT_OPLOCK_BREAK_TIMEOUT, Duration.ofSeconds(60),
                logonFailureDelay, metrics, MAX_CONNECTIONS, HANDSHAKE_TIMEOUT, Duration.ZERO, SEND_TIMEOUT);
    }

    /** With at most {@code maxConnections} open and {@code handshakeTimeout} to authenticate. */
    static TestServer limited(Path dir, Path state, int maxConnections, Duration handshakeTimeout) throws Exception {
        return limited(dir, state, maxConnections, handshakeTimeout, Duration.ZERO);
    }

    /** Also closing connections with no open file that stay silent for {@code idleTimeout}. */
    static TestServer limited(Path dir, Path state, int maxConnections, Duration handshakeTimeout, Duration idleTimeout)
            throws Exception {
        return limited(dir, state, maxConnections, handshakeTimeout, idleTimeout, SEND_TIMEOUT);
    }

    /** Also closing connections whose client takes none of their responses for {@code sendTimeout}. */
    static TestServer limited(Path dir, Path state, int maxConnections, Duration handshakeTimeout, Duration idleTimeout,
            Duration sendTimeout) throws Exception {
        return new TestServer(dir, state, false, false, 0, SmbServerConfig.DEFAULT_OPLOCK_BREAK_TIMEOUT,
                Duration.ofSeconds(60), Duration.ofMillis(200), new io.micrometer.core.instrument.simple.SimpleMeterRegistry(),
                maxConnections, handshakeTimeout, idleTimeout, sendTimeout);
    }

    private TestServer(Path dir, Path state, boolean signingRequired, boolean encryptAll, int port,
            Duration oplockBreakTimeout, Duration durableTimeout, Duration logonFailureDelay,
            io.micrometer.core.instrument.MeterRegistry metrics, int maxConnections, Duration handshakeTimeout,
            Duration idleTimeout, Duration sendTimeout) throws Exception {
        this(dir, state, signingRequired, encryptAll, port, oplockBreakTimeout, durableTimeout, logonFailureDelay, metrics,
                maxConnections, handshakeTimeout, idleTimeout, sendTimeout, MemoryRegistrar.NONE, null);
    }

    /**
     * With Kerberos logons, and a fourth share, "krbonly", that only Kerberos sessions may
     * connect to, as well as "ntlmonly", for NTLM sessions only.
     */
    static TestServer kerberized(Path dir, Path state, SmbKerberos kerberos) throws Exception {
        return new TestServer(dir, state, false, false, 0, SmbServerConfig.DEFAULT_OPLOCK_BREAK_TIMEOUT,
                Duration.ofSeconds(60), Duration.ofMillis(200), new io.micrometer.core.instrument.simple.SimpleMeterRegistry(),
                MAX_CONNECTIONS, HANDSHAKE_TIMEOUT, Duration.ZERO, SEND_TIMEOUT, MemoryRegistrar.NONE, kerberos);
    }

    /** With its pool registered through {@code registrar} (an RDMA device's domain, for SMB Direct). */
    static TestServer registered(Path dir, Path state, MemoryRegistrar registrar) throws Exception {
        return new TestServer(dir, state, false, false, 0, SmbServerConfig.DEFAULT_OPLOCK_BREAK_TIMEOUT,
                Duration.ofSeconds(60), Duration.ofMillis(200), new io.micrometer.core.instrument.simple.SimpleMeterRegistry(),
                MAX_CONNECTIONS, HANDSHAKE_TIMEOUT, Duration.ZERO, SEND_TIMEOUT, registrar, null);
    }

    private TestServer(Path dir, Path state, boolean signingRequired, boolean encryptAll, int port,
            Duration oplockBreakTimeout, Duration durableTimeout, Duration logonFailureDelay,
            io.micrometer.core.instrument.MeterRegistry metrics, int maxConnections, Duration handshakeTimeout,
            Duration idleTimeout, Duration sendTimeout, MemoryRegistrar registrar, SmbKerberos kerberos) throws Exception {
        this.dir = dir;
        this.vfs = LocalFileSystem.open(dir, state, ExportOptions.DEFAULT);
        this.pool = new IoMemoryPool(PoolLimits.DEFAULT, registrar);
        int uid = (Integer) java.nio.file.Files.getAttribute(dir, "unix:uid");
        int gid = (Integer) java.nio.file.Files.getAttribute(dir, "unix:gid");
        SmbUser user = new SmbUser(USER, uid, gid, ntHash(PASSWORD));
        List<SmbShare> shares = new java.util.ArrayList<>(List.of(new SmbShare("data", vfs, "", false, false, false),
                new SmbShare("secure", vfs, "", false, false, true),
                new SmbShare("ro", vfs, "", true, false, false)));
        if (kerberos != null) {
            shares.add(new SmbShare("krbonly", vfs, "", false, false, false, false, true));
            shares.add(new SmbShare("ntlmonly", vfs, "", false, false, false, true, false));
        }
        SmbServerConfig cfg = new SmbServerConfig("RDMAGATE", "WORKGROUP", shares,
                List.of(user), signingRequired, encryptAll, null, (1 << 20) + 65536, 1 << 20, 8192, 64,
                logonFailureDelay, pool, copies, oplockBreakTimeout, durableTimeout, Duration.ofMinutes(5), maxConnections,
                maxConnections, handshakeTimeout, idleTimeout,
                io.rdmagate.gateway.spi.config.SmbConfig.DEFAULT_MAX_HANDSHAKE_MESSAGE_SIZE, sendTimeout,
                io.rdmagate.gateway.spi.config.SmbConfig.Multichannel.DEFAULT, kerberos,
                io.rdmagate.gateway.spi.config.SmbConfig.DEFAULT_MAX_ASYNC_REQUESTS);
        this.server = SmbServer.start(cfg, InetAddress.getLoopbackAddress(), port, metrics);
    }

    int port() {
        return server.localAddress().getPort();
    }

    @Override
    public void close() {
        server.close();
        vfs.close();
        pool.close();
    }
}
