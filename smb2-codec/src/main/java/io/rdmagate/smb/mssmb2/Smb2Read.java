package io.rdmagate.smb.mssmb2;

import java.nio.ByteBuffer;

/**
 * READ (MS-SMB2 2.2.19 request, 2.2.20 response). The response body is the 16-byte fixed part; the
 * data follows it at DataOffset 80 and is sent by the transport as its own buffer (no copy).
 *
 * <p>Accepts: StructureSize 49; Channel NONE, RDMA_V1 or RDMA_V1_INVALIDATE with its channel info
 * (the buffer descriptors) inside the message after the fixed body. Refuses another channel, or
 * channel info outside the message. Whether the connection may use an RDMA channel is the server's
 * check (MS-SMB2 3.3.5.12).
 */
public final class Smb2Read {
    public static final int DATA_OFFSET = Smb2Header.SIZE + 16;
    public static final int CHANNEL_NONE = 0;
    /** MS-SMB2 2.2.19: the data moves by RDMA into the buffers the channel info names. */
    public static final int CHANNEL_RDMA_V1 = 1;
    /** As RDMA_V1, and the server invalidates the first buffer's token with its response. */
    public static final int CHANNEL_RDMA_V1_INVALIDATE = 2;

    private Smb2Read() {
    }

    public record Request(int flags, int length, long offset, FileId fileId, int minimumCount, int channel,
            int channelInfoOffset, int channelInfoLength) {
    }

    public static Request decode(ByteBuffer m) throws Smb2DecodeException {
        Wire.body(m, 49, 48, "READ");
        int b = Smb2Header.SIZE;
        int channel = m.getInt(b + 36);
        int infoOffset = Wire.u16(m, b + 44);
        int infoLength = Wire.u16(m, b + 46);
        checkChannel(m, channel, infoOffset, infoLength, "READ");
        return new Request(Wire.u8(m, b + 3), m.getInt(b + 4), m.getLong(b + 8), FileId.read(m, b + 16),
                m.getInt(b + 32), channel, infoOffset, infoLength);
    }

    /** The channel of a READ or WRITE and the place of its channel info (MS-SMB2 2.2.19, 2.2.21). */
    static void checkChannel(ByteBuffer m, int channel, int infoOffset, int infoLength, String what)
            throws Smb2DecodeException {
        if (channel != CHANNEL_NONE && channel != CHANNEL_RDMA_V1 && channel != CHANNEL_RDMA_V1_INVALIDATE) {
            throw new Smb2DecodeException(what + " Channel " + channel);
        }
        if (channel != CHANNEL_NONE) {
            if (infoLength == 0 || infoOffset < Smb2Header.SIZE + 48) {
                throw new Smb2DecodeException(what + " channel info at " + infoOffset + ", " + infoLength + " bytes");
            }
            Wire.range(m, infoOffset, infoLength, what + " channel info");
        }
    }

    /** The response of a READ whose data went by RDMA: no data inline, DataRemaining the bytes written (3.3.5.12). */
    public static int writeRdma(ByteBuffer m, int written) {
        int b = Smb2Header.SIZE;
        m.putShort(b, (short) 17).put(b + 2, (byte) DATA_OFFSET).put(b + 3, (byte) 0).putInt(b + 4, 0)
                .putInt(b + 8, written).putInt(b + 12, 0);
        return 16;
    }

    public static int write(ByteBuffer m, int dataLength) {
        int b = Smb2Header.SIZE;
        m.putShort(b, (short) 17).put(b + 2, (byte) DATA_OFFSET).put(b + 3, (byte) 0).putInt(b + 4, dataLength)
                .putInt(b + 8, 0).putInt(b + 12, 0);
        return 16;
    }
}
