package io.rdmagate.oncrpc.xdr;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.CompositeByteBuf;
import io.rdmagate.vfs.memory.IoMemory;

/**
 * An encoded XDR message in up to three parts: the head, an optional DDP-eligible payload (RFC
 * 8267 §2) kept in its own memory, and the tail (the payload's padding and what follows it). A
 * TCP transport writes the parts in order with a gathering write; an RPC-over-RDMA transport can
 * RDMA-Write {@link #payload()} and send head and tail inline (RFC 8166 §3.4.5).
 *
 * <p>Owns one reference to each part; {@link #release} or {@link #toByteBuf} gives them up.
 */
public final class XdrMessage {
    private ByteBuf head;
    private IoMemory payload;
    private final int payloadPosition;
    private ByteBuf tail;

    public XdrMessage(ByteBuf head, IoMemory payload, int payloadPosition, ByteBuf tail) {
        this.head = head;
        this.payload = payload;
        this.payloadPosition = payloadPosition;
        this.tail = tail;
    }

    public ByteBuf head() {
        return head;
    }

    /** The DDP-eligible payload, or null. */
    public IoMemory payload() {
        return payload;
    }

    /** XDR offset of the payload's first byte in the message, or -1 without a payload. */
    public int payloadPosition() {
        return payloadPosition;
    }

    public ByteBuf tail() {
        return tail;
    }

    /** Total XDR length, padding included. */
    public int length() {
        return head.readableBytes() + (payload == null ? 0 : (int) payload.length()) + tail.readableBytes();
    }

    /**
     * The parts as one composite buffer, after {@code prefix} if not null (a record mark); the
     * payload becomes a component that wraps its memory, released when Netty frees it. This
     * message gives up its parts to the buffer.
     */
    public CompositeByteBuf toByteBuf(ByteBufAllocator alloc, ByteBuf prefix) {
        CompositeByteBuf c = alloc.compositeDirectBuffer(4);
        if (prefix != null) {
            c.addComponent(true, prefix);
        }
        c.addComponent(true, head);
        if (payload != null) {
            c.addComponent(true, PayloadByteBuf.wrap(payload));
        }
        if (tail.isReadable()) {
            c.addComponent(true, tail);
        } else {
            tail.release();
        }
        head = null;
        payload = null;
        tail = null;
        return c;
    }

    /** Copies the whole message into a byte array, leaving the parts as they are. */
    public byte[] toBytes() {
        return toBytes(0, 0);
    }

    /**
     * Copies the message from XDR offset {@code from} on into a new array, after {@code leading}
     * bytes left zero for the caller, leaving the parts as they are.
     */
    public byte[] toBytes(int from, int leading) {
        if (from < 0 || from > length() || leading < 0) {
            throw new IndexOutOfBoundsException("from " + from + " of " + length() + ", leading " + leading);
        }
        byte[] out = new byte[leading + length() - from];
        int at = leading;
        int skip = from;
        int n = head.readableBytes();
        if (skip < n) {
            head.getBytes(head.readerIndex() + skip, out, at, n - skip);
            at += n - skip;
            skip = 0;
        } else {
            skip -= n;
        }
        if (payload != null) {
            n = (int) payload.length();
            if (skip < n) {
                java.lang.foreign.MemorySegment.copy(payload.segment(), java.lang.foreign.ValueLayout.JAVA_BYTE, skip, out,
                        at, n - skip);
                at += n - skip;
                skip = 0;
            } else {
                skip -= n;
            }
        }
        tail.getBytes(tail.readerIndex() + skip, out, at, tail.readableBytes() - skip);
        return out;
    }

    public void release() {
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
