package io.rdmagate.gateway.spi.config;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import org.junit.jupiter.api.Test;

class AddressMatchTest {
    private static boolean m(String rule, String client) {
        return AddressMatch.parse(rule).matches(InetAddress.ofLiteral(client));
    }

    @Test
    void ipv4Cidr() {
        assertTrue(m("10.0.0.0/8", "10.255.1.2"));
        assertFalse(m("10.0.0.0/8", "11.0.0.1"));
        assertTrue(m("192.168.1.0/24", "192.168.1.255"));
        assertFalse(m("192.168.1.0/24", "192.168.2.1"));
        assertTrue(m("172.16.0.0/12", "172.31.255.255"));
        assertFalse(m("172.16.0.0/12", "172.32.0.0"));
        assertTrue(m("0.0.0.0/0", "8.8.8.8"));
        assertFalse(m("0.0.0.0/0", "::1"), "an IPv4 block does not cover IPv6 clients");
    }

    @Test
    void ipv6Cidr() {
        assertTrue(m("fd00::/8", "fdab::1"));
        assertFalse(m("fd00::/8", "fe80::1"));
        assertTrue(m("2001:db8:1::/48", "2001:db8:1:ffff::1"));
        assertFalse(m("2001:db8:1::/48", "2001:db8:2::1"));
        assertFalse(m("::/0", "10.0.0.1"));
    }

    @Test
    void singleHost() {
        assertTrue(m("192.168.1.7", "192.168.1.7"));
        assertFalse(m("192.168.1.7", "192.168.1.8"));
        assertTrue(m("::1", "::1"));
        assertFalse(m("::1", "127.0.0.1"));
    }

    @Test
    void ipv4MappedClientsMatchIpv4Rules() {
        assertTrue(m("10.0.0.0/8", "::ffff:10.1.2.3"));
        assertTrue(m("::ffff:10.1.2.3", "10.1.2.3"));
    }

    @Test
    void starMatchesEverything() {
        assertTrue(m("*", "10.0.0.1"));
        assertTrue(m("*", "::1"));
    }

    @Test
    void refusals() {
        assertThrows(IllegalArgumentException.class, () -> AddressMatch.parse("10.0.0.1/8"));
        assertThrows(IllegalArgumentException.class, () -> AddressMatch.parse("10.0.0.0/40"));
        assertThrows(IllegalArgumentException.class, () -> AddressMatch.parse("fd00::/129"));
        assertThrows(IllegalArgumentException.class, () -> AddressMatch.parse("fd00::1/8"));
        assertThrows(IllegalArgumentException.class, () -> AddressMatch.parse("host.example"));
        assertThrows(IllegalArgumentException.class, () -> AddressMatch.parse("10.0.0.0/x"));
        assertThrows(IllegalArgumentException.class, () -> AddressMatch.parse("10.0.0/8"));
    }
}
