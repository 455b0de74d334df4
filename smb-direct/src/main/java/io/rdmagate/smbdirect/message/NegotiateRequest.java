package io.rdmagate.smbdirect.message;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * SMB Direct Negotiate Request (MS-SMBD 2.2.1), the first message a client sends: 20 bytes,
 * little-endian.
 *
 * <pre>
 *  0 MinVersion (2)   2 MaxVersion (2)   4 Reserved (2)   6 CreditsRequested (2)
 *  8 PreferredSendSize (4)  12 MaxReceiveSize (4)  16 MaxFragmentedSize (4)
 * </pre>
 *
 * <p>Accepts: at least 20 bytes (more is ignored, as the spec allows future growth). The
 * semantic checks (version range, sizes) are the server's ({@code SmbDirectConnection}), which
 * answers them with a Negotiate Response carrying STATUS_NOT_SUPPORTED or disconnects.
 */
public record NegotiateRequest(int minVersion, int maxVersion, int creditsRequested, int preferredSendSize,
        int maxReceiveSize, int maxFragmentedSize) {
    public static final int SIZE = 20;

    /** Decodes {@code length} bytes at {@code b}'s index 0; null when too short. */
    public static NegotiateRequest decode(ByteBuffer b, int length) {
        if (length < SIZE) {
            return null;
        }
        ByteBuffer m = b.duplicate().order(ByteOrder.LITTLE_ENDIAN);
        return new NegotiateRequest(Short.toUnsignedInt(m.getShort(0)), Short.toUnsignedInt(m.getShort(2)),
                Short.toUnsignedInt(m.getShort(6)), m.getInt(8), m.getInt(12), m.getInt(16));
    }

    /** Encodes into {@code b} at index 0 (a client's request: tests and benchmarks). */
    public int encode(ByteBuffer b) {
        ByteBuffer m = b.duplicate().order(ByteOrder.LITTLE_ENDIAN);
        m.putShort(0, (short) minVersion).putShort(2, (short) maxVersion).putShort(4, (short) 0)
                .putShort(6, (short) creditsRequested).putInt(8, preferredSendSize).putInt(12, maxReceiveSize)
                .putInt(16, maxFragmentedSize);
        return SIZE;
    }
}
