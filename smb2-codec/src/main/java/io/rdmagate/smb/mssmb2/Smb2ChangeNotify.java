package io.rdmagate.smb.mssmb2;

import java.nio.ByteBuffer;

/**
 * CHANGE_NOTIFY (MS-SMB2 2.2.35 request, 2.2.36 response).
 *
 * <p>Accepts StructureSize 32. Refuses anything else.
 */
public final class Smb2ChangeNotify {
    public static final int WATCH_TREE = 0x1;

    private Smb2ChangeNotify() {
    }

    public record Request(int flags, int outputLength, FileId fileId, int completionFilter) {
    }

    public static Request decode(ByteBuffer m) throws Smb2DecodeException {
        Wire.body(m, 32, 32, "CHANGE_NOTIFY");
        int b = Smb2Header.SIZE;
        return new Request(Wire.u16(m, b + 2), m.getInt(b + 4), FileId.read(m, b + 8), m.getInt(b + 24));
    }

    /** Same layout as the QUERY_DIRECTORY response: FILE_NOTIFY_INFORMATION entries at offset 72. */
    public static int write(ByteBuffer m, int length) {
        return Smb2QueryDirectory.write(m, length);
    }
}
