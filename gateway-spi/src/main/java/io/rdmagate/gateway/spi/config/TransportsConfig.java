package io.rdmagate.gateway.spi.config;

import java.net.InetAddress;

/** The protocol listeners, their ports and the address each protocol listens on. */
public record TransportsConfig(Nfs nfs, Rpcbind rpcbind, Smb smb) {

    /**
     * NFS over TCP and RDMA, with its side protocols MOUNT, NLM and NSM and the embedded rpcbind.
     *
     * @param address  where they listen; null for every interface
     * @param versions the NFS versions served on the NFS port and over RDMA: "3", "4.0", "4.1" and "4.2"
     * @param v4       the limits of NFSv4, when a minor version of it is served
     */
    public record Nfs(boolean enabled, InetAddress address, Port port, Port rdmaPort, Port mountPort, Port nlmPort,
            Port nsmPort, java.util.Set<String> versions, Nfs4 v4) {
        /** NFSv4.0 (RFC 7530), on the same state as NFSv4.1's clients. */
        public boolean serves40() {
            return versions.contains("4.0");
        }

        public boolean serves41() {
            return versions.contains("4.1");
        }

        /** Whether any minor version of NFSv4 is served. */
        public boolean serves4() {
            return serves40() || serves41();
        }

        /** NFSv4.2's operations and attributes beside NFSv4.1's (it builds on 4.1's sessions). */
        public boolean serves42() {
            return versions.contains("4.2");
        }
    }

    /**
     * NFSv4.1's state limits (RFC 8881).
     *
     * @param leaseTime      a client that renews nothing for this long loses its lease
     * @param maxClients     client records at most
     * @param maxSessions    sessions at most, over every client
     * @param maxSlots       slots (requests in flight) per session at most
     * @param maxOperations  operations per COMPOUND at most
     * @param maxCachedReply reply bytes kept per slot for a retry at most
     * @param graceTime      after a restart, how long the clients of the previous run may reclaim their
     *                       opens and locks (ended early when each has)
     * @param maxCopy        bytes one NFSv4.2 COPY copies at most (the client asks again for the rest)
     */
    public record Nfs4(java.time.Duration leaseTime, int maxClients, int maxSessions, int maxSlots, int maxOperations,
            int maxCachedReply, java.time.Duration graceTime, int maxDelegations, String idmapDomain, long maxCopy) {
        public static final Nfs4 DEFAULT = new Nfs4(java.time.Duration.ofSeconds(90), 4096, 4096, 64, 64, 8192,
                java.time.Duration.ofSeconds(90), 65536, "", 64L << 20);
    }

    /**
     * The portmapper NFSv3 clients ask for the MOUNT, NLM and NSM ports. {@code auto} uses the
     * system's rpcbind when one answers on the host, else runs the embedded one.
     *
     * @param maxMappings registrations the embedded rpcbind keeps; a SET beyond them fails
     */
    public record Rpcbind(Port port, Mode mode, int maxMappings) {
        public static final int DEFAULT_MAX_MAPPINGS = 1024;

        public enum Mode { AUTO, EMBEDDED, SYSTEM, OFF }

        public Rpcbind(Port port, Mode mode) {
            this(port, mode, DEFAULT_MAX_MAPPINGS);
        }
    }

    /**
     * SMB over TCP, and SMB Direct (RDMA).
     *
     * @param address    where it listens; null for every interface
     * @param directPort SMB Direct's port: Linux clients dial 5445, then 445
     */
    public record Smb(boolean enabled, InetAddress address, Port port, Port directPort, SmbDirect direct) {
        public Smb(boolean enabled, InetAddress address, Port port, Port directPort) {
            this(enabled, address, port, directPort, SmbDirect.DEFAULT);
        }
    }

    /**
     * SMB Direct's limits (MS-SMBD 3.1.1.1).
     *
     * @param enabled           whether SMB Direct listens (on the RDMA device the gateway opens)
     * @param receiveCredits    receives posted per connection: the requests a client may have in flight
     * @param sendCredits       sends posted at once per connection, and the credits asked of the client
     * @param maxFragmentedSize the largest SMB2 message a client may send in fragments
     * @param maxReadWriteSize  the largest RDMA transfer of one READ or WRITE (also bounded by limits.maxIoSize)
     * @param negotiateTimeout  time a new connection has to negotiate
     * @param keepaliveInterval idle time after which a keep-alive asks the client to answer
     */
    public record SmbDirect(boolean enabled, int receiveCredits, int sendCredits, int maxFragmentedSize,
            int maxReadWriteSize, java.time.Duration negotiateTimeout, java.time.Duration keepaliveInterval) {
        public static final SmbDirect DEFAULT = new SmbDirect(true, 64, 64, 1 << 20, 8 << 20,
                java.time.Duration.ofSeconds(5), java.time.Duration.ofSeconds(120));
    }
}
