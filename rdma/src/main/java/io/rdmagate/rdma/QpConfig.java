package io.rdmagate.rdma;

/**
 * How to build the queue pair of a connection.
 *
 * @param ird inbound RDMA Reads to allow (responder resources)
 * @param ord outbound RDMA Reads wanted (initiator depth)
 */
public record QpConfig(ProtectionDomain pd, CompletionQueue sendCq, CompletionQueue recvCq, int maxSendWr,
        int maxRecvWr, int maxSge, int ird, int ord, ConnectionEvents events) {
}
