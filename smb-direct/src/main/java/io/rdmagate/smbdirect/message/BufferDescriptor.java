package io.rdmagate.smbdirect.message;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * SMB_DIRECT_BUFFER_DESCRIPTOR_V1 (MS-SMBD 2.2.3.1): 16 bytes, little-endian — Offset (8), the
 * address the peer registered; Token (4), its steering tag; Length (4). An SMB2 READ or WRITE of
 * the RDMA channel carries an array of them (MS-SMB2 2.2.19, 2.2.21).
 */
public record BufferDescriptor(long offset, int token, int length) {
    public static final int SIZE = 16;

    /**
     * Decodes the array of {@code length} bytes at {@code at}. Accepts: a length that is a
     * positive multiple of 16, at most {@code max} descriptors, each of a non-zero length whose
     * range does not wrap. Returns null otherwise (the caller answers STATUS_INVALID_PARAMETER).
     */
    public static List<BufferDescriptor> decodeAll(ByteBuffer m, int at, int length, int max) {
        if (length <= 0 || length % SIZE != 0 || length / SIZE > max || at < 0 || at + length > m.limit()) {
            return null;
        }
        List<BufferDescriptor> out = new ArrayList<>(length / SIZE);
        for (int p = at; p < at + length; p += SIZE) {
            long offset = m.getLong(p);
            int token = m.getInt(p + 8);
            int len = m.getInt(p + 12);
            if (len == 0 || Long.compareUnsigned(offset + Integer.toUnsignedLong(len), offset) < 0) {
                return null;
            }
            out.add(new BufferDescriptor(offset, token, len));
        }
        return out;
    }

    /** The bytes the descriptors name, without overflow. */
    public static long total(List<BufferDescriptor> descriptors) {
        long n = 0;
        for (BufferDescriptor d : descriptors) {
            n += Integer.toUnsignedLong(d.length());
        }
        return n;
    }

    public void encode(ByteBuffer m, int at) {
        m.putLong(at, offset).putInt(at + 8, token).putInt(at + 12, length);
    }
}
