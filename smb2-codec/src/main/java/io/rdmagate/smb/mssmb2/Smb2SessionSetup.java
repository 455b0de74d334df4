package io.rdmagate.smb.mssmb2;

import java.nio.ByteBuffer;

/**
 * SESSION_SETUP (MS-SMB2 2.2.5 request, 2.2.6 response).
 *
 * <p>Accepts: StructureSize 25, a security buffer inside the message. Refuses one outside it.
 */
public final class Smb2SessionSetup {
    public static final int FLAG_BINDING = 0x1;
    public static final int SESSION_FLAG_IS_GUEST = 0x1;
    public static final int SESSION_FLAG_IS_NULL = 0x2;
    public static final int SESSION_FLAG_ENCRYPT_DATA = 0x4;

    private Smb2SessionSetup() {
    }

    public record Request(int flags, int securityMode, int capabilities, byte[] securityBuffer, long previousSessionId) {
    }

    public static Request decode(ByteBuffer m) throws Smb2DecodeException {
        Wire.body(m, 25, 24, "SESSION_SETUP");
        int b = Smb2Header.SIZE;
        int off = Wire.u16(m, b + 12);
        int len = Wire.u16(m, b + 14);
        byte[] sec = len == 0 ? new byte[0] : Wire.bytes(m, off, len);
        if (len > 0 && off < b + 24) {
            throw new Smb2DecodeException("SecurityBufferOffset " + off + " inside the fixed body");
        }
        return new Request(Wire.u8(m, b + 2), Wire.u8(m, b + 3), m.getInt(b + 4), sec, m.getLong(b + 16));
    }

    public static int write(ByteBuffer m, int sessionFlags, byte[] securityBuffer) {
        int b = Smb2Header.SIZE;
        m.putShort(b, (short) 9).putShort(b + 2, (short) sessionFlags);
        m.putShort(b + 4, (short) (securityBuffer.length == 0 ? 0 : b + 8)).putShort(b + 6, (short) securityBuffer.length);
        m.put(b + 8, securityBuffer);
        if (securityBuffer.length == 0) {
            m.put(b + 8, (byte) 0);
            return 9;
        }
        return 8 + securityBuffer.length;
    }
}
