package io.rdmagate.smb.msspng;

import java.io.ByteArrayOutputStream;

/**
 * The little of ASN.1 DER that SPNEGO needs (X.690): tag, definite length (short form, or long form
 * of 1..3 bytes), value. Parsing checks every length against what remains.
 */
public final class Der {
    private Der() {
    }

    /** A parsed element: tag, and the value's [start, end) in the source array; {@code next} follows it. */
    public record Tlv(int tag, byte[] src, int start, int end, int next) {
        public byte[] value() {
            return java.util.Arrays.copyOfRange(src, start, end);
        }

        /** The whole element, tag and length included. */
        public byte[] encoded(int elementStart) {
            return java.util.Arrays.copyOfRange(src, elementStart, end);
        }
    }

    public static Tlv read(byte[] b, int at, int limit) throws SpnegoException {
        if (at + 2 > limit) {
            throw new SpnegoException("DER element truncated at " + at);
        }
        int tag = b[at] & 0xff;
        int l = b[at + 1] & 0xff;
        int p = at + 2;
        int len;
        if (l < 0x80) {
            len = l;
        } else {
            int n = l & 0x7f;
            if (n == 0 || n > 3 || p + n > limit) {
                throw new SpnegoException("DER length form " + l);
            }
            len = 0;
            for (int i = 0; i < n; i++) {
                len = (len << 8) | (b[p + i] & 0xff);
            }
            p += n;
        }
        if (len > limit - p) {
            throw new SpnegoException("DER length " + len + " exceeds the " + (limit - p) + " bytes left");
        }
        return new Tlv(tag, b, p, p + len, p + len);
    }

    public static byte[] tlv(int tag, byte[]... parts) {
        int len = 0;
        for (byte[] p : parts) {
            len += p.length;
        }
        ByteArrayOutputStream o = new ByteArrayOutputStream(len + 6);
        o.write(tag);
        if (len < 0x80) {
            o.write(len);
        } else if (len < 0x100) {
            o.write(0x81);
            o.write(len);
        } else if (len < 0x10000) {
            o.write(0x82);
            o.write(len >> 8);
            o.write(len);
        } else {
            o.write(0x83);
            o.write(len >> 16);
            o.write(len >> 8);
            o.write(len);
        }
        for (byte[] p : parts) {
            o.writeBytes(p);
        }
        return o.toByteArray();
    }
}
