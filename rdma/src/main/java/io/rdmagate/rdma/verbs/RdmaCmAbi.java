package io.rdmagate.rdma.verbs;

/**
 * Where the fields of librdmacm's public structures lie ({@code <rdma/rdma_cma.h>}, rdma-core 44,
 * LP64 Linux; checked as {@link IbvAbi} is: {@code offsetof}, {@code sizeof} and the enum values
 * printed by a C program compiled with those headers), and the socket address layouts
 * ({@code <netinet/in.h>}) that {@code rdma_bind_addr} and {@code rdma_resolve_addr} take. The
 * structures are allocated by the library; only the fields read or written here are named.
 */
final class RdmaCmAbi {
    // struct rdma_event_channel (4 bytes): the fd rdma_get_cm_event reads
    static final long CHANNEL_FD = 0;
    static final long CHANNEL_BYTES = 4;

    // struct rdma_cm_id (416 bytes): verbs, channel, context, qp, route (route.addr.src_addr at 32,
    // dst_addr at 160: two unions of struct sockaddr_storage), ps, port_num, ...
    static final long ID_VERBS = 0;
    static final long ID_CHANNEL = 8;
    static final long ID_CONTEXT = 16;
    static final long ID_QP = 24;
    static final long ID_SRC_ADDR = 32;
    static final long ID_DST_ADDR = 160;
    static final long ID_PORT_NUM = 348;
    static final long ID_BYTES = 416;

    // struct rdma_cm_event (80 bytes): id, listen_id, event, status, param (conn at 24)
    static final long EVENT_ID = 0;
    static final long EVENT_LISTEN_ID = 8;
    static final long EVENT_TYPE = 16;
    static final long EVENT_STATUS = 20;
    static final long EVENT_CONN = 24;
    static final long EVENT_BYTES = 80;

    // struct rdma_conn_param (24 bytes)
    static final long CONN_PRIVATE_DATA = 0;
    static final long CONN_PRIVATE_DATA_LEN = 8;
    static final long CONN_RESPONDER_RESOURCES = 9;
    static final long CONN_INITIATOR_DEPTH = 10;
    static final long CONN_FLOW_CONTROL = 11;
    static final long CONN_RETRY_COUNT = 12;
    static final long CONN_RNR_RETRY_COUNT = 13;
    static final long CONN_SRQ = 14;
    static final long CONN_QP_NUM = 16;
    static final long CONN_BYTES = 24;

    /** The private data buffer behind an event (struct cma_event.private_data, RDMA_MAX_PRIVATE_DATA). */
    static final int MAX_PRIVATE_DATA = 256;

    // enum rdma_port_space
    static final int PS_TCP = 0x0106;

    // enum rdma_cm_event_type
    static final int ADDR_RESOLVED = 0;
    static final int ADDR_ERROR = 1;
    static final int ROUTE_RESOLVED = 2;
    static final int ROUTE_ERROR = 3;
    static final int CONNECT_REQUEST = 4;
    static final int CONNECT_RESPONSE = 5;
    static final int CONNECT_ERROR = 6;
    static final int UNREACHABLE = 7;
    static final int REJECTED = 8;
    static final int ESTABLISHED = 9;
    static final int DISCONNECTED = 10;
    static final int DEVICE_REMOVAL = 11;
    static final int MULTICAST_JOIN = 12;
    static final int MULTICAST_ERROR = 13;
    static final int ADDR_CHANGE = 14;
    static final int TIMEWAIT_EXIT = 15;

    private static final String[] EVENT_NAMES = {"ADDR_RESOLVED", "ADDR_ERROR", "ROUTE_RESOLVED", "ROUTE_ERROR",
        "CONNECT_REQUEST", "CONNECT_RESPONSE", "CONNECT_ERROR", "UNREACHABLE", "REJECTED", "ESTABLISHED",
        "DISCONNECTED", "DEVICE_REMOVAL", "MULTICAST_JOIN", "MULTICAST_ERROR", "ADDR_CHANGE", "TIMEWAIT_EXIT"};

    // struct sockaddr_in (16 bytes), struct sockaddr_in6 (28 bytes); sockaddr_storage is 128
    static final short AF_INET = 2;
    static final short AF_INET6 = 10;
    static final long SA_FAMILY = 0;
    static final long SA_PORT = 2;
    static final long SIN_ADDR = 4;
    static final long SIN6_FLOWINFO = 4;
    static final long SIN6_ADDR = 8;
    static final long SIN6_SCOPE_ID = 24;
    static final long SOCKADDR_STORAGE_BYTES = 128;

    private RdmaCmAbi() {
    }

    /** RDMA_CM_EVENT_ without the prefix, for messages. */
    static String eventName(int type) {
        return type >= 0 && type < EVENT_NAMES.length ? EVENT_NAMES[type] : "event " + type;
    }
}
