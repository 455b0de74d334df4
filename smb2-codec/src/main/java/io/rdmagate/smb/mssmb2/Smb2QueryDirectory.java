package io.rdmagate.smb.mssmb2;

import java.nio.ByteBuffer;

/**
 * QUERY_DIRECTORY (MS-SMB2 2.2.33 request, 2.2.34 response).
 *
 * <p>Accepts: StructureSize 33, a UTF-16 search pattern inside the message. Refuses an odd or
 * out-of-bounds pattern (STATUS_INVALID_PARAMETER).
 */
public final class Smb2QueryDirectory {
    public static final int RESTART_SCANS = 0x1;
    public static final int RETURN_SINGLE_ENTRY = 0x2;
    public static final int INDEX_SPECIFIED = 0x4;
    public static final int REOPEN = 0x10;

    private Smb2QueryDirectory() {
    }

    public record Request(int infoClass, int flags, int fileIndex, FileId fileId, String pattern, int outputLength) {
    }

    public static Request decode(ByteBuffer m) throws Smb2DecodeException {
        Wire.body(m, 33, 32, "QUERY_DIRECTORY");
        int b = Smb2Header.SIZE;
        int off = Wire.u16(m, b + 24);
        int len = Wire.u16(m, b + 26);
        return new Request(Wire.u8(m, b + 2), Wire.u8(m, b + 3), m.getInt(b + 4), FileId.read(m, b + 8),
                Wire.utf16(m, off, len, "FileName"), m.getInt(b + 28));
    }

    /** Writes the fixed part; the caller has put {@code length} bytes of entries at offset 72. */
    public static int write(ByteBuffer m, int length) {
        int b = Smb2Header.SIZE;
        m.putShort(b, (short) 9).putShort(b + 2, (short) (length == 0 ? 0 : b + 8)).putInt(b + 4, length);
        if (length == 0) {
            m.put(b + 8, (byte) 0);
            return 9;
        }
        return 8 + length;
    }

    public static final int OUTPUT_OFFSET = Smb2Header.SIZE + 8;
}
