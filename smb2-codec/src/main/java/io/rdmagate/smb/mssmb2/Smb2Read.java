package io.rdmagate.smb.mssmb2;

import java.nio.ByteBuffer;

/**
 * READ (MS-SMB2 2.2.19 request, 2.2.20 response). The response body is the 16-byte fixed part; the
 * data follows it at DataOffset 80 and is sent by the transport as its own buffer (no copy).
 *
 * <p>Accepts: StructureSize 49, Channel NONE (RDMA channels belong to SMB Direct). Refuses another
 * channel, or channel info outside the message.
 */
public final class Smb2Read {
    public static final int DATA_OFFSET = Smb2Header.SIZE + 16;
    public static final int CHANNEL_NONE = 0;

    private Smb2Read() {
    }

    public record Request(int flags, int length, long offset, FileId fileId, int minimumCount, int channel) {
    }

    public static Request decode(ByteBuffer m) throws Smb2DecodeException {
        Wire.body(m, 49, 48, "READ");
        int b = Smb2Header.SIZE;
        int channel = m.getInt(b + 36);
        if (channel != CHANNEL_NONE) {
            throw new Smb2DecodeException("READ Channel " + channel + " needs SMB Direct");
        }
        return new Request(Wire.u8(m, b + 3), m.getInt(b + 4), m.getLong(b + 8), FileId.read(m, b + 16),
                m.getInt(b + 32), channel);
    }

    public static int write(ByteBuffer m, int dataLength) {
        int b = Smb2Header.SIZE;
        m.putShort(b, (short) 17).put(b + 2, (byte) DATA_OFFSET).put(b + 3, (byte) 0).putInt(b + 4, dataLength)
                .putInt(b + 8, 0).putInt(b + 12, 0);
        return 16;
    }
}
