package io.rdmagate.gateway.spi.config;

import java.time.Duration;

/**
 * Server-wide SMB settings; {@code guestAccount} is null when guests are not mapped to an account.
 *
 * @param maxCredits         the most credits one connection may hold (MS-SMB2 3.3.1.2)
 * @param maxInFlight        requests of one connection processed at once; reading stops beyond it
 * @param oplockBreakTimeout how long an oplock or lease break waits for its acknowledgment (MS-SMB2 3.3.2.1)
 * @param durableTimeout     how long a durable handle outlives its connection when the client names no
 *                           time (DHnQ, or DH2Q with Timeout 0; MS-SMB2 3.3.5.9.6, 3.3.5.9.10)
 * @param durableMaxTimeout  the longest a client may ask a durable v2 handle to be kept
 * @param handshakeTimeout   how long a connection may take to authenticate a session (NEGOTIATE and
 *                           SESSION_SETUP) before it is closed
 * @param idleTimeout        how long a connection with no open file and no request in progress may
 *                           send nothing before it is closed (Windows' autodisconnect); zero disables
 * @param maxHandshakeMessageSize the largest message a connection may send before a session of it
 *                           is authenticated (NEGOTIATE, SESSION_SETUP with its security token); a
 *                           longer length field closes the connection before anything is buffered
 * @param maxAsyncRequests   requests of one connection answered STATUS_PENDING and not yet completed
 *                           (CHANGE_NOTIFY, a blocking LOCK, a CREATE waiting for a lease break); one
 *                           more is failed with STATUS_INSUFFICIENT_RESOURCES (MS-SMB2 3.3.4.2)
 */
public record SmbConfig(boolean signingRequired, boolean encryptAll, String guestAccount, int maxCredits,
        int maxInFlight, Duration oplockBreakTimeout, Duration durableTimeout, Duration durableMaxTimeout,
        Duration handshakeTimeout, Duration idleTimeout, int maxHandshakeMessageSize, Multichannel multichannel,
        int maxAsyncRequests) {
    /** Windows' default of AsyncCredits. */
    public static final int DEFAULT_MAX_ASYNC_REQUESTS = 512;

    public SmbConfig {
        if (maxAsyncRequests < 1) {
            throw new IllegalArgumentException("maxAsyncRequests " + maxAsyncRequests);
        }
    }

    /**
     * Multichannel (MS-SMB2 3.3.5.5.2): whether sessions may be bound to more connections, how many
     * channels one session may have, and the interfaces FSCTL_QUERY_NETWORK_INTERFACE_INFO reports
     * (empty: the address each connection arrived on).
     */
    public record Multichannel(boolean enabled, int maxChannels, java.util.List<Interface> interfaces) {
        /** 32 channels per session, as Windows Server allows. */
        public static final Multichannel DEFAULT = new Multichannel(true, 32, java.util.List.of());

        public Multichannel {
            interfaces = java.util.List.copyOf(interfaces);
            if (maxChannels < 1) {
                throw new IllegalArgumentException("maxChannels must be positive");
            }
        }
    }

    /**
     * One network interface FSCTL_QUERY_NETWORK_INTERFACE_INFO reports (MS-SMB2 2.2.32.5): where
     * clients may open more channels of a session.
     *
     * @param address   the address clients connect to (Linux dials it on 445, Windows on the SMB port)
     * @param linkSpeed bits per second
     * @param rdma      whether SMB Direct serves this address (clients then open RDMA channels)
     */
    public record Interface(java.net.InetAddress address, long linkSpeed, boolean rdma) {
    }

    public SmbConfig(boolean signingRequired, boolean encryptAll, String guestAccount, int maxCredits, int maxInFlight,
            Duration oplockBreakTimeout, Duration durableTimeout, Duration durableMaxTimeout, Duration handshakeTimeout,
            Duration idleTimeout, int maxHandshakeMessageSize) {
        this(signingRequired, encryptAll, guestAccount, maxCredits, maxInFlight, oplockBreakTimeout, durableTimeout,
                durableMaxTimeout, handshakeTimeout, idleTimeout, maxHandshakeMessageSize, Multichannel.DEFAULT,
                DEFAULT_MAX_ASYNC_REQUESTS);
    }

    /** Room for a Kerberos ticket of Windows' largest MaxTokenSize (65535) with its SMB2 headers. */
    public static final int DEFAULT_MAX_HANDSHAKE_MESSAGE_SIZE = 128 << 10;

    public static final SmbConfig DEFAULT = new SmbConfig(false, false, null, 8192, 64, Duration.ofSeconds(35),
            Duration.ofSeconds(60), Duration.ofMinutes(5), Duration.ofSeconds(30), Duration.ofMinutes(15),
            DEFAULT_MAX_HANDSHAKE_MESSAGE_SIZE);
}
