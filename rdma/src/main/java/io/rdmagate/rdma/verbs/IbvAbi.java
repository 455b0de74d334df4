package io.rdmagate.rdma.verbs;

import java.lang.foreign.ValueLayout;
import java.util.Locale;

/**
 * Where the fields of libibverbs' public structures lie, for the one layout this build supports:
 * LP64 Linux (x86_64 or aarch64) with the ABI {@code IBVERBS_1.1} that rdma-core has kept since
 * release 17 (Debian 12 ships rdma-core 44, whose {@code <infiniband/verbs.h>} these offsets were
 * checked against: a C program compiled with those headers printed every {@code offsetof},
 * {@code sizeof} and enum value used here). Only the fields read or written here are named; a
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
    static final long CONTEXT_OPS_BYTES = 256;

    // struct ibv_context_ops (256 bytes, at CONTEXT_OPS): the entries rdma-core still fills (the others are
    // _compat_ placeholders); verbs.h reaches them from its static inline ibv_poll_cq, ibv_req_notify_cq,
    // ibv_post_send and ibv_post_recv through cq->context->ops and qp->context->ops
    static final long OPS_POLL_CQ = 88;
    static final long OPS_REQ_NOTIFY_CQ = 96;
    static final long OPS_POST_SEND = 200;
    static final long OPS_POST_RECV = 208;

    // struct ibv_pd (16 bytes): context, handle
    static final long PD_CONTEXT = 0;

    // struct ibv_comp_channel (16 bytes): context, fd, refcnt
    static final long COMP_CHANNEL_FD = 8;
    static final long COMP_CHANNEL_BYTES = 16;

    // struct ibv_cq (128 bytes): context, channel, cq_context, handle, cqe, ...
    static final long CQ_CONTEXT = 0;
    static final long CQ_CQE = 28;
    static final long CQ_BYTES = 128;

    // struct ibv_qp (160 bytes): context, qp_context, pd, send_cq, recv_cq, srq, handle, qp_num, state, qp_type
    static final long QP_CONTEXT = 0;
    static final long QP_NUM = 52;
    static final long QP_STATE = 56;
    static final long QP_BYTES = 160;

    // struct ibv_qp_init_attr (64 bytes); cap is struct ibv_qp_cap at 32
    static final long QP_INIT_SEND_CQ = 8;
    static final long QP_INIT_RECV_CQ = 16;
    static final long QP_INIT_SRQ = 24;
    static final long QP_INIT_MAX_SEND_WR = 32;
    static final long QP_INIT_MAX_RECV_WR = 36;
    static final long QP_INIT_MAX_SEND_SGE = 40;
    static final long QP_INIT_MAX_RECV_SGE = 44;
    static final long QP_INIT_MAX_INLINE_DATA = 48;
    static final long QP_INIT_QP_TYPE = 52;
    static final long QP_INIT_SQ_SIG_ALL = 56;
    static final long QP_INIT_BYTES = 64;

    // struct ibv_qp_attr (144 bytes): qp_state first
    static final long QP_ATTR_QP_STATE = 0;
    static final long QP_ATTR_BYTES = 144;

    // struct ibv_send_wr (128 bytes); the wr union at 40, its rdma member: remote_addr, rkey
    static final long SEND_WR_BYTES = 128;
    static final long SEND_WR_ID = 0;
    static final long SEND_WR_NEXT = 8;
    static final long SEND_WR_SG_LIST = 16;
    static final long SEND_WR_NUM_SGE = 24;
    static final long SEND_WR_OPCODE = 28;
    static final long SEND_WR_SEND_FLAGS = 32;
    /** The union of imm_data and invalidate_rkey. */
    static final long SEND_WR_INVALIDATE_RKEY = 36;
    static final long SEND_WR_RDMA_REMOTE_ADDR = 40;
    static final long SEND_WR_RDMA_RKEY = 48;

    // struct ibv_recv_wr (32 bytes)
    static final long RECV_WR_BYTES = 32;
    static final long RECV_WR_ID = 0;
    static final long RECV_WR_NEXT = 8;
    static final long RECV_WR_SG_LIST = 16;
    static final long RECV_WR_NUM_SGE = 24;

    // struct ibv_sge (16 bytes)
    static final long SGE_BYTES = 16;
    static final long SGE_ADDR = 0;
    static final long SGE_LENGTH = 8;
    static final long SGE_LKEY = 12;

    // struct ibv_wc (48 bytes)
    static final long WC_BYTES = 48;
    static final long WC_WR_ID = 0;
    static final long WC_STATUS = 8;
    static final long WC_OPCODE = 12;
    static final long WC_VENDOR_ERR = 16;
    static final long WC_BYTE_LEN = 20;
    /** The union of imm_data and invalidated_rkey. */
    static final long WC_INVALIDATED_RKEY = 24;
    static final long WC_QP_NUM = 28;
    static final long WC_WC_FLAGS = 36;

    // enum ibv_wr_opcode, enum ibv_send_flags
    static final int WR_RDMA_WRITE = 0;
    static final int WR_SEND = 2;
    static final int WR_RDMA_READ = 4;
    static final int WR_SEND_WITH_INV = 9;
    static final int SEND_SIGNALED = 2;
    static final int SEND_SOLICITED = 4;

    // enum ibv_wc_flags
    static final int WC_WITH_INV = 8;

    // enum ibv_wc_status: the ones mapped one to one; the rest are fatal
    static final int WC_SUCCESS = 0;
    static final int WC_LOC_LEN_ERR = 1;
    static final int WC_LOC_QP_OP_ERR = 2;
    static final int WC_LOC_PROT_ERR = 4;
    static final int WC_WR_FLUSH_ERR = 5;
    static final int WC_MW_BIND_ERR = 6;
    static final int WC_LOC_ACCESS_ERR = 8;
    static final int WC_REM_INV_REQ_ERR = 9;
    static final int WC_REM_ACCESS_ERR = 10;
    static final int WC_REM_OP_ERR = 11;
    static final int WC_RETRY_EXC_ERR = 12;
    static final int WC_RNR_RETRY_EXC_ERR = 13;
    static final int WC_REM_INV_RD_REQ_ERR = 15;

    // enum ibv_qp_type, enum ibv_qp_state, enum ibv_qp_attr_mask
    static final int QPT_RC = 2;
    static final int QPS_ERR = 6;
    static final int QP_STATE_MASK = 1;

    // enum ibv_transport_type, enum ibv_link_layer (ibv_port_attr.link_layer)
    static final int TRANSPORT_IB = 0;
    static final int TRANSPORT_IWARP = 1;
    static final int LINK_LAYER_ETHERNET = 2;

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
    static final long ATTR_DEVICE_CAP_FLAGS = 116;
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
    /** IBV_DEVICE_MEM_MGT_EXTENSIONS in device_cap_flags: Send with Invalidate, fast registration. */
    static final int DEVICE_MEM_MGT_EXTENSIONS = 1 << 21;
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
