package io.rdmagate.nfs.v4.state;

/**
 * A session (RFC 8881 §2.10): its client, the fore channel's negotiated sizes, and its slot table.
 *
 * @param maxRequest     ca_maxrequestsize granted
 * @param maxResponse    ca_maxresponsesize granted
 * @param maxCached      ca_maxresponsesize_cached granted: replies up to this size are kept for replay
 * @param maxOperations  ca_maxoperations granted
 * @param back           its back channel, granted or not
 */
public record Session(byte[] id, ClientRecord client, int maxRequest, int maxResponse, int maxCached,
        int maxOperations, Slot[] slots, BackChannel back) {

    public String idHex() {
        return java.util.HexFormat.of().formatHex(id);
    }
}
