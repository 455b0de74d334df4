package io.rdmagate.rdma.verbs;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * An rdma_cm event, copied out of the library's {@code struct rdma_cm_event} before it is acked
 * (man rdma_get_cm_event: the private data buffer "is deallocated when calling rdma_ack_cm_event").
 *
 * @param type               enum rdma_cm_event_type ({@link RdmaCmAbi#CONNECT_REQUEST}, ...)
 * @param status             0, a negative errno, or a transport value (the IB CM reject reason for REJECTED)
 * @param id                 the rdma_cm_id's address; for CONNECT_REQUEST the new id
 * @param listenId           for CONNECT_REQUEST, the listening id's address; else 0
 * @param privateData        the peer's private data (IB: the whole fixed-size CM field, zero-padded)
 * @param responderResources param.conn.responder_resources: for CONNECT_REQUEST, the reads the peer wants to
 *                           have outstanding against us (its initiator depth)
 * @param initiatorDepth     param.conn.initiator_depth: for CONNECT_REQUEST, the reads we may have outstanding
 *                           against the peer (its responder resources)
 */
record CmEvent(int type, int status, long id, long listenId, byte[] privateData, int responderResources,
        int initiatorDepth) {

    static CmEvent read(MemorySegment event) {
        MemorySegment e = event.reinterpret(RdmaCmAbi.EVENT_BYTES);
        int type = e.get(ValueLayout.JAVA_INT, RdmaCmAbi.EVENT_TYPE);
        long conn = RdmaCmAbi.EVENT_CONN;
        MemorySegment data = e.get(ValueLayout.ADDRESS, conn + RdmaCmAbi.CONN_PRIVATE_DATA);
        int length = Byte.toUnsignedInt(e.get(ValueLayout.JAVA_BYTE, conn + RdmaCmAbi.CONN_PRIVATE_DATA_LEN));
        byte[] privateData = data.equals(MemorySegment.NULL) || length == 0 ? new byte[0]
                : data.reinterpret(length).toArray(ValueLayout.JAVA_BYTE);
        return new CmEvent(type, e.get(ValueLayout.JAVA_INT, RdmaCmAbi.EVENT_STATUS),
                e.get(ValueLayout.ADDRESS, RdmaCmAbi.EVENT_ID).address(),
                type == RdmaCmAbi.CONNECT_REQUEST ? e.get(ValueLayout.ADDRESS, RdmaCmAbi.EVENT_LISTEN_ID).address() : 0,
                privateData,
                Byte.toUnsignedInt(e.get(ValueLayout.JAVA_BYTE, conn + RdmaCmAbi.CONN_RESPONDER_RESOURCES)),
                Byte.toUnsignedInt(e.get(ValueLayout.JAVA_BYTE, conn + RdmaCmAbi.CONN_INITIATOR_DEPTH)));
    }

    /** The rdma_cm_id the event is about, readable. */
    MemorySegment idSegment() {
        return MemorySegment.ofAddress(id).reinterpret(RdmaCmAbi.ID_BYTES);
    }

    String name() {
        return RdmaCmAbi.eventName(type);
    }

    /** For messages: the event's name and, when not 0, its status. */
    String describe() {
        return status == 0 ? name() : name() + " (status " + status + ")";
    }
}
