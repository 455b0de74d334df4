package io.rdmagate.smbdirect.message;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * SMB Direct Negotiate Response (MS-SMBD 2.2.2): 32 bytes, little-endian.
 *
 * <pre>
 *  0 MinVersion (2)   2 MaxVersion (2)   4 NegotiatedVersion (2)   6 Reserved (2)
 *  8 CreditsRequested (2)  10 CreditsGranted (2)  12 Status (4)  16 MaxReadWriteSize (4)
 * 20 PreferredSendSize (4)  24 MaxReceiveSize (4)  28 MaxFragmentedSize (4)
 * </pre>
 */
public record NegotiateResponse(int minVersion, int maxVersion, int negotiatedVersion, int creditsRequested,
        int creditsGranted, int status, int maxReadWriteSize, int preferredSendSize, int maxReceiveSize,
        int maxFragmentedSize) {
    public static final int SIZE = 32;

    public int encode(ByteBuffer b) {
        ByteBuffer m = b.duplicate().order(ByteOrder.LITTLE_ENDIAN);
        m.putShort(0, (short) minVersion).putShort(2, (short) maxVersion).putShort(4, (short) negotiatedVersion)
                .putShort(6, (short) 0).putShort(8, (short) creditsRequested).putShort(10, (short) creditsGranted)
                .putInt(12, status).putInt(16, maxReadWriteSize).putInt(20, preferredSendSize)
                .putInt(24, maxReceiveSize).putInt(28, maxFragmentedSize);
        return SIZE;
    }

    /** Decodes a response (the client side: tests and benchmarks); null when too short. */
    public static NegotiateResponse decode(ByteBuffer b, int length) {
        if (length < SIZE) {
            return null;
        }
        ByteBuffer m = b.duplicate().order(ByteOrder.LITTLE_ENDIAN);
        return new NegotiateResponse(Short.toUnsignedInt(m.getShort(0)), Short.toUnsignedInt(m.getShort(2)),
                Short.toUnsignedInt(m.getShort(4)), Short.toUnsignedInt(m.getShort(8)),
                Short.toUnsignedInt(m.getShort(10)), m.getInt(12), m.getInt(16), m.getInt(20), m.getInt(24),
                m.getInt(28));
    }
}
