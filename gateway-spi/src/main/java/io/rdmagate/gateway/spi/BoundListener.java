package io.rdmagate.gateway.spi;

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
        java.net.InetAddress ip = a.getAddress();
        String host = ip == null ? a.getHostString()
                : ip instanceof java.net.Inet6Address && ip.isAnyLocalAddress() ? "::"
                : ip instanceof java.net.Inet6Address && ip.isLoopbackAddress() ? "::1"
                : ip.getHostAddress();
        return (host.contains(":") ? "[" + host + "]" : host) + ":" + a.getPort();
    }
}
