package io.rdmagate.smb.mssmb2;

import java.nio.ByteBuffer;

/**
 * WRITE (MS-SMB2 2.2.21 request, 2.2.22 response). The data is a slice of the received message.
 *
 * <p>Accepts: StructureSize 49, data [DataOffset, DataOffset+Length) inside the message and, when
 * there is any, not inside the fixed body; Channel NONE, or RDMA_V1 / RDMA_V1_INVALIDATE with no inline data, the
 * length in RemainingBytes and the channel info inside the message. Refuses anything else
 * (STATUS_INVALID_PARAMETER).
 */
public final class Smb2Write {
    public static final int FLAG_WRITE_THROUGH = 0x1;

    private Smb2Write() {
    }

    /** {@code length}: the bytes to write, inline or (with an RDMA channel) RemainingBytes. */
    public record Request(int dataOffset, int length, long offset, FileId fileId, int flags, int channel,
            int channelInfoOffset, int channelInfoLength) {
        public boolean rdma() {
            return channel != Smb2Read.CHANNEL_NONE;
        }
    }

    public static Request decode(ByteBuffer m) throws Smb2DecodeException {
        Wire.body(m, 49, 48, "WRITE");
        int b = Smb2Header.SIZE;
        int dataOff = Wire.u16(m, b + 2);
        long len = Wire.u32(m, b + 4);
        int channel = m.getInt(b + 32);
        int infoOffset = Wire.u16(m, b + 40);
        int infoLength = Wire.u16(m, b + 42);
        Smb2Read.checkChannel(m, channel, infoOffset, infoLength, "WRITE");
        if (channel != Smb2Read.CHANNEL_NONE) {
            if (len != 0) {
                throw new Smb2DecodeException("WRITE over an RDMA channel with " + len + " bytes inline");
            }
            long remaining = Wire.u32(m, b + 36);
            if (remaining > Integer.MAX_VALUE) {
                throw new Smb2DecodeException("WRITE RemainingBytes " + remaining);
            }
            return new Request(0, (int) remaining, m.getLong(b + 8), FileId.read(m, b + 16), m.getInt(b + 44), channel,
                    infoOffset, infoLength);
        }
        if (len > 0 && dataOff < b + 48) {
            throw new Smb2DecodeException("WRITE DataOffset " + dataOff);
        }
        Wire.range(m, dataOff, len, "WRITE data"); // no data still names a place inside the message, as Samba and ksmbd check
        return new Request(dataOff, (int) len, m.getLong(b + 8), FileId.read(m, b + 16), m.getInt(b + 44), channel, 0, 0);
    }

    public static int write(ByteBuffer m, int count) {
        int b = Smb2Header.SIZE;
        m.putShort(b, (short) 17).putShort(b + 2, (short) 0).putInt(b + 4, count).putInt(b + 8, 0).putInt(b + 12, 0);
        return 16;
    }
}
