package io.rdmagate.oncrpc.xdr;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.rdmagate.vfs.memory.IoMemory;
import java.nio.charset.StandardCharsets;

/**
 * An RFC 4506 writer into pooled Netty buffers.
 *
 * <p>Operation: items go into the head buffer until {@link #writePayload} appends a DDP-eligible
 * payload (RFC 8267 §2: READ data, READLINK text); the payload is not copied but kept as its own
 * part, and everything after it (its XDR padding, then later items) goes into a tail buffer.
 * {@link #finish} hands the three parts over as an {@link XdrMessage}; the encoder is then empty.
 */
public final class XdrEncoder {
    private static final byte[] ZEROS = new byte[4];

    private final ByteBufAllocator alloc;
    private ByteBuf head;
    private IoMemory payload;
    private int payloadPosition = -1;
    private ByteBuf tail;

    public XdrEncoder(ByteBufAllocator alloc) {
        this(alloc, alloc.buffer(256));
    }

    /** Writes after what {@code head} already holds; takes ownership of it. */
    public XdrEncoder(ByteBufAllocator alloc, ByteBuf head) {
        this.alloc = alloc;
        this.head = head;
    }

    private ByteBuf out() {
        if (head == null) {
            throw new IllegalStateException("encoder already finished");
        }
        return payload == null ? head : tail;
    }

    /** XDR offset of the next item from the start of the message. */
    public int position() {
        return payload == null ? head.readableBytes()
                : payloadPosition + (int) payload.length() + tail.readableBytes();
    }

    /**
     * Overwrites the 4-byte item written at XDR offset {@code position} (a count or status known only
     * after what follows it was written, as an NFSv4 COMPOUND's result count).
     */
    public XdrEncoder patchInt(int position, int v) {
        if (payload == null || position < payloadPosition) {
            head.setInt(head.readerIndex() + position, v);
        } else {
            tail.setInt(tail.readerIndex() + position - payloadPosition - (int) payload.length(), v);
        }
        return this;
    }

    /**
     * Drops everything written from XDR offset {@code position} on (an operation that failed after
     * it began its result). A payload written after {@code position} cannot be taken back.
     */
    public XdrEncoder truncate(int position) {
        if (payload == null) {
            head.writerIndex(head.readerIndex() + position);
        } else if (position >= payloadPosition + (int) payload.length()) {
            tail.writerIndex(tail.readerIndex() + position - payloadPosition - (int) payload.length());
        } else {
            throw new IllegalStateException("cannot truncate into the payload at " + payloadPosition);
        }
        return this;
    }

    /** A copy of the bytes written between XDR offsets {@code from} and {@code to}, which must lie before any payload. */
    public byte[] copyRange(int from, int to) {
        if (payload != null && to > payloadPosition) {
            throw new IllegalStateException("a payload is not copied");
        }
        byte[] out = new byte[to - from];
        head.getBytes(head.readerIndex() + from, out);
        return out;
    }

    /** Whether a DDP-eligible payload was written (a message carries one). */
    public boolean hasPayload() {
        return payload != null;
    }

    public XdrEncoder writeInt(int v) {
        out().writeInt(v);
        return this;
    }

    public XdrEncoder writeUnsignedInt(long v) {
        out().writeInt((int) v);
        return this;
    }

    public XdrEncoder writeHyper(long v) {
        out().writeLong(v);
        return this;
    }

    public XdrEncoder writeBool(boolean v) {
        out().writeInt(v ? 1 : 0);
        return this;
    }

    /** RFC 4506 §4.9 opaque[n]. */
    public XdrEncoder writeFixedOpaque(byte[] data) {
        ByteBuf o = out();
        o.writeBytes(data);
        o.writeBytes(ZEROS, 0, Xdr.pad(data.length));
        return this;
    }

    /** RFC 4506 §4.10 opaque<>, copied (for small items; payloads go through {@link #writePayload}). */
    public XdrEncoder writeOpaque(byte[] data) {
        out().writeInt(data.length);
        return writeFixedOpaque(data);
    }

    /** RFC 4506 §4.10 opaque<> from a buffer's readable bytes (copied; the buffer is untouched). */
    public XdrEncoder writeOpaque(ByteBuf data) {
        ByteBuf o = out();
        int n = data.readableBytes();
        o.writeInt(n);
        o.writeBytes(data, data.readerIndex(), n);
        o.writeBytes(ZEROS, 0, Xdr.pad(n));
        return this;
    }

    /** RFC 4506 §4.11 string<>, as UTF-8. */
    public XdrEncoder writeString(String s) {
        ByteBuf o = out();
        int lenAt = o.writerIndex();
        o.writeInt(0);
        int n = o.writeCharSequence(s, StandardCharsets.UTF_8);
        o.setInt(lenAt, n);
        o.writeBytes(ZEROS, 0, Xdr.pad(n));
        return this;
    }

    /**
     * Appends opaque<> whose data is {@code memory}, DDP-eligible (RFC 8267 §2): the length word
     * goes inline, the data stays in its own memory, its padding starts the tail. Takes over the
     * caller's reference of {@code memory}. One payload per message.
     */
    public XdrEncoder writePayload(IoMemory memory) {
        if (payload != null) {
            memory.release();
            throw new IllegalStateException("a message carries one DDP-eligible payload");
        }
        ByteBuf o = out();
        int n = (int) memory.length();
        o.writeInt(n);
        payloadPosition = o.readableBytes();
        payload = memory;
        tail = alloc.buffer(64);
        tail.writeBytes(ZEROS, 0, Xdr.pad(n));
        return this;
    }

    /** Hands the message over; the encoder must not be used again. */
    public XdrMessage finish() {
        XdrMessage m = new XdrMessage(head, payload, payloadPosition, tail == null ? Unpooled.EMPTY_BUFFER : tail);
        head = null;
        payload = null;
        tail = null;
        return m;
    }

    /** Releases what was written, when a reply is abandoned. */
    public void discard() {
        if (head != null) {
            head.release();
            head = null;
        }
        if (payload != null) {
            payload.release();
            payload = null;
        }
        if (tail != null) {
            tail.release();
            tail = null;
        }
    }
}
