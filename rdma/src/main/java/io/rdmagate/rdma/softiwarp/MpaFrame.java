package io.rdmagate.rdma.softiwarp;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * An MPA Request or Reply frame (RFC 5044 §7.1), with the enhanced connection setup of MPA
 * revision 2 (RFC 6581 §5): the first four bytes of private data then carry IRD and ORD and the
 * peer-to-peer (RTR) bits.
 *
 * <p>Accepts: the two keys, revisions 1 and 2, private data up to {@link #MAX_PRIVATE_DATA}
 * bytes. Refuses (by returning null from {@link #parse} and letting the caller answer): any other
 * key, a revision 2 frame flagged enhanced with fewer than four bytes of private data, and longer
 * private data. Markers are never agreed to: a request asking for them gets a reject.
 */
record MpaFrame(boolean request, boolean markers, boolean crc, boolean reject, boolean enhanced, int revision,
        byte[] privateData, int ird, int ord, boolean peerToPeer, int rtrBits) {

    static final int HEADER = 20;
    static final int MAX_PRIVATE_DATA = 512;
    static final byte[] KEY_REQ = "MPA ID Req Frame".getBytes(StandardCharsets.US_ASCII);
    static final byte[] KEY_REP = "MPA ID Rep Frame".getBytes(StandardCharsets.US_ASCII);

    static final int FLAG_MARKERS = 0x80;
    static final int FLAG_CRC = 0x40;
    static final int FLAG_REJECT = 0x20;
    static final int FLAG_ENHANCED = 0x10;
    static final int IRD_ORD_MASK = 0x3fff;
    static final int V2_PEER_TO_PEER = 0x8000;
    static final int V2_ZERO_LENGTH_RTR = 0x4000;
    static final int V2_WRITE_RTR = 0x8000;
    static final int V2_READ_RTR = 0x4000;

    /** The 20-byte header: key, flags, revision, private data length. */
    static ByteBuffer header(boolean request, int flags, int revision, int pdLength) {
        ByteBuffer b = ByteBuffer.allocateDirect(HEADER);
        b.put(request ? KEY_REQ : KEY_REP).put((byte) flags).put((byte) revision).putShort((short) pdLength);
        return b.flip();
    }

    /** Encodes a frame; with {@code enhanced}, the IRD/ORD word precedes the user's private data. */
    static ByteBuffer encode(boolean request, boolean crc, boolean reject, boolean enhanced, byte[] userData, int ird,
            int ord, boolean peerToPeer, int rtrBits) {
        int pdLen = userData.length + (enhanced ? 4 : 0);
        int flags = (crc ? FLAG_CRC : 0) | (reject ? FLAG_REJECT : 0) | (enhanced ? FLAG_ENHANCED : 0);
        ByteBuffer b = ByteBuffer.allocateDirect(HEADER + pdLen);
        b.put(request ? KEY_REQ : KEY_REP).put((byte) flags).put((byte) (enhanced ? 2 : 1)).putShort((short) pdLen);
        if (enhanced) {
            int irdWord = (ird & IRD_ORD_MASK) | (peerToPeer ? V2_PEER_TO_PEER | (rtrBits & V2_ZERO_LENGTH_RTR) : 0);
            int ordWord = (ord & IRD_ORD_MASK) | (peerToPeer ? rtrBits & (V2_WRITE_RTR | V2_READ_RTR) : 0);
            b.putShort((short) irdWord).putShort((short) ordWord);
        }
        b.put(userData);
        return b.flip();
    }

    /**
     * Parses a header and its private data. Returns null for a frame with the wrong key or with
     * private data that does not fit its declared revision; the caller closes or rejects.
     */
    static MpaFrame parse(ByteBuffer header, ByteBuffer pd, boolean expectRequest) {
        byte[] key = new byte[16];
        header.get(0, key);
        if (!Arrays.equals(key, expectRequest ? KEY_REQ : KEY_REP)) {
            return null;
        }
        int flags = header.get(16) & 0xff;
        int revision = header.get(17) & 0xff;
        if (revision < 1) {
            return null;
        }
        byte[] all = new byte[pd.remaining()];
        pd.get(pd.position(), all);
        boolean enhanced = (flags & FLAG_ENHANCED) != 0 && revision >= 2;
        int ird = 0;
        int ord = 0;
        boolean p2p = false;
        int rtr = 0;
        byte[] user = all;
        if (enhanced) {
            if (all.length < 4) {
                return null;
            }
            int irdWord = ((all[0] & 0xff) << 8) | (all[1] & 0xff);
            int ordWord = ((all[2] & 0xff) << 8) | (all[3] & 0xff);
            ird = irdWord & IRD_ORD_MASK;
            ord = ordWord & IRD_ORD_MASK;
            p2p = (irdWord & V2_PEER_TO_PEER) != 0;
            rtr = ordWord & (V2_WRITE_RTR | V2_READ_RTR) | (irdWord & V2_ZERO_LENGTH_RTR);
            user = Arrays.copyOfRange(all, 4, all.length);
        }
        return new MpaFrame(expectRequest, (flags & FLAG_MARKERS) != 0, (flags & FLAG_CRC) != 0,
                (flags & FLAG_REJECT) != 0, enhanced, revision, user, ird, ord, p2p, rtr);
    }

    /** Private data length declared in a received header. */
    static int declaredLength(ByteBuffer header) {
        return Short.toUnsignedInt(header.getShort(18));
    }
}
