package io.rdmagate.smb.mssmb2;

import java.nio.ByteBuffer;

/**
 * CLOSE (MS-SMB2 2.2.15 request, 2.2.16 response) and FLUSH (2.2.17 request).
 *
 * <p>Accepts StructureSize 24. Refuses anything else.
 */
public final class Smb2Close {
    public static final int POSTQUERY_ATTRIB = 0x1;

    private Smb2Close() {
    }

    public record Request(int flags, FileId fileId) {
    }

    public static Request decode(ByteBuffer m) throws Smb2DecodeException {
        Wire.body(m, 24, 24, "CLOSE");
        return new Request(Wire.u16(m, Smb2Header.SIZE + 2), FileId.read(m, Smb2Header.SIZE + 8));
    }

    /** FLUSH has the same layout (Reserved1 where CLOSE has Flags). */
    public static FileId decodeFlush(ByteBuffer m) throws Smb2DecodeException {
        Wire.body(m, 24, 24, "FLUSH");
        return FileId.read(m, Smb2Header.SIZE + 8);
    }

    /** Times are FILETIMEs; all zero when the attributes were not asked for. */
    public static int write(ByteBuffer m, int flags, long creation, long lastAccess, long lastWrite, long change,
            long allocation, long eof, int attributes) {
        int b = Smb2Header.SIZE;
        m.putShort(b, (short) 60).putShort(b + 2, (short) flags).putInt(b + 4, 0).putLong(b + 8, creation)
                .putLong(b + 16, lastAccess).putLong(b + 24, lastWrite).putLong(b + 32, change)
                .putLong(b + 40, allocation).putLong(b + 48, eof).putInt(b + 56, attributes);
        return 60;
    }
}
