package io.rdmagate.oncrpc.rpcbind;

import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;

/**
 * RFC 5665 §5.2.3.3/§5.2.3.4 universal addresses: the IP address in its usual text form, then the
 * port as two more dot-separated decimal bytes ("10.0.2.2.8.1" is port 2049 of 10.0.2.2).
 *
 * <p>Accepts: an IPv4 dotted quad or an IPv6 text address, then ".p1.p2" with 0 ≤ p1, p2 ≤ 255.
 * Refuses (IllegalArgumentException): anything else, host names included (no lookups).
 */
public final class UniversalAddress {
    private UniversalAddress() {
    }

    public static String format(InetAddress address, int port) {
        String host = address.getHostAddress();
        if (address instanceof Inet6Address) {
            int pct = host.indexOf('%');
            if (pct >= 0) {
                host = host.substring(0, pct);
            }
        }
        return host + "." + (port >>> 8) + "." + (port & 0xFF);
    }

    public static InetSocketAddress parse(String uaddr) {
        int last = uaddr.lastIndexOf('.');
        int prev = last > 0 ? uaddr.lastIndexOf('.', last - 1) : -1;
        if (prev <= 0) {
            throw new IllegalArgumentException("not a universal address: " + uaddr);
        }
        int hi = octet(uaddr.substring(prev + 1, last), uaddr);
        int lo = octet(uaddr.substring(last + 1), uaddr);
        String host = uaddr.substring(0, prev);
        if (!host.matches("\\d{1,3}(\\.\\d{1,3}){3}|[0-9a-fA-F:.]*:[0-9a-fA-F:.]*")) {
            throw new IllegalArgumentException("not a numeric address: " + uaddr);
        }
        try {
            return new InetSocketAddress(InetAddress.getByName(host), hi << 8 | lo);
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException("not an address: " + uaddr, e);
        }
    }

    private static int octet(String s, String whole) {
        if (s.isEmpty() || s.length() > 3 || !s.chars().allMatch(Character::isDigit)) {
            throw new IllegalArgumentException("bad port byte in " + whole);
        }
        int v = Integer.parseInt(s);
        if (v > 255) {
            throw new IllegalArgumentException("bad port byte in " + whole);
        }
        return v;
    }
}
