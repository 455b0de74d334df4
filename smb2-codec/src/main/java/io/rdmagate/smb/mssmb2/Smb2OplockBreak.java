package io.rdmagate.smb.mssmb2;

import java.nio.ByteBuffer;

/**
 * OPLOCK_BREAK: the server's notification (MS-SMB2 2.2.23.1), the client's acknowledgment
 * (2.2.24.1) and the server's response to it (2.2.25.1). Lease breaks (2.2.23.2, 2.2.24.2) are
 * recognised by StructureSize 44/36.
 *
 * <p>Accepts StructureSize 24 (oplock ack) or 36 (lease ack). Refuses anything else.
 */
public final class Smb2OplockBreak {
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
}
