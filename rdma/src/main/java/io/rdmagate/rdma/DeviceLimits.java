package io.rdmagate.rdma;

/**
 * What a device can do (ibv_device_attr, the parts the protocols need).
 *
 * @param maxSendWr           outstanding send work requests per queue pair
 * @param maxRecvWr           outstanding receive work requests per queue pair
 * @param maxSge              scatter/gather entries per work request
 * @param maxInboundReads     IRD: RDMA Reads a peer may have outstanding against one queue pair
 * @param maxOutboundReads    ORD: RDMA Reads one queue pair may have outstanding
 * @param maxMessageBytes     largest message of any operation
 * @param maxPrivateDataBytes connection private data in a connect, accept or reject
 */
public record DeviceLimits(
        int maxSendWr,
        int maxRecvWr,
        int maxSge,
        int maxInboundReads,
        int maxOutboundReads,
        long maxMessageBytes,
        int maxPrivateDataBytes) {
}
