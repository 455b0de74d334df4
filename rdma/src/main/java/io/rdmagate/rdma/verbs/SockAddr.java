package io.rdmagate.rdma.verbs;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.ByteOrder;

/**
 * {@code struct sockaddr_in} and {@code struct sockaddr_in6} to and from {@link InetSocketAddress}:
 * what {@code rdma_bind_addr} and {@code rdma_resolve_addr} take, and what an rdma_cm_id holds in
 * {@code route.addr.src_addr} and {@code dst_addr} ({@code rdma_get_local_addr} and
 * {@code rdma_get_peer_addr} are static inline returning those fields). Port and IPv4 address are
 * in network order, the family in host order.
 */
final class SockAddr {
    private static final ValueLayout.OfShort NET_SHORT = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    private SockAddr() {
    }

    /** A sockaddr for {@code address} in {@code arena} (sockaddr_storage sized). */
    static MemorySegment of(Arena arena, InetSocketAddress address) throws UnknownHostException {
        if (address.isUnresolved()) {
            throw new UnknownHostException(address.getHostString());
        }
        MemorySegment s = arena.allocate(RdmaCmAbi.SOCKADDR_STORAGE_BYTES, 8);
        InetAddress ip = address.getAddress();
        s.set(NET_SHORT, RdmaCmAbi.SA_PORT, (short) address.getPort());
        if (ip instanceof Inet4Address) {
            s.set(ValueLayout.JAVA_SHORT, RdmaCmAbi.SA_FAMILY, RdmaCmAbi.AF_INET);
            MemorySegment.copy(ip.getAddress(), 0, s, ValueLayout.JAVA_BYTE, RdmaCmAbi.SIN_ADDR, 4);
        } else {
            s.set(ValueLayout.JAVA_SHORT, RdmaCmAbi.SA_FAMILY, RdmaCmAbi.AF_INET6);
            MemorySegment.copy(ip.getAddress(), 0, s, ValueLayout.JAVA_BYTE, RdmaCmAbi.SIN6_ADDR, 16);
            s.set(ValueLayout.JAVA_INT, RdmaCmAbi.SIN6_SCOPE_ID, ((Inet6Address) ip).getScopeId());
        }
        return s;
    }

    /** The address at {@code s} (at least sockaddr_in6 long); null for another family (unset, AF_IB). */
    static InetSocketAddress read(MemorySegment s) {
        short family = s.get(ValueLayout.JAVA_SHORT, RdmaCmAbi.SA_FAMILY);
        int port = Short.toUnsignedInt(s.get(NET_SHORT, RdmaCmAbi.SA_PORT));
        try {
            if (family == RdmaCmAbi.AF_INET) {
                byte[] a = s.asSlice(RdmaCmAbi.SIN_ADDR, 4).toArray(ValueLayout.JAVA_BYTE);
                return new InetSocketAddress(InetAddress.getByAddress(a), port);
            }
            if (family == RdmaCmAbi.AF_INET6) {
                byte[] a = s.asSlice(RdmaCmAbi.SIN6_ADDR, 16).toArray(ValueLayout.JAVA_BYTE);
                int scope = s.get(ValueLayout.JAVA_INT, RdmaCmAbi.SIN6_SCOPE_ID);
                return new InetSocketAddress(Inet6Address.getByAddress(null, a, scope), port);
            }
        } catch (UnknownHostException e) {
            throw new IllegalStateException(e); // only for a wrong length, which the slices rule out
        }
        return null;
    }

    /** The local address of an rdma_cm_id. */
    static InetSocketAddress local(MemorySegment id) {
        return read(id.asSlice(RdmaCmAbi.ID_SRC_ADDR, RdmaCmAbi.SOCKADDR_STORAGE_BYTES));
    }

    /** The peer address of an rdma_cm_id. */
    static InetSocketAddress peer(MemorySegment id) {
        return read(id.asSlice(RdmaCmAbi.ID_DST_ADDR, RdmaCmAbi.SOCKADDR_STORAGE_BYTES));
    }
}
