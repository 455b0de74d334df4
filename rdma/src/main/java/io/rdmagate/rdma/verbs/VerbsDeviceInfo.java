package io.rdmagate.rdma.verbs;

import java.util.List;

/**
 * What {@code ibv_query_device}, {@code ibv_query_port} and the GID table say of one RDMA device
 * (the figures {@code ibv_devinfo -v} prints), as {@link VerbsDevices#list()} reads them.
 *
 * @param name          the kernel's name ({@code mlx5_0}, {@code rxe0}, {@code siw0})
 * @param transport     {@code InfiniBand} (InfiniBand and RoCE) or {@code iWARP}
 * @param nodeType      {@code CA} or {@code RNIC}, ...
 * @param firmware      fw_ver, empty when the device has none
 * @param nodeGuid      node_guid as {@code ibv_devinfo} and sysfs write it ({@code 5054:00ff:fe12:3456})
 * @param maxMrSize     largest memory region, bytes
 * @param maxMr         memory regions
 * @param maxPd         protection domains
 * @param maxQp         queue pairs
 * @param maxQpWr       work requests per queue
 * @param maxSge        scatter/gather entries per work request
 * @param maxSgeRd      scatter/gather entries per RDMA Read
 * @param maxCq         completion queues
 * @param maxCqe        entries per completion queue
 * @param maxQpRdAtom   RDMA Reads a queue pair takes from its peer at once (IRD)
 * @param maxQpInitRdAtom RDMA Reads a queue pair issues at once (ORD)
 * @param maxSrq        shared receive queues (0: none)
 * @param ports         its ports, numbered from 1
 * @param registration  what registering memory as the gateway does (a protection domain, one slab of
 *                      the I/O pool with local write and remote read and write) gave
 */
public record VerbsDeviceInfo(
        String name, String transport, String nodeType, String firmware, String nodeGuid, long maxMrSize, int maxMr,
        int maxPd, int maxQp, int maxQpWr, int maxSge, int maxSgeRd, int maxCq, int maxCqe, int maxQpRdAtom,
        int maxQpInitRdAtom, int maxSrq, List<Port> ports, Registration registration) {

    /**
     * A test registration.
     *
     * @param bytes  how much was registered
     * @param ok     whether {@code ibv_reg_mr} took it
     * @param detail the keys it gave, or why it refused (with what to change when it is the
     *               locked-memory limit)
     */
    public record Registration(long bytes, boolean ok, String detail) {
    }

    /**
     * One port.
     *
     * @param number    from 1
     * @param state     {@code ACTIVE}, {@code DOWN}, ...
     * @param linkLayer {@code InfiniBand} or {@code Ethernet}
     * @param activeMtu bytes (256-4096)
     * @param maxMtu    bytes
     * @param maxMessage largest message, bytes
     * @param lid       the InfiniBand LID (0 on Ethernet)
     * @param gids      the GID table's entries in use
     */
    public record Port(int number, String state, String linkLayer, int activeMtu, int maxMtu, long maxMessage, int lid,
            List<Gid> gids) {
        public boolean active() {
            return state.equals("ACTIVE");
        }
    }

    /**
     * One GID table entry.
     *
     * @param index   its index in the table
     * @param gid     as sysfs and {@code show_gids} write it ({@code fe80:0000:0000:0000:5054:00ff:fe12:3456})
     * @param type    {@code IB}, {@code RoCE v1}, {@code RoCE v2}, or empty when the library does not say
     * @param netdev  the network device the GID belongs to (RoCE), empty when none or not known
     * @param ipv4    the IPv4 address of an IPv4-mapped GID ({@code ::ffff:a.b.c.d}), else empty
     */
    public record Gid(int index, String gid, String type, String netdev, String ipv4) {
    }
}
