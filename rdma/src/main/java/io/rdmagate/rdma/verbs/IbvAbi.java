package io.rdmagate.rdma.verbs;

import java.lang.foreign.ValueLayout;
import java.util.Locale;

/**
 * Where the fields of libibverbs' public structures lie, for the one layout this build supports:
 * LP64 Linux (x86_64 or aarch64) with the ABI {@code IBVERBS_1.1} that rdma-core has kept since
 * release 17 (Debian 12 ships rdma-core 44, whose {@code <infiniband/verbs.h>} these offsets were
 * checked against with {@code offsetof}). Only the fields read or written here are named; a
 * buffer handed to the library for it to fill is allocated larger than the structure
 * ({@link #FILL_BYTES}), so a newer library that writes more (rdma-core appends fields) never
 * writes past it. {@link #check()} refuses any other platform with a message.
 */
final class IbvAbi {
    /** What a structure the library fills is given: more than any of them. */
    static final long FILL_BYTES = 512;

    // struct ibv_device
    static final long DEVICE_NODE_TYPE = 16;
    static final long DEVICE_TRANSPORT_TYPE = 20;
    static final long DEVICE_NAME = 24;
    static final int DEVICE_NAME_BYTES = 64;

    // struct ibv_context: the device, then the ops table the static inline post/poll calls go through
    static final long CONTEXT_DEVICE = 0;
    static final long CONTEXT_OPS = 8;

    // struct ibv_device_attr (232 bytes)
    static final long ATTR_FW_VER = 0;
    static final int ATTR_FW_VER_BYTES = 64;
    static final long ATTR_NODE_GUID = 64;
    static final long ATTR_MAX_MR_SIZE = 80;
    static final long ATTR_VENDOR_ID = 96;
    static final long ATTR_VENDOR_PART_ID = 100;
    static final long ATTR_HW_VER = 104;
    static final long ATTR_MAX_QP = 108;
    static final long ATTR_MAX_QP_WR = 112;
    static final long ATTR_MAX_SGE = 120;
    static final long ATTR_MAX_SGE_RD = 124;
    static final long ATTR_MAX_CQ = 128;
    static final long ATTR_MAX_CQE = 132;
    static final long ATTR_MAX_MR = 136;
    static final long ATTR_MAX_PD = 140;
    static final long ATTR_MAX_QP_RD_ATOM = 144;
    static final long ATTR_MAX_QP_INIT_RD_ATOM = 156;
    static final long ATTR_MAX_SRQ = 212;
    static final long ATTR_MAX_SRQ_WR = 216;
    static final long ATTR_PHYS_PORT_CNT = 227;

    // struct ibv_port_attr (52 bytes in rdma-core 44)
    static final long PORT_STATE = 0;
    static final long PORT_MAX_MTU = 4;
    static final long PORT_ACTIVE_MTU = 8;
    static final long PORT_GID_TBL_LEN = 12;
    static final long PORT_MAX_MSG_SZ = 20;
    static final long PORT_LID = 34;
    static final long PORT_LINK_LAYER = 46;

    // struct ibv_mr (48 bytes): context, pd, addr, length, handle, lkey, rkey
    static final long MR_LKEY = 36;
    static final long MR_RKEY = 40;
    static final long MR_BYTES = 48;

    // enum ibv_access_flags
    static final int ACCESS_LOCAL_WRITE = 1;
    static final int ACCESS_REMOTE_WRITE = 2;
    static final int ACCESS_REMOTE_READ = 4;

    // struct ibv_gid_entry (32 bytes): gid[16], gid_index, port_num, gid_type, ndev_ifindex
    static final long GID_ENTRY_BYTES = 32;
    static final long GID_ENTRY_TYPE = 24;
    static final long GID_ENTRY_IFINDEX = 28;
    static final int GID_BYTES = 16;

    private IbvAbi() {
    }

    /** Refuses a platform whose layout differs from the one above. */
    static void check() throws VerbsUnavailableException {
        String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
        String arch = System.getProperty("os.arch", "");
        if (!os.contains("linux") || ValueLayout.ADDRESS.byteSize() != 8
                || !(arch.equals("amd64") || arch.equals("x86_64") || arch.equals("aarch64"))) {
            throw new VerbsUnavailableException("the verbs provider supports LP64 Linux on x86_64 and aarch64 (libibverbs"
                    + " ABI IBVERBS_1.1, rdma-core 17 or newer); this is " + os + " on " + arch);
        }
    }
}
