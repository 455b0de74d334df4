package io.rdmagate.gateway.spi.config;

import java.net.InetAddress;

/** The protocol listeners, their ports and the address each protocol listens on. */
public record TransportsConfig(Nfs nfs, Rpcbind rpcbind, Smb smb) {

    /**
     * NFS over TCP and RDMA, with its side protocols MOUNT, NLM and NSM and the embedded rpcbind.
     *
     * @param address  where they listen; null for every interface
     * @param versions the NFS versions served on the NFS port and over RDMA: "3", "4.1" and "4.2"
     * @param v4       the limits of NFSv4.1 and NFSv4.2, when they are served
     */
    public record Nfs(boolean enabled, InetAddress address, Port port, Port rdmaPort, Port mountPort, Port nlmPort,
            Port nsmPort, java.util.Set<String> versions, Nfs4 v4) {
        public boolean serves41() {
            return versions.contains("4.1");
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
     */
    public record Rpcbind(Port port, Mode mode) {
        public enum Mode { AUTO, EMBEDDED, SYSTEM, OFF }
    }

    /**
     * SMB over TCP, and SMB Direct (RDMA).
     *
     * @param address where it listens; null for every interface
     */
    public record Smb(boolean enabled, InetAddress address, Port port, Port directPort) {
    }
}
