package io.rdmagate.smb.mssmb2;

import java.nio.ByteBuffer;

/**
 * QUERY_INFO (MS-SMB2 2.2.37 request, 2.2.38 response).
 *
 * <p>Accepts: StructureSize 41, InfoType 1..4, an input buffer inside the message. Refuses another
 * InfoType or out-of-bounds input (STATUS_INVALID_PARAMETER).
 */
public final class Smb2QueryInfo {
    public static final int INFO_FILE = 1;
    public static final int INFO_FILESYSTEM = 2;
    public static final int INFO_SECURITY = 3;
    public static final int INFO_QUOTA = 4;

    private Smb2QueryInfo() {
    }

    public record Request(int infoType, int infoClass, int outputLength, ByteBuffer input, int additionalInformation,
            int flags, FileId fileId) {
    }

    public static Request decode(ByteBuffer m) throws Smb2DecodeException {
        Wire.body(m, 41, 40, "QUERY_INFO");
        int b = Smb2Header.SIZE;
        int type = Wire.u8(m, b + 2);
        if (type < 1 || type > 4) {
            throw new Smb2DecodeException("QUERY_INFO InfoType " + type);
        }
        ByteBuffer in = Wire.slice(m, Wire.u16(m, b + 8), Wire.u32(m, b + 12), "QUERY_INFO input");
        return new Request(type, Wire.u8(m, b + 3), m.getInt(b + 4), in, m.getInt(b + 16), m.getInt(b + 20),
                FileId.read(m, b + 24));
    }

    /** The caller has put {@code length} bytes at offset 72. */
    public static int write(ByteBuffer m, int length) {
        return Smb2QueryDirectory.write(m, length);
    }

    public static final int OUTPUT_OFFSET = Smb2Header.SIZE + 8;
}
