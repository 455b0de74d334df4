package io.rdmagate.rpcrdma.header;

/**
 * RFC 8797 §4: the private data an RPC-over-RDMA version 1 peer puts in its connect or accept.
 *
 * <p>Accepts exactly the 8-byte format with magic 0xf6ab0e18 and version 1; anything else (no
 * private data, another magic, another version, fewer bytes) reads as "not sent", and the RFC 8166
 * §3.3.2 default of 1024 bytes each way applies (RFC 8797 §5). Sizes are carried as
 * (size >> 10) - 1 (RFC 8797 §4), so they run from 1 KiB to 256 KiB in 1 KiB steps.
 *
 * @param sendWithInvalidate the sender accepts Send With Invalidate (RFC 8797 §3.2)
 * @param sendSize           the largest message the sender will Send (RFC 8797 §3.1)
 * @param receiveSize        the largest message the sender can receive
 */
public record ConnectPrivateData(boolean sendWithInvalidate, int sendSize, int receiveSize) {
    public static final int MAGIC = 0xf6ab0e18;
    public static final int VERSION = 1;
    public static final int BYTES = 8;
    /** RFC 8166 §3.3.2: the inline threshold when a peer advertises none. */
    public static final int DEFAULT_INLINE = 1024;
    private static final int F_SND_W_INV_OK = 1;

    public static final ConnectPrivateData NONE = new ConnectPrivateData(false, DEFAULT_INLINE, DEFAULT_INLINE);

    public ConnectPrivateData {
        if (sendSize < 1024 || sendSize > 256 << 10 || receiveSize < 1024 || receiveSize > 256 << 10) {
            throw new IllegalArgumentException("inline sizes must be in [1 KiB, 256 KiB]");
        }
    }

    public byte[] encode() {
        byte[] b = new byte[BYTES];
        b[0] = (byte) (MAGIC >>> 24);
        b[1] = (byte) (MAGIC >>> 16);
        b[2] = (byte) (MAGIC >>> 8);
        b[3] = (byte) MAGIC;
        b[4] = VERSION;
        b[5] = (byte) (sendWithInvalidate ? F_SND_W_INV_OK : 0);
        b[6] = (byte) ((sendSize >> 10) - 1);
        b[7] = (byte) ((receiveSize >> 10) - 1);
        return b;
    }

    /** The peer's parameters, or {@link #NONE} when it sent no valid RFC 8797 private data. */
    public static ConnectPrivateData decode(byte[] b) {
        if (b == null || b.length < BYTES) {
            return NONE;
        }
        int magic = (b[0] & 0xff) << 24 | (b[1] & 0xff) << 16 | (b[2] & 0xff) << 8 | b[3] & 0xff;
        if (magic != MAGIC || b[4] != VERSION) {
            return NONE;
        }
        return new ConnectPrivateData((b[5] & F_SND_W_INV_OK) != 0, ((b[6] & 0xff) + 1) << 10,
                ((b[7] & 0xff) + 1) << 10);
    }
}
