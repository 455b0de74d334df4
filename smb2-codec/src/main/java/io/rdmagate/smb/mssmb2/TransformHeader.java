package io.rdmagate.smb.mssmb2;

import java.nio.ByteBuffer;

/**
 * SMB2 TRANSFORM_HEADER (MS-SMB2 2.2.41): 52 bytes in front of an encrypted message.
 *
 * <p>Accepts: ProtocolId 0xFD 'S' 'M' 'B', Flags 0x0001 (encrypted), an OriginalMessageSize equal
 * to the bytes that follow. Refuses anything else: MS-SMB2 3.3.5.2.1 says to disconnect.
 */
public final class TransformHeader {
    public static final int SIZE = 52;
    public static final int PROTOCOL_ID = 0x424D53FD;
    public static final int SIGNATURE = 4;
    public static final int NONCE = 20;
    public static final int ORIGINAL_SIZE = 36;
    public static final int FLAGS = 42;
    public static final int SESSION_ID = 44;
    /** The authenticated data: from Nonce to the end of the header (3.1.4.3). */
    public static final int AAD_OFFSET = 20;
    public static final int AAD_LENGTH = 32;

    private TransformHeader() {
    }

    public static boolean isTransform(ByteBuffer m) {
        return m.limit() >= 4 && m.getInt(0) == PROTOCOL_ID;
    }

    public static boolean check(ByteBuffer m) {
        return m.limit() > SIZE && isTransform(m) && Wire.u16(m, FLAGS) == 1
                && Wire.u32(m, ORIGINAL_SIZE) == m.limit() - SIZE;
    }

    public static long sessionId(ByteBuffer m) {
        return m.getLong(SESSION_ID);
    }

    /** Writes the header except the signature, which encryption fills. */
    public static void write(ByteBuffer m, byte[] nonce16, int originalSize, long sessionId) {
        m.putInt(0, PROTOCOL_ID);
        for (int i = 0; i < 16; i++) {
            m.put(SIGNATURE + i, (byte) 0);
            m.put(NONCE + i, nonce16[i]);
        }
        m.putInt(ORIGINAL_SIZE, originalSize);
        m.putShort(40, (short) 0);
        m.putShort(FLAGS, (short) 1);
        m.putLong(SESSION_ID, sessionId);
    }
}
