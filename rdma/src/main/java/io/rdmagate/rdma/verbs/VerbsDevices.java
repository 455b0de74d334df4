package io.rdmagate.rdma.verbs;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;

/**
 * The host's RDMA devices as libibverbs sees them: {@code ibv_get_device_list}, then for each
 * device {@code ibv_open_device}, {@code ibv_query_device}, {@code ibv_query_port} per port and
 * the port's GID table ({@code _ibv_query_gid_ex} where the library has it, for each GID's type
 * and network device; else {@code ibv_query_gid}), and {@code ibv_close_device}. What
 * {@code rdmagate rdma devices} prints, and what the verbs provider chooses a device from.
 */
public final class VerbsDevices {
    private static final String[] NODE_TYPES = {"UNKNOWN", "?", "CA", "SWITCH", "ROUTER", "RNIC", "USNIC", "USNIC_UDP",
        "UNSPECIFIED"};
    private static final String[] TRANSPORTS = {"UNKNOWN", "InfiniBand", "iWARP", "usNIC", "usNIC UDP", "unspecified"};
    private static final String[] PORT_STATES = {"NOP", "DOWN", "INIT", "ARMED", "ACTIVE", "ACTIVE_DEFER"};
    private static final String[] GID_TYPES = {"IB", "RoCE v1", "RoCE v2"};
    private static final int ENOSYS = 38;
    private static final int ENODEV = 19;
    private static final int ENOMEM = 12;
    private static final int EPERM = 1;

    private VerbsDevices() {
    }

    /**
     * Every device the library lists; an empty list when the kernel has RDMA support but no device.
     *
     * @throws VerbsUnavailableException no library, an unsupported platform, or a kernel without RDMA
     *         support ({@code ib_uverbs} not loaded)
     */
    public static List<VerbsDeviceInfo> list() throws VerbsUnavailableException {
        return list(PROBE_BYTES);
    }

    /** The size of the test registration: one slab of the default I/O pool. */
    public static final long PROBE_BYTES = 4L << 20;

    /** {@link #list()} with a test registration of {@code probeBytes} on each device. */
    public static List<VerbsDeviceInfo> list(long probeBytes) throws VerbsUnavailableException {
        Libibverbs ib = Libibverbs.get();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment errno = Libibverbs.errnoBuffer(arena);
            MemorySegment count = arena.allocate(ValueLayout.JAVA_INT);
            MemorySegment list = (MemorySegment) ib.getDeviceList.invokeExact(errno, count);
            if (list.equals(MemorySegment.NULL)) {
                int e = Libibverbs.errno(errno);
                if (e == ENOSYS || e == ENODEV) {
                    throw new VerbsUnavailableException("the kernel offers no RDMA (ibv_get_device_list: errno " + e
                            + "): no /sys/class/infiniband_verbs; load ib_uverbs and a device driver (rdma_rxe, siw, mlx5_ib, ...)");
                }
                throw new VerbsUnavailableException("ibv_get_device_list failed: errno " + e);
            }
            try {
                int n = count.get(ValueLayout.JAVA_INT, 0);
                MemorySegment devices = list.reinterpret((long) n * ValueLayout.ADDRESS.byteSize());
                List<VerbsDeviceInfo> out = new ArrayList<>(n);
                for (int i = 0; i < n; i++) {
                    out.add(describe(ib, arena, errno, devices.getAtIndex(ValueLayout.ADDRESS, i), probeBytes));
                }
                return out;
            } finally {
                ib.freeDeviceList.invokeExact(errno, list);
            }
        } catch (VerbsUnavailableException e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException("libibverbs call failed", t);
        }
    }

    private static VerbsDeviceInfo describe(Libibverbs ib, Arena arena, MemorySegment errno, MemorySegment deviceAddress,
            long probeBytes) throws Throwable {
        MemorySegment device = deviceAddress.reinterpret(IbvAbi.DEVICE_NAME + IbvAbi.DEVICE_NAME_BYTES);
        String name = cString(device, IbvAbi.DEVICE_NAME, IbvAbi.DEVICE_NAME_BYTES);
        int nodeType = device.get(ValueLayout.JAVA_INT, IbvAbi.DEVICE_NODE_TYPE);
        int transport = device.get(ValueLayout.JAVA_INT, IbvAbi.DEVICE_TRANSPORT_TYPE);
        MemorySegment context = (MemorySegment) ib.openDevice.invokeExact(errno, deviceAddress);
        if (context.equals(MemorySegment.NULL)) {
            throw new VerbsUnavailableException("ibv_open_device(" + name + ") failed: errno " + Libibverbs.errno(errno)
                    + " (is /dev/infiniband/uverbs* readable by this user?)");
        }
        try {
            MemorySegment attr = arena.allocate(IbvAbi.FILL_BYTES, 8);
            int rc = (int) ib.queryDevice.invokeExact(errno, context, attr);
            if (rc != 0) {
                throw new VerbsUnavailableException("ibv_query_device(" + name + ") failed: " + rc);
            }
            int portCount = Byte.toUnsignedInt(attr.get(ValueLayout.JAVA_BYTE, IbvAbi.ATTR_PHYS_PORT_CNT));
            List<VerbsDeviceInfo.Port> ports = new ArrayList<>(portCount);
            for (int p = 1; p <= portCount; p++) {
                ports.add(port(ib, arena, errno, context, name, p));
            }
            return new VerbsDeviceInfo(name, label(TRANSPORTS, transport + 1), label(NODE_TYPES, nodeType + 1),
                    cString(attr, IbvAbi.ATTR_FW_VER, IbvAbi.ATTR_FW_VER_BYTES),
                    guid(attr.get(ValueLayout.JAVA_LONG, IbvAbi.ATTR_NODE_GUID)),
                    attr.get(ValueLayout.JAVA_LONG, IbvAbi.ATTR_MAX_MR_SIZE),
                    attr.get(ValueLayout.JAVA_INT, IbvAbi.ATTR_MAX_MR), attr.get(ValueLayout.JAVA_INT, IbvAbi.ATTR_MAX_PD),
                    attr.get(ValueLayout.JAVA_INT, IbvAbi.ATTR_MAX_QP), attr.get(ValueLayout.JAVA_INT, IbvAbi.ATTR_MAX_QP_WR),
                    attr.get(ValueLayout.JAVA_INT, IbvAbi.ATTR_MAX_SGE), attr.get(ValueLayout.JAVA_INT, IbvAbi.ATTR_MAX_SGE_RD),
                    attr.get(ValueLayout.JAVA_INT, IbvAbi.ATTR_MAX_CQ), attr.get(ValueLayout.JAVA_INT, IbvAbi.ATTR_MAX_CQE),
                    attr.get(ValueLayout.JAVA_INT, IbvAbi.ATTR_MAX_QP_RD_ATOM),
                    attr.get(ValueLayout.JAVA_INT, IbvAbi.ATTR_MAX_QP_INIT_RD_ATOM),
                    attr.get(ValueLayout.JAVA_INT, IbvAbi.ATTR_MAX_SRQ), List.copyOf(ports),
                    register(ib, errno, context, probeBytes));
        } finally {
            int rc = (int) ib.closeDevice.invokeExact(errno, context);
            assert rc == 0 : "ibv_close_device " + rc;
        }
    }

    /**
     * Registers {@code bytes} of fresh page-aligned memory in a new protection domain with local
     * write and remote read and write, as the gateway registers its pool's slabs, and undoes it.
     * The usual refusal is the locked-memory limit (ENOMEM, or EPERM without CAP_IPC_LOCK).
     */
    private static VerbsDeviceInfo.Registration register(Libibverbs ib, MemorySegment errno, MemorySegment context,
            long bytes) throws Throwable {
        MemorySegment pd = (MemorySegment) ib.allocPd.invokeExact(errno, context);
        if (pd.equals(MemorySegment.NULL)) {
            return new VerbsDeviceInfo.Registration(bytes, false, "ibv_alloc_pd failed: errno " + Libibverbs.errno(errno));
        }
        try (Arena memory = Arena.ofConfined()) {
            MemorySegment m = memory.allocate(bytes, 4096);
            MemorySegment mr = (MemorySegment) ib.regMr.invokeExact(errno, pd, m, bytes,
                    IbvAbi.ACCESS_LOCAL_WRITE | IbvAbi.ACCESS_REMOTE_READ | IbvAbi.ACCESS_REMOTE_WRITE);
            if (mr.equals(MemorySegment.NULL)) {
                int e = Libibverbs.errno(errno);
                return new VerbsDeviceInfo.Registration(bytes, false, "ibv_reg_mr failed: errno " + e
                        + (e == ENOMEM || e == EPERM ? "; " + memlockAdvice() : ""));
            }
            MemorySegment fields = mr.reinterpret(IbvAbi.MR_BYTES);
            String keys = String.format("lkey 0x%x, rkey 0x%x", fields.get(ValueLayout.JAVA_INT, IbvAbi.MR_LKEY),
                    fields.get(ValueLayout.JAVA_INT, IbvAbi.MR_RKEY));
            int rc = (int) ib.deregMr.invokeExact(errno, mr);
            return new VerbsDeviceInfo.Registration(bytes, rc == 0, rc == 0 ? keys : keys + "; ibv_dereg_mr failed: " + rc);
        } finally {
            int rc = (int) ib.deallocPd.invokeExact(errno, pd);
            assert rc == 0 : "ibv_dealloc_pd " + rc;
        }
    }

    /** The process's locked-memory limit, and how to raise it. */
    static String memlockAdvice() {
        String limit = "unknown";
        try {
            for (String line : java.nio.file.Files.readAllLines(java.nio.file.Path.of("/proc/self/limits"))) {
                if (line.startsWith("Max locked memory")) {
                    limit = line.substring("Max locked memory".length()).strip().replaceAll("\\s+", " ");
                }
            }
        } catch (java.io.IOException e) {
            // keep "unknown"
        }
        return "the locked-memory limit (soft, hard, unit) is " + limit + ": registered memory counts against it;"
                + " raise it (ulimit -l unlimited; LimitMEMLOCK=infinity in a systemd unit; --ulimit memlock=-1 for"
                + " a container) or run with CAP_IPC_LOCK";
    }

    private static VerbsDeviceInfo.Port port(Libibverbs ib, Arena arena, MemorySegment errno, MemorySegment context,
            String device, int number) throws Throwable {
        MemorySegment attr = arena.allocate(IbvAbi.FILL_BYTES, 8);
        int rc = (int) ib.queryPort.invokeExact(errno, context, (byte) number, attr);
        if (rc != 0) {
            throw new VerbsUnavailableException("ibv_query_port(" + device + ", " + number + ") failed: " + rc);
        }
        int linkLayer = Byte.toUnsignedInt(attr.get(ValueLayout.JAVA_BYTE, IbvAbi.PORT_LINK_LAYER));
        int gidTable = attr.get(ValueLayout.JAVA_INT, IbvAbi.PORT_GID_TBL_LEN);
        List<VerbsDeviceInfo.Gid> gids = new ArrayList<>();
        MemorySegment entry = arena.allocate(IbvAbi.FILL_BYTES, 8);
        for (int i = 0; i < Math.min(gidTable, 4096); i++) {
            gid(ib, errno, context, number, i, entry).ifPresent(gids::add);
        }
        return new VerbsDeviceInfo.Port(number, label(PORT_STATES, attr.get(ValueLayout.JAVA_INT, IbvAbi.PORT_STATE)),
                linkLayer == 2 ? "Ethernet" : "InfiniBand", mtu(attr.get(ValueLayout.JAVA_INT, IbvAbi.PORT_ACTIVE_MTU)),
                mtu(attr.get(ValueLayout.JAVA_INT, IbvAbi.PORT_MAX_MTU)),
                Integer.toUnsignedLong(attr.get(ValueLayout.JAVA_INT, IbvAbi.PORT_MAX_MSG_SZ)),
                Short.toUnsignedInt(attr.get(ValueLayout.JAVA_SHORT, IbvAbi.PORT_LID)), List.copyOf(gids));
    }

    /** Entry {@code index} of the port's GID table; empty when unused (all zero) or not readable. */
    private static Optional<VerbsDeviceInfo.Gid> gid(Libibverbs ib, MemorySegment errno, MemorySegment context, int port,
            int index, MemorySegment entry) throws Throwable {
        entry.fill((byte) 0);
        String type = "";
        String netdev = "";
        boolean read = false;
        if (ib.queryGidEx.isPresent()) {
            int rc = (int) ib.queryGidEx.get().invokeExact(context, port, index, entry, 0, IbvAbi.GID_ENTRY_BYTES);
            if (rc == 0) {
                read = true;
                type = label(GID_TYPES, entry.get(ValueLayout.JAVA_INT, IbvAbi.GID_ENTRY_TYPE));
                int ifindex = entry.get(ValueLayout.JAVA_INT, IbvAbi.GID_ENTRY_IFINDEX);
                netdev = ifindex > 0 ? interfaceName(ifindex) : "";
            }
        }
        if (!read) {
            // iWARP devices keep no GID cache for the _ex call; older libraries lack it
            int rc = (int) ib.queryGid.invokeExact(errno, context, (byte) port, index, entry);
            if (rc != 0) {
                return Optional.empty();
            }
        }
        byte[] raw = entry.asSlice(0, IbvAbi.GID_BYTES).toArray(ValueLayout.JAVA_BYTE);
        boolean zero = true;
        for (byte b : raw) {
            zero &= b == 0;
        }
        if (zero) {
            return Optional.empty();
        }
        return Optional.of(new VerbsDeviceInfo.Gid(index, gidText(raw), type, netdev, ipv4(raw)));
    }

    /** The sysfs form: eight groups of four hex digits. */
    static String gidText(byte[] raw) {
        StringBuilder b = new StringBuilder(39);
        for (int i = 0; i < 16; i += 2) {
            if (i > 0) {
                b.append(':');
            }
            b.append(HexFormat.of().toHexDigits(raw[i])).append(HexFormat.of().toHexDigits(raw[i + 1]));
        }
        return b.toString();
    }

    /** {@code a.b.c.d} of an IPv4-mapped GID ({@code ::ffff:a.b.c.d}, RFC 4291 2.5.5.2), else empty. */
    static String ipv4(byte[] raw) {
        for (int i = 0; i < 10; i++) {
            if (raw[i] != 0) {
                return "";
            }
        }
        if (raw[10] != (byte) 0xff || raw[11] != (byte) 0xff) {
            return "";
        }
        return Byte.toUnsignedInt(raw[12]) + "." + Byte.toUnsignedInt(raw[13]) + "." + Byte.toUnsignedInt(raw[14]) + "."
                + Byte.toUnsignedInt(raw[15]);
    }

    /** node_guid as sysfs writes it: the 64-bit value in network order, four groups of four hex digits. */
    static String guid(long rawNetworkOrder) {
        String hex = HexFormat.of().toHexDigits(Long.reverseBytes(rawNetworkOrder));
        return hex.substring(0, 4) + ":" + hex.substring(4, 8) + ":" + hex.substring(8, 12) + ":" + hex.substring(12, 16);
    }

    /** enum ibv_mtu (1 = 256 ... 5 = 4096) in bytes; 0 when not one of those. */
    static int mtu(int ibvMtu) {
        return ibvMtu >= 1 && ibvMtu <= 5 ? 128 << ibvMtu : 0;
    }

    private static String label(String[] names, int index) {
        return index >= 0 && index < names.length ? names[index] : "(" + index + ")";
    }

    private static String interfaceName(int ifindex) {
        try {
            NetworkInterface n = NetworkInterface.getByIndex(ifindex);
            return n == null ? "ifindex " + ifindex : n.getName();
        } catch (SocketException e) {
            return "ifindex " + ifindex;
        }
    }

    private static String cString(MemorySegment s, long offset, int max) {
        byte[] b = s.asSlice(offset, max).toArray(ValueLayout.JAVA_BYTE);
        int n = 0;
        while (n < b.length && b[n] != 0) {
            n++;
        }
        return new String(b, 0, n, StandardCharsets.US_ASCII);
    }
}
