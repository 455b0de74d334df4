package io.rdmagate.gateway;

import java.net.InetSocketAddress;

/**
 * A listener a {@link ProtocolService} has bound.
 *
 * @param protocol  e.g. "nfs", "mount", "smb"
 * @param transport "tcp" or "rdma"
 */
public record BoundListener(String protocol, String transport, InetSocketAddress address) {
    @Override
    public String toString() {
        return protocol + "/" + transport + " on " + hostPort(address);
    }

    /** "127.0.0.1:2049", "[::1]:2049": the numeric address, never a looked-up name. */
    public static String hostPort(InetSocketAddress a) {
        String host = a.getAddress() != null ? a.getAddress().getHostAddress() : a.getHostString();
        return (host.contains(":") ? "[" + host + "]" : host) + ":" + a.getPort();
    }
}
