package io.rdmagate.smb.msrpce;

import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

/**
 * NDR 2.0 (C706 chapter 14) over a little-endian stub, the primitives MS-SRVS requests use: every
 * primitive 4-byte aligned, conformant varying strings of UTF-16 at most {@link #MAX_STRING}
 * characters. A read past the stub or a string that breaks its bounds is {@link RpcDecodeException}.
 */
public final class Ndr {
    public static final int MAX_STRING = 1024;

    private final ByteBuffer b;

    public Ndr(ByteBuffer stub) {
        this.b = stub.duplicate().order(ByteOrder.LITTLE_ENDIAN);
    }

    public int u32() throws RpcDecodeException {
        int at = (b.position() + 3) & ~3;
        if (at + 4 > b.limit()) {
            throw new RpcDecodeException("NDR stub ends early");
        }
        b.position(at);
        return b.getInt();
    }

    /** A [string] wchar_t*: max count, offset, actual count, then the characters. */
    public String string() throws RpcDecodeException {
        int max = u32();
        u32();
        int actual = u32();
        if (actual < 0 || actual > max || actual > MAX_STRING) {
            throw new RpcDecodeException("NDR string of " + actual + " characters");
        }
        byte[] c = new byte[actual * 2];
        try {
            b.get(c);
        } catch (BufferUnderflowException e) {
            throw new RpcDecodeException("NDR string beyond the stub");
        }
        String s = new String(c, StandardCharsets.UTF_16LE);
        return s.endsWith("\0") ? s.substring(0, s.length() - 1) : s;
    }

    /** A [unique] string pointer: its referent when not null. */
    public String uniqueString() throws RpcDecodeException {
        return u32() != 0 ? string() : null;
    }

    /** NDR writer for reply stubs: 4-byte aligned primitives, referent ids for pointers. */
    public static final class Writer {
        private final ByteBuffer b = ByteBuffer.allocate(65536).order(ByteOrder.LITTLE_ENDIAN);
        private int ref = 0x20000;

        public Writer u32(int v) {
            while (b.position() % 4 != 0) {
                b.put((byte) 0);
            }
            b.putInt(v);
            return this;
        }

        /** A non-null pointer's referent id. */
        public Writer ptr() {
            return u32(ref += 4);
        }

        /** A conformant varying string with its terminating NUL. */
        public Writer string(String s) {
            byte[] c = (s + "\0").getBytes(StandardCharsets.UTF_16LE);
            u32(c.length / 2).u32(0).u32(c.length / 2);
            b.put(c);
            return this;
        }

        public byte[] bytes() {
            while (b.position() % 4 != 0) {
                b.put((byte) 0);
            }
            return java.util.Arrays.copyOf(b.array(), b.position());
        }
    }
}
