package io.rdmagate.smb.mssmb2;

import java.nio.ByteBuffer;

/**
 * The bodies that carry nothing but a StructureSize of 4 and a reserved field: LOGOFF (2.2.7/2.2.8),
 * TREE_DISCONNECT (2.2.11/2.2.12), ECHO (2.2.28/2.2.29), CANCEL (2.2.30), FLUSH response (2.2.18);
 * and SET_INFO's response (2.2.40, StructureSize 2).
 *
 * <p>Accepts StructureSize 4. Refuses anything else.
 */
public final class Smb2Simple {
    private Smb2Simple() {
    }

    public static void decode(ByteBuffer m, String command) throws Smb2DecodeException {
        Wire.body(m, 4, 4, command);
    }

    public static int write(ByteBuffer m) {
        m.putShort(Smb2Header.SIZE, (short) 4).putShort(Smb2Header.SIZE + 2, (short) 0);
        return 4;
    }

    public static int writeSetInfo(ByteBuffer m) {
        m.putShort(Smb2Header.SIZE, (short) 2);
        return 2;
    }
}
