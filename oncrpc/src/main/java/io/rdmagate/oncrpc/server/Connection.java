package io.rdmagate.oncrpc.server;

import java.net.InetSocketAddress;

/**
 * Where a call came from.
 *
 * @param id        unique per server process, for logs and per-connection state
 * @param peer      the client's address
 * @param local     the address the call arrived on (what the client dialled)
 * @param transport "tcp" or "udp"
 */
public record Connection(long id, InetSocketAddress peer, InetSocketAddress local, String transport) {
}
