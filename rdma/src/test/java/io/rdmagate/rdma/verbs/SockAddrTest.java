package io.rdmagate.rdma.verbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import org.junit.jupiter.api.Test;

/** sockaddr_in and sockaddr_in6 as rdma_bind_addr and rdma_resolve_addr take them. Needs no RDMA device. */
class SockAddrTest {
    @Test
    void ipv4IsFamilyThenPortAndAddressInNetworkOrder() throws Exception {
        try (Arena arena = Arena.ofConfined()) {
            InetSocketAddress a = new InetSocketAddress(InetAddress.getByName("10.200.1.2"), 7174);
            MemorySegment s = SockAddr.of(arena, a);
            assertEquals(2, s.get(ValueLayout.JAVA_SHORT, 0), "AF_INET, host order");
            assertEquals(0x1c, Byte.toUnsignedInt(s.get(ValueLayout.JAVA_BYTE, 2)), "7174 = 0x1c06, big endian");
            assertEquals(0x06, Byte.toUnsignedInt(s.get(ValueLayout.JAVA_BYTE, 3)));
            assertEquals(10, s.get(ValueLayout.JAVA_BYTE, 4));
            assertEquals(2, s.get(ValueLayout.JAVA_BYTE, 7));
            assertEquals(a, SockAddr.read(s));
        }
    }

    @Test
    void ipv6RoundTripsAndOtherFamiliesAreNull() throws Exception {
        try (Arena arena = Arena.ofConfined()) {
            InetSocketAddress a = new InetSocketAddress(InetAddress.getByName("fe80::5054:ff:fe12:3456"), 20049);
            MemorySegment s = SockAddr.of(arena, a);
            assertEquals(10, s.get(ValueLayout.JAVA_SHORT, 0), "AF_INET6");
            assertEquals(a, SockAddr.read(s));
            assertNull(SockAddr.read(arena.allocate(128)), "AF_UNSPEC: an id not yet bound");
        }
    }
}
