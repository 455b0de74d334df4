package io.rdmagate.gateway.spi.config;

import java.net.Inet4Address;
import java.net.InetAddress;
import java.util.Arrays;

/**
 * Which client addresses a rule covers: "*" (all), one IP address, or an IPv4/IPv6 CIDR block.
 * Host names are refused (resolving them at parse time would make the rule depend on DNS); so
 * are prefixes out of range and blocks with host bits set. IPv4-mapped IPv6 client addresses
 * (::ffff:a.b.c.d) match IPv4 rules.
 */
public record AddressMatch(String text, byte[] network, int prefixBits) {
    public static final AddressMatch ANY = new AddressMatch("*", new byte[0], 0);

    public AddressMatch {
        network = network.clone();
    }

    public static AddressMatch parse(String text) {
        String t = text.trim();
        if (t.equals("*")) {
            return ANY;
        }
        int slash = t.indexOf('/');
        String addr = slash < 0 ? t : t.substring(0, slash);
        byte[] net = literal(addr, t);
        int bits = net.length * 8;
        if (slash >= 0) {
            String p = t.substring(slash + 1);
            if (!p.matches("\\d{1,3}") || Integer.parseInt(p) > bits) {
                throw new IllegalArgumentException("bad prefix length '/" + p + "' in '" + t + "' (0 to " + bits + ")");
            }
            bits = Integer.parseInt(p);
            byte[] masked = mask(net, bits);
            if (!Arrays.equals(masked, net)) {
                throw new IllegalArgumentException("'" + t + "' has host bits set; did you mean '"
                        + toLiteral(masked) + "/" + bits + "'?");
            }
        }
        return new AddressMatch(t, net, bits);
    }

    public boolean matches(InetAddress client) {
        if (network.length == 0) {
            return true;
        }
        byte[] a = normalize(client.getAddress());
        return a.length == network.length && Arrays.equals(mask(a, prefixBits), network);
    }

    @Override
    public byte[] network() {
        return network.clone();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof AddressMatch m && m.prefixBits == prefixBits && Arrays.equals(m.network, network);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(network) * 31 + prefixBits;
    }

    @Override
    public String toString() {
        return text;
    }

    private static byte[] literal(String addr, String whole) {
        if (!addr.contains(":") && !addr.matches("\\d{1,3}(\\.\\d{1,3}){3}")) {
            throw new IllegalArgumentException("'" + whole + "' is not \"*\", an IP address or a CIDR block"
                    + " (IPv4 needs all four parts; host names are not accepted)");
        }
        try {
            return normalize(InetAddress.ofLiteral(addr).getAddress());
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("'" + whole + "' is not \"*\", an IP address or a CIDR block"
                    + " (host names are not accepted)");
        }
    }

    private static byte[] normalize(byte[] a) {
        if (a.length == 16) {
            boolean mapped = a[10] == (byte) 0xff && a[11] == (byte) 0xff;
            for (int i = 0; i < 10 && mapped; i++) {
                mapped = a[i] == 0;
            }
            if (mapped) {
                return Arrays.copyOfRange(a, 12, 16);
            }
        }
        return a;
    }

    private static byte[] mask(byte[] a, int bits) {
        byte[] r = a.clone();
        for (int i = 0; i < r.length; i++) {
            int keep = Math.max(0, Math.min(8, bits - 8 * i));
            r[i] &= (byte) (0xff << (8 - keep));
        }
        return r;
    }

    private static String toLiteral(byte[] a) {
        try {
            InetAddress x = InetAddress.getByAddress(a);
            return x instanceof Inet4Address ? x.getHostAddress() : x.getHostAddress().replaceFirst("(^|:)0(:0)+(:|$)", "::");
        } catch (java.net.UnknownHostException e) {
            throw new IllegalStateException(e);
        }
    }
}
