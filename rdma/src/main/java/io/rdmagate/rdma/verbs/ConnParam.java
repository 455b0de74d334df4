package io.rdmagate.rdma.verbs;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * A {@code struct rdma_conn_param} for {@code rdma_connect} and {@code rdma_accept} (man
 * rdma_connect, rdma_accept: CONNECTION PROPERTIES).
 *
 * <p>Retries: transport retries 7 (the most the 3-bit field holds; rping's choice); receiver-not-ready
 * retries {@value #RNR_RETRY_COUNT}, the number of times the <em>peer</em> retries a Send we have no
 * receive for (man rdma_connect: "a send operation from the remote peer"). Zero makes a Send that
 * finds no receive fail the connection at once, as it does on iWARP and in the SPI's contract
 * ({@link io.rdmagate.rdma.WcStatus#REMOTE_OPERATION_ERROR}), and as Linux's NFS/RDMA client asks
 * of its servers (xprtrdma sets rnr_retry_count 0 "to make all RNR NAKs visible"): the upper
 * protocols post receives ahead by credit.
 */
final class ConnParam {
    static final int RETRY_COUNT = 7;
    static final int RNR_RETRY_COUNT = 0;

    private ConnParam() {
    }

    /** The parameters in {@code arena}: private data copied there, IRD as responder resources, ORD as initiator depth. */
    static MemorySegment of(Arena arena, byte[] privateData, int ird, int ord) {
        MemorySegment p = arena.allocate(RdmaCmAbi.CONN_BYTES, 8);
        if (privateData.length > 0) {
            MemorySegment data = arena.allocate(privateData.length, 8);
            MemorySegment.copy(privateData, 0, data, ValueLayout.JAVA_BYTE, 0, privateData.length);
            p.set(ValueLayout.ADDRESS, RdmaCmAbi.CONN_PRIVATE_DATA, data);
        }
        p.set(ValueLayout.JAVA_BYTE, RdmaCmAbi.CONN_PRIVATE_DATA_LEN, (byte) privateData.length);
        p.set(ValueLayout.JAVA_BYTE, RdmaCmAbi.CONN_RESPONDER_RESOURCES, (byte) ird);
        p.set(ValueLayout.JAVA_BYTE, RdmaCmAbi.CONN_INITIATOR_DEPTH, (byte) ord);
        p.set(ValueLayout.JAVA_BYTE, RdmaCmAbi.CONN_FLOW_CONTROL, (byte) 0);
        p.set(ValueLayout.JAVA_BYTE, RdmaCmAbi.CONN_RETRY_COUNT, (byte) RETRY_COUNT);
        p.set(ValueLayout.JAVA_BYTE, RdmaCmAbi.CONN_RNR_RETRY_COUNT, (byte) RNR_RETRY_COUNT);
        return p;
    }
}
