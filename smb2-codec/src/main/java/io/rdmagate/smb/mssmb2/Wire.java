package io.rdmagate.smb.mssmb2;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

/**
 * Bounds-checked access to a little-endian message buffer whose index 0 is the SMB2 header
 * (so that the offsets in request bodies, which MS-SMB2 counts from the header, index it directly).
 * Every helper throws {@link Smb2DecodeException} instead of reading past the message.
 */
public final class Wire {
    private Wire() {
    }

    public static ByteBuffer le(ByteBuffer b) {
        if (b.order() != ByteOrder.LITTLE_ENDIAN) {
            throw new IllegalArgumentException("SMB2 buffers are little-endian");
        }
        return b;
    }

    /** Checks that [offset, offset+length) lies in the message (limit). */
    public static void range(ByteBuffer m, long offset, long length, String what) throws Smb2DecodeException {
        if (offset < 0 || length < 0 || offset + length > m.limit()) {
            throw new Smb2DecodeException(what + " at " + offset + " of " + length + " bytes leaves the "
                    + m.limit() + "-byte message");
        }
    }

    /** Checks the fixed part of a body: its StructureSize field and that it fits. */
    public static void body(ByteBuffer m, int structureSize, int fixedBytes, String command) throws Smb2DecodeException {
        range(m, Smb2Header.SIZE, fixedBytes, command + " body");
        int ss = u16(m, Smb2Header.SIZE);
        if (ss != structureSize) {
            throw new Smb2DecodeException(command + " StructureSize " + ss + ", expected " + structureSize);
        }
    }

    public static int u8(ByteBuffer m, int at) {
        return m.get(at) & 0xff;
    }

    public static int u16(ByteBuffer m, int at) {
        return m.getShort(at) & 0xffff;
    }

    public static int i32(ByteBuffer m, int at) {
        return m.getInt(at);
    }

    public static long u32(ByteBuffer m, int at) {
        return m.getInt(at) & 0xffffffffL;
    }

    public static long i64(ByteBuffer m, int at) {
        return m.getLong(at);
    }

    public static byte[] bytes(ByteBuffer m, int at, int length) throws Smb2DecodeException {
        range(m, at, length, "field");
        byte[] b = new byte[length];
        m.get(at, b);
        return b;
    }

    /** A buffer given by an (offset, length) pair; an empty one may have any offset. */
    public static ByteBuffer slice(ByteBuffer m, long offset, long length, String what) throws Smb2DecodeException {
        if (length == 0) {
            return ByteBuffer.allocate(0).order(ByteOrder.LITTLE_ENDIAN);
        }
        range(m, offset, length, what);
        return m.slice((int) offset, (int) length).order(ByteOrder.LITTLE_ENDIAN);
    }

    /** UTF-16LE text of {@code length} bytes (even) at {@code offset}. */
    public static String utf16(ByteBuffer m, long offset, int length, String what) throws Smb2DecodeException {
        if (length == 0) {
            return "";
        }
        if ((length & 1) != 0) {
            throw new Smb2DecodeException(what + " has an odd length " + length);
        }
        range(m, offset, length, what);
        byte[] b = new byte[length];
        m.get((int) offset, b);
        return new String(b, StandardCharsets.UTF_16LE);
    }

    public static byte[] utf16(String s) {
        return s.getBytes(StandardCharsets.UTF_16LE);
    }

    public static int align8(int n) {
        return (n + 7) & ~7;
    }
}
