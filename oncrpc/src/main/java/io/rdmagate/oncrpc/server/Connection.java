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

    /** A connection with no backchannel. */
    public Connection(long id, InetSocketAddress peer, InetSocketAddress local, String transport) {
        this(id, peer, local, transport, Backchannel.NONE);
    }
}
