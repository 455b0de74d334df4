package io.rdmagate.oncrpc.xdr;

import io.netty.buffer.ByteBuf;
import java.nio.charset.StandardCharsets;

/**
 * A flyweight RFC 4506 reader over a {@link ByteBuf}; {@link #wrap} points it at a message and it
 * reads from the buffer's reader index on.
 *
 * <p>Accepts: big-endian 4-byte items, 8-byte hypers, booleans 0/1, variable-length opaque data
 * and strings whose declared length is at most the caller's limit, followed by 0–3 padding bytes.
 * <br>Refuses (with {@link XdrException}, before allocating or slicing anything): a read past
 * the end, a declared length that is negative (≥ 2^31 as unsigned) or over the limit, a declared
 * length whose padded size is more than what remains, a boolean other than 0 or 1. Padding bytes
 * are skipped without checking that they are zero, as Linux's xdr_stream does.
 */
public final class XdrDecoder {
    private ByteBuf buf;

    public XdrDecoder() {
    }

    public XdrDecoder(ByteBuf buf) {
        this.buf = buf;
    }

    /** Points this decoder at {@code buf}; reads advance its reader index. */
    public XdrDecoder wrap(ByteBuf buf) {
        this.buf = buf;
        return this;
    }

    public ByteBuf buffer() {
        return buf;
    }

    public int remaining() {
        return buf.readableBytes();
    }

    public boolean hasRemaining() {
        return buf.isReadable();
    }

    private void need(int bytes) throws XdrException {
        if (buf.readableBytes() < bytes) {
            throw new XdrException("XDR item of " + bytes + " bytes at offset " + buf.readerIndex()
                    + " runs past the end (" + buf.readableBytes() + " left)");
        }
    }

    /** RFC 4506 §4.1. */
    public int readInt() throws XdrException {
        need(4);
        return buf.readInt();
    }

    /** RFC 4506 §4.2. */
    public long readUnsignedInt() throws XdrException {
        need(4);
        return buf.readUnsignedInt();
    }

    /** RFC 4506 §4.5 (hyper and unsigned hyper share the encoding). */
    public long readHyper() throws XdrException {
        need(8);
        return buf.readLong();
    }

    /** RFC 4506 §4.4. */
    public boolean readBool() throws XdrException {
        int v = readInt();
        if (v != 0 && v != 1) {
            throw new XdrException("boolean of value " + v);
        }
        return v == 1;
    }

    /** RFC 4506 §4.3: an enum is an int; the caller checks the member. */
    public int readEnum() throws XdrException {
        return readInt();
    }

    /** RFC 4506 §4.9 opaque[n]: copies {@code n} bytes into a new array. */
    public byte[] readFixedOpaque(int n) throws XdrException {
        int padded = checkedPadded(n);
        byte[] out = new byte[n];
        buf.readBytes(out);
        buf.skipBytes(padded - n);
        return out;
    }

    /** RFC 4506 §4.9 opaque[n] into {@code dst} (no allocation). */
    public void readFixedOpaque(byte[] dst) throws XdrException {
        int padded = checkedPadded(dst.length);
        buf.readBytes(dst);
        buf.skipBytes(padded - dst.length);
    }

    /** Reads and checks the length word of a variable-length item (RFC 4506 §4.10). */
    public int readLength(int max) throws XdrException {
        long len = readUnsignedInt();
        if (len > max) {
            throw new XdrException("XDR length " + len + " is over the limit of " + max);
        }
        return (int) len;
    }

    /** RFC 4506 §4.10 opaque<max>: copies into a new array. */
    public byte[] readOpaque(int max) throws XdrException {
        int len = readLength(max);
        return readFixedOpaque(len);
    }

    /**
     * RFC 4506 §4.10 opaque<max> as a retained slice of the message, not a copy; the caller
     * releases it.
     */
    public ByteBuf readOpaqueSlice(int max) throws XdrException {
        int len = readLength(max);
        int padded = checkedPadded(len);
        ByteBuf slice = buf.readRetainedSlice(len);
        buf.skipBytes(padded - len);
        return slice;
    }

    /** opaque<max> skipped without reading it; returns its length. */
    public int skipOpaque(int max) throws XdrException {
        int len = readLength(max);
        buf.skipBytes(checkedPadded(len));
        return len;
    }

    /** RFC 4506 §4.11 string<max>, decoded as UTF-8 (ASCII in practice). */
    public String readString(int max) throws XdrException {
        int len = readLength(max);
        int padded = checkedPadded(len);
        String s = buf.toString(buf.readerIndex(), len, StandardCharsets.UTF_8);
        buf.skipBytes(padded);
        return s;
    }

    /** Skips {@code n} bytes of fixed-size items. */
    public void skip(int n) throws XdrException {
        need(n);
        buf.skipBytes(n);
    }

    private int checkedPadded(int len) throws XdrException {
        if (len < 0) {
            throw new XdrException("negative XDR length " + len);
        }
        int padded = Xdr.align(len);
        if (padded < 0) {
            throw new XdrException("XDR length " + len + " overflows");
        }
        need(padded);
        return padded;
    }
}
