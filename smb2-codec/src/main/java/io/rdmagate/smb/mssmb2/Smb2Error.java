package io.rdmagate.smb.mssmb2;

import java.nio.ByteBuffer;

/** SMB2 ERROR Response (MS-SMB2 2.2.2): StructureSize 9, no error contexts, one byte of ErrorData. */
public final class Smb2Error {
    public static final int BODY_SIZE = 9;

    private Smb2Error() {
    }

    public static void write(ByteBuffer m) {
        int b = Smb2Header.SIZE;
        m.putShort(b, (short) 9).put(b + 2, (byte) 0).put(b + 3, (byte) 0).putInt(b + 4, 0).put(b + 8, (byte) 0);
    }

    /** With ErrorData (e.g. the symlink error response), ByteCount = data length. */
    public static int write(ByteBuffer m, byte[] data) {
        int b = Smb2Header.SIZE;
        m.putShort(b, (short) 9).put(b + 2, (byte) 0).put(b + 3, (byte) 0).putInt(b + 4, data.length);
        m.put(b + 8, data);
        return 8 + Math.max(1, data.length);
    }
}
