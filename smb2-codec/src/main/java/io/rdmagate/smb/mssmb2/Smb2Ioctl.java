package io.rdmagate.smb.mssmb2;

import java.nio.ByteBuffer;

/**
 * IOCTL (MS-SMB2 2.2.31 request, 2.2.32 response).
 *
 * <p>Accepts: StructureSize 57, Flags 0 or SMB2_0_IOCTL_IS_FSCTL, input inside the message.
 * Refuses input out of bounds (STATUS_INVALID_PARAMETER).
 */
public final class Smb2Ioctl {
    public static final int IS_FSCTL = 0x1;
    public static final int FSCTL_DFS_GET_REFERRALS = 0x00060194;
    public static final int FSCTL_PIPE_TRANSCEIVE = 0x0011C017;
    public static final int FSCTL_VALIDATE_NEGOTIATE_INFO = 0x00140204;
    public static final int FSCTL_QUERY_NETWORK_INTERFACE_INFO = 0x001401FC;
    public static final int FSCTL_CREATE_OR_GET_OBJECT_ID = 0x000900C0;
    public static final int FSCTL_GET_REPARSE_POINT = 0x000900A8;
    public static final int FSCTL_SRV_REQUEST_RESUME_KEY = 0x00140078;

    private Smb2Ioctl() {
    }

    public record Request(int ctlCode, FileId fileId, ByteBuffer input, int maxInputResponse, int maxOutputResponse,
            int flags) {
    }

    public static Request decode(ByteBuffer m) throws Smb2DecodeException {
        Wire.body(m, 57, 56, "IOCTL");
        int b = Smb2Header.SIZE;
        long inOff = Wire.u32(m, b + 24);
        long inLen = Wire.u32(m, b + 28);
        ByteBuffer input = Wire.slice(m, inOff, inLen, "IOCTL input");
        return new Request(m.getInt(b + 4), FileId.read(m, b + 8), input, m.getInt(b + 32), m.getInt(b + 44),
                m.getInt(b + 48));
    }

    /** Output starts at offset 112 (header + 48). Returns the body length. */
    public static int write(ByteBuffer m, int ctlCode, FileId fileId, byte[] output) {
        int b = Smb2Header.SIZE;
        int outOff = b + 48;
        m.putShort(b, (short) 49).putShort(b + 2, (short) 0).putInt(b + 4, ctlCode);
        fileId.write(m, b + 8);
        m.putInt(b + 24, outOff).putInt(b + 28, 0).putInt(b + 32, outOff).putInt(b + 36, output.length)
                .putInt(b + 40, 0).putInt(b + 44, 0);
        m.put(outOff, output);
        return 48 + output.length;
    }
}
