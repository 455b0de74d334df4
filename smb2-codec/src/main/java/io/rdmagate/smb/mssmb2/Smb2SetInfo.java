package io.rdmagate.smb.mssmb2;

import java.nio.ByteBuffer;

/**
 * SET_INFO (MS-SMB2 2.2.39 request, 2.2.40 response).
 *
 * <p>Accepts: StructureSize 33, InfoType 1..4, the buffer inside the message. Refuses another
 * InfoType or an out-of-bounds buffer (STATUS_INVALID_PARAMETER).
 */
public final class Smb2SetInfo {
    private Smb2SetInfo() {
    }

    public record Request(int infoType, int infoClass, ByteBuffer buffer, int additionalInformation, FileId fileId) {
    }

    public static Request decode(ByteBuffer m) throws Smb2DecodeException {
        Wire.body(m, 33, 32, "SET_INFO");
        int b = Smb2Header.SIZE;
        int type = Wire.u8(m, b + 2);
        if (type < 1 || type > 4) {
            throw new Smb2DecodeException("SET_INFO InfoType " + type);
        }
        ByteBuffer buf = Wire.slice(m, Wire.u16(m, b + 8), Wire.u32(m, b + 4), "SET_INFO buffer");
        return new Request(type, Wire.u8(m, b + 3), buf, m.getInt(b + 12), FileId.read(m, b + 16));
    }

    public static int write(ByteBuffer m) {
        return Smb2Simple.writeSetInfo(m);
    }
}
