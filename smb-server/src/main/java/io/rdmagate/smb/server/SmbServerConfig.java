package io.rdmagate.smb.server;

import io.rdmagate.vfs.memory.IoMemoryPool;
import io.rdmagate.vfs.memory.PayloadCopies;
import java.time.Duration;
import java.util.List;

/**
 * Everything the SMB server is configured with.
 *
 * @param guest            the account anonymous and guest logons map to, or null (guests refused)
 * @param maxMessageSize   the largest NetBIOS session message accepted (checked on its length field)
 * @param maxIo            MaxReadSize/MaxWriteSize/MaxTransactSize offered in NEGOTIATE
 * @param maxCredits       the ceiling of credits a connection may hold (MS-SMB2 3.3.1.2)
 * @param maxInFlight      requests of one connection processed at once; reading stops beyond it
 * @param logonFailureDelay how long the answer to a failed logon is held, per recent failure of that client
 * @param oplockBreakTimeout how long a CREATE waits for the holder to acknowledge an oplock break before
 *                         the server lowers the oplock itself (MS-SMB2 3.3.2.1; Windows uses 35 s)
 * @param durableTimeout   how long a durable handle outlives its connection when the client names no time
 * @param durableMaxTimeout the longest a durable v2 handle is kept, whatever the client asks
 * @param maxConnections   connections open at once; a new one closes the quietest (limits.maxConnections)
 * @param maxConnectionsPerAddress connections open at once from one address; a new one closes that
 *                         address's quietest (limits.maxConnectionsPerAddress)
 * @param handshakeTimeout how long a connection may take to authenticate a session before it is closed
 * @param idleTimeout      how long an authenticated connection with no open file and no request in
 *                         progress may send nothing before it is closed; zero disables
 * @param maxHandshakeMessageSize the largest message accepted before a session of the connection is
 *                         authenticated (checked on its length field, like maxMessageSize after)
 * @param sendTimeout      how long responses may wait without the client taking any of them before the
 *                         connection is closed (limits.sendTimeout); zero disables
 * @param multichannel     whether sessions may be bound to more connections, how many, and what
 *                         FSCTL_QUERY_NETWORK_INTERFACE_INFO reports (MS-SMB2 3.3.5.5.2, 3.3.5.15.11)
 * @param kerberos         Kerberos logons through SPNEGO, or null: NTLMv2 only
 * @param maxAsyncRequests requests of one connection answered STATUS_PENDING at once; one more is
 *                         failed with STATUS_INSUFFICIENT_RESOURCES (MS-SMB2 3.3.4.2)
 */
public record SmbServerConfig(String serverName, String domain, List<SmbShare> shares, List<SmbUser> users,
        boolean signingRequired, boolean encryptAll, SmbUser guest, int maxMessageSize, int maxIo, int maxCredits,
        int maxInFlight, Duration logonFailureDelay, IoMemoryPool pool, PayloadCopies copies,
        Duration oplockBreakTimeout, Duration durableTimeout, Duration durableMaxTimeout, int maxConnections,
        int maxConnectionsPerAddress, Duration handshakeTimeout, Duration idleTimeout, int maxHandshakeMessageSize,
        Duration sendTimeout, io.rdmagate.gateway.spi.config.SmbConfig.Multichannel multichannel, SmbKerberos kerberos,
        int maxAsyncRequests) {
    /** Windows' Oplock Break Acknowledgment Timer (MS-SMB2 3.3.2.1 and its product note). */
    public static final Duration DEFAULT_OPLOCK_BREAK_TIMEOUT = Duration.ofSeconds(35);

    public SmbServerConfig(String serverName, String domain, List<SmbShare> shares, List<SmbUser> users,
            boolean signingRequired, boolean encryptAll, SmbUser guest, int maxMessageSize, int maxIo, int maxCredits,
            int maxInFlight, Duration logonFailureDelay, IoMemoryPool pool, PayloadCopies copies,
            Duration oplockBreakTimeout, Duration durableTimeout, Duration durableMaxTimeout, int maxConnections,
            int maxConnectionsPerAddress, Duration handshakeTimeout, Duration idleTimeout, int maxHandshakeMessageSize,
            Duration sendTimeout) {
        this(serverName, domain, shares, users, signingRequired, encryptAll, guest, maxMessageSize, maxIo, maxCredits,
                maxInFlight, logonFailureDelay, pool, copies, oplockBreakTimeout, durableTimeout, durableMaxTimeout,
                maxConnections, maxConnectionsPerAddress, handshakeTimeout, idleTimeout, maxHandshakeMessageSize,
                sendTimeout, io.rdmagate.gateway.spi.config.SmbConfig.Multichannel.DEFAULT, null,
                io.rdmagate.gateway.spi.config.SmbConfig.DEFAULT_MAX_ASYNC_REQUESTS);
    }

    /** Without Kerberos. */
    public SmbServerConfig(String serverName, String domain, List<SmbShare> shares, List<SmbUser> users,
            boolean signingRequired, boolean encryptAll, SmbUser guest, int maxMessageSize, int maxIo, int maxCredits,
            int maxInFlight, Duration logonFailureDelay, IoMemoryPool pool, PayloadCopies copies,
            Duration oplockBreakTimeout, Duration durableTimeout, Duration durableMaxTimeout, int maxConnections,
            int maxConnectionsPerAddress, Duration handshakeTimeout, Duration idleTimeout, int maxHandshakeMessageSize,
            Duration sendTimeout, io.rdmagate.gateway.spi.config.SmbConfig.Multichannel multichannel) {
        this(serverName, domain, shares, users, signingRequired, encryptAll, guest, maxMessageSize, maxIo, maxCredits,
                maxInFlight, logonFailureDelay, pool, copies, oplockBreakTimeout, durableTimeout, durableMaxTimeout,
                maxConnections, maxConnectionsPerAddress, handshakeTimeout, idleTimeout, maxHandshakeMessageSize,
                sendTimeout, multichannel, null, io.rdmagate.gateway.spi.config.SmbConfig.DEFAULT_MAX_ASYNC_REQUESTS);
    }

    public SmbServerConfig {
        shares = List.copyOf(shares);
        users = List.copyOf(users);
        if (maxIo < 65536 || maxIo > 8 << 20) {
            throw new IllegalArgumentException("maxIo " + maxIo + " outside 64 KiB..8 MiB");
        }
        if (maxAsyncRequests < 1) {
            throw new IllegalArgumentException("maxAsyncRequests " + maxAsyncRequests);
        }
        if (maxConnections < 1 || maxConnectionsPerAddress < 1) {
            throw new IllegalArgumentException("maxConnections " + maxConnections + ", per address " + maxConnectionsPerAddress);
        }
        if (sendTimeout == null || sendTimeout.isNegative()) {
            throw new IllegalArgumentException("sendTimeout " + sendTimeout);
        }
        if (idleTimeout == null || idleTimeout.isNegative()) {
            throw new IllegalArgumentException("idleTimeout " + idleTimeout);
        }
        if (handshakeTimeout == null || handshakeTimeout.isNegative() || handshakeTimeout.isZero()) {
            throw new IllegalArgumentException("handshakeTimeout " + handshakeTimeout);
        }
        if (oplockBreakTimeout == null || oplockBreakTimeout.compareTo(Duration.ofMillis(1)) < 0
                || oplockBreakTimeout.compareTo(Duration.ofMinutes(10)) > 0) {
            throw new IllegalArgumentException("oplockBreakTimeout " + oplockBreakTimeout + " outside 1 ms..10 min");
        }
        if (durableTimeout == null || durableMaxTimeout == null || durableTimeout.isNegative()
                || durableMaxTimeout.compareTo(durableTimeout) < 0) {
            throw new IllegalArgumentException("durable timeouts " + durableTimeout + ", " + durableMaxTimeout);
        }
        if (maxMessageSize < maxIo + 4096) {
            throw new IllegalArgumentException("maxMessageSize must exceed maxIo by a header");
        }
        if (maxHandshakeMessageSize < 4096 || maxHandshakeMessageSize > maxMessageSize) {
            throw new IllegalArgumentException("maxHandshakeMessageSize " + maxHandshakeMessageSize
                    + " outside 4 KiB..maxMessageSize");
        }
    }

    public SmbShare share(String name) {
        for (SmbShare s : shares) {
            if (s.name().equalsIgnoreCase(name)) {
                return s;
            }
        }
        return null;
    }

    public SmbUser user(String name) {
        for (SmbUser u : users) {
            if (u.name().equalsIgnoreCase(name)) {
                return u;
            }
        }
        return null;
    }
}
