package io.rdmagate.oncrpc.rpcbind;

/**
 * One registration: a program version reachable on a port over a transport.
 *
 * @param netid "tcp", "udp", "tcp6" or "udp6" (RFC 5665 §5.1)
 * @param owner who registered it ("superuser", or a uid)
 */
public record Mapping(int program, int version, String netid, int port, String owner) {

    /** The RFC 1833 §3 portmap protocol number of this netid (6 or 17), or 0. */
    public int protocol() {
        return switch (netid) {
            case "tcp", "tcp6" -> Rpcbind.IPPROTO_TCP;
            case "udp", "udp6" -> Rpcbind.IPPROTO_UDP;
            default -> 0;
        };
    }

    public static String netidOf(int protocol) {
        return protocol == Rpcbind.IPPROTO_UDP ? "udp" : protocol == Rpcbind.IPPROTO_TCP ? "tcp" : null;
    }
}
