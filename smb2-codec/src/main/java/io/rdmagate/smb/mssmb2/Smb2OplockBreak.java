package io.rdmagate.smb.mssmb2;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * OPLOCK_BREAK: the server's notification (MS-SMB2 2.2.23.1), the client's acknowledgment
 * (2.2.24.1) and the server's response to it (2.2.25.1). Lease breaks (2.2.23.2, 2.2.24.2) are
 * recognised by StructureSize 44/36.
 *
 * <p>Accepts StructureSize 24 (oplock ack) or 36 (lease ack). Refuses anything else.
 */
public final class Smb2OplockBreak {
    /** MS-SMB2 3.3.4.6: an unsolicited notification carries MessageId 0xFFFFFFFFFFFFFFFF. */
    public static final long NOTIFICATION_MESSAGE_ID = -1L;
    public static final int BODY_SIZE = 24;

    private Smb2OplockBreak() {
    }

    public record Ack(boolean lease, int oplockLevel, FileId fileId, byte[] leaseKey, int leaseState) {
    }

    public static Ack decode(ByteBuffer m) throws Smb2DecodeException {
        Wire.range(m, Smb2Header.SIZE, 2, "OPLOCK_BREAK");
        int b = Smb2Header.SIZE;
        int ss = Wire.u16(m, b);
        if (ss == 24) {
            Wire.range(m, b, 24, "OPLOCK_BREAK ack");
            return new Ack(false, Wire.u8(m, b + 2), FileId.read(m, b + 8), null, 0);
        }
        if (ss == 36) {
            Wire.range(m, b, 36, "LEASE_BREAK ack");
            return new Ack(true, 0, null, Wire.bytes(m, b + 8, 16), m.getInt(b + 24));
        }
        throw new Smb2DecodeException("OPLOCK_BREAK StructureSize " + ss);
    }

    /** Notification and response share this layout. */
    public static int write(ByteBuffer m, int oplockLevel, FileId fileId) {
        int b = Smb2Header.SIZE;
        m.putShort(b, (short) 24).put(b + 2, (byte) oplockLevel).put(b + 3, (byte) 0).putInt(b + 4, 0);
        fileId.write(m, b + 8);
        return 24;
    }

    /**
     * A whole Oplock Break Notification (MS-SMB2 2.2.23.1, 3.3.4.6): header with MessageId all
     * ones, SessionId and TreeId 0, no credits, unsigned; body with the level the server will accept.
     */
    public static ByteBuffer notification(int oplockLevel, FileId fileId) {
        ByteBuffer m = ByteBuffer.allocate(Smb2Header.SIZE + BODY_SIZE).order(ByteOrder.LITTLE_ENDIAN);
        Smb2Header.writeResponse(m, Smb2Command.OPLOCK_BREAK, 0, 0, 0, 0, NOTIFICATION_MESSAGE_ID, 0, 0, 0);
        write(m, oplockLevel, fileId);
        return m;
    }
}
