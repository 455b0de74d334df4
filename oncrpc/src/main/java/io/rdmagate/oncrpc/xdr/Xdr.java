package io.rdmagate.oncrpc.xdr;

/** RFC 4506 sizes shared by the decoder and the encoder. */
public final class Xdr {
    /** RFC 4506 §3: every item occupies a multiple of four bytes. */
    public static final int UNIT = 4;

    private Xdr() {
    }

    /** Bytes of zero padding after {@code length} bytes of opaque data or string (RFC 4506 §4.9). */
    public static int pad(int length) {
        return -length & 3;
    }

    /** {@code length} rounded up to a multiple of four. */
    public static int align(int length) {
        return (length + 3) & ~3;
    }
}
