package io.rdmagate.oncrpc.server;

import java.net.InetSocketAddress;

/**
 * Where a call came from.
 *
 * @param id          unique per server process, for logs and per-connection state
 * @param peer        the client's address
 * @param local       the address the call arrived on (what the client dialled)
 * @param transport   "tcp", "udp" or "rdma"
 * @param backchannel calls from the server to this client on the same connection, or
 *                    {@link Backchannel#NONE}
 */
public record Connection(long id, InetSocketAddress peer, InetSocketAddress local, String transport,
        Backchannel backchannel) {
    public Connection {
        if (backchannel == null) {
            backchannel = Backchannel.NONE;
        }
    }

    /** Ports below this one are bound by root only (IPPORT_RESERVED). */
    public static final int RESERVED_PORTS = 1024;

    /**
     * Whether the client's side of the connection could only have been opened by root on the
     * client: a source port below {@link #RESERVED_PORTS} on TCP and UDP, always on RDMA (as
     * svcrdma sets RQ_SECURE for every RDMA call; the Linux client's RDMA connections come from
     * ephemeral ports).
     */
    public boolean fromReservedPort() {
        return peer.getPort() < RESERVED_PORTS || transport.equals("rdma");
    }

    /** A connection with no backchannel. */
    public Connection(long id, InetSocketAddress peer, InetSocketAddress local, String transport) {
        this(id, peer, local, transport, Backchannel.NONE);
    }
}
