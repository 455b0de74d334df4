package io.rdmagate.smbdirect.message;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * The header of an SMB Direct Data Transfer Message (MS-SMBD 2.2.3), read and written in place:
 * a flyweight over the receive or send buffer, little-endian.
 *
 * <pre>
 *  0 CreditsRequested (2)  2 CreditsGranted (2)  4 Flags (2)  6 Reserved (2)
 *  8 RemainingDataLength (4)  12 DataOffset (4)  16 DataLength (4)  20 Padding (4)  24 Buffer
 * </pre>
 *
 * <p>Accepts ({@link #check}): a message of at least 20 bytes; DataLength 0 with any DataOffset
 * (a message that only grants credits or asks for a response); otherwise DataOffset a multiple
 * of 8, at least 24, and [DataOffset, DataOffset + DataLength) inside the bytes received. Refuses
 * anything else: the connection ends (MS-SMBD 3.1.5.7).
 */
public final class DataTransfer {
    /** The header without its padding: a message that carries no data may be this short. */
    public static final int MIN_SIZE = 20;
    /** Where data starts in the messages this side sends. */
    public static final int DATA_OFFSET = 24;
    /** MS-SMBD 2.2.3: the peer is asked to answer at once (a keep-alive or a credit request). */
    public static final int FLAG_RESPONSE_REQUESTED = 0x0001;

    private DataTransfer() {
    }

    public static int creditsRequested(ByteBuffer m) {
        return Short.toUnsignedInt(m.getShort(0));
    }

    public static int creditsGranted(ByteBuffer m) {
        return Short.toUnsignedInt(m.getShort(2));
    }

    public static int flags(ByteBuffer m) {
        return Short.toUnsignedInt(m.getShort(4));
    }

    /** Unsigned, as a long. */
    public static long remainingDataLength(ByteBuffer m) {
        return Integer.toUnsignedLong(m.getInt(8));
    }

    public static long dataOffset(ByteBuffer m) {
        return Integer.toUnsignedLong(m.getInt(12));
    }

    public static long dataLength(ByteBuffer m) {
        return Integer.toUnsignedLong(m.getInt(16));
    }

    /** Why a received message of {@code received} bytes is malformed, or null when it is not. */
    public static String check(ByteBuffer m, int received) {
        if (received < MIN_SIZE) {
            return "data transfer message of " + received + " bytes";
        }
        long length = dataLength(m);
        if (length == 0) {
            return null;
        }
        long offset = dataOffset(m);
        if (offset < DATA_OFFSET || (offset & 7) != 0) {
            return "DataOffset " + offset;
        }
        if (offset + length > received) {
            return "DataOffset " + offset + " + DataLength " + length + " beyond the " + received + " bytes received";
        }
        return null;
    }

    /** Writes a header at index 0 of {@code m} (little-endian); data, if any, follows at {@link #DATA_OFFSET}. */
    public static void write(ByteBuffer m, int creditsRequested, int creditsGranted, int flags, long remaining,
            int dataLength) {
        ByteBuffer b = m.duplicate().order(ByteOrder.LITTLE_ENDIAN);
        b.putShort(0, (short) creditsRequested).putShort(2, (short) creditsGranted).putShort(4, (short) flags)
                .putShort(6, (short) 0).putInt(8, (int) remaining).putInt(12, dataLength == 0 ? 0 : DATA_OFFSET)
                .putInt(16, dataLength).putInt(20, 0);
    }
}
