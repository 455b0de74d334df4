package io.rdmagate.oncrpc.xdr;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.rdmagate.vfs.memory.IoMemory;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class XdrTest {

    private static byte[] bytes(XdrMessage m) {
        byte[] b = m.toBytes();
        m.release();
        return b;
    }

    @Test
    void roundTripsEveryType() throws Exception {
        XdrEncoder e = new XdrEncoder(PooledByteBufAllocator.DEFAULT);
        e.writeInt(-7).writeUnsignedInt(0xFFFFFFFEL).writeHyper(Long.MIN_VALUE + 3).writeBool(true).writeBool(false)
                .writeFixedOpaque(new byte[] {1, 2, 3}).writeOpaque(new byte[] {9, 8, 7, 6, 5}).writeString("héllo")
                .writeOpaque(new byte[0]);
        byte[] wire = bytes(e.finish());
        assertEquals(4 + 4 + 8 + 4 + 4 + 4 + (4 + 8) + (4 + 8) + 4, wire.length);

        XdrDecoder d = new XdrDecoder(Unpooled.wrappedBuffer(wire));
        assertEquals(-7, d.readInt());
        assertEquals(0xFFFFFFFEL, d.readUnsignedInt());
        assertEquals(Long.MIN_VALUE + 3, d.readHyper());
        assertTrue(d.readBool());
        assertFalse(d.readBool());
        assertArrayEquals(new byte[] {1, 2, 3}, d.readFixedOpaque(3));
        assertArrayEquals(new byte[] {9, 8, 7, 6, 5}, d.readOpaque(5));
        assertEquals("héllo", d.readString(6));
        assertEquals(0, d.readOpaque(0).length);
        assertFalse(d.hasRemaining());
    }

    @Test
    void padsToFourBytesWithZeros() {
        XdrEncoder e = new XdrEncoder(PooledByteBufAllocator.DEFAULT);
        e.writeOpaque(new byte[] {(byte) 0xAA});
        assertEquals("00000001aa000000", ByteBufUtil.hexDump(bytes(e.finish())));
        e = new XdrEncoder(PooledByteBufAllocator.DEFAULT);
        e.writeString("abcd");
        assertEquals("0000000461626364", ByteBufUtil.hexDump(bytes(e.finish())));
    }

    @Test
    void readsPastTheEndThrow() {
        assertThrows(XdrException.class, () -> new XdrDecoder(Unpooled.wrappedBuffer(new byte[3])).readInt());
        assertThrows(XdrException.class, () -> new XdrDecoder(Unpooled.wrappedBuffer(new byte[7])).readHyper());
        // opaque of 5 needs 8 bytes of data with its padding
        ByteBuf b = Unpooled.buffer().writeInt(5).writeBytes(new byte[5]);
        assertThrows(XdrException.class, () -> new XdrDecoder(b).readOpaque(100));
        assertThrows(XdrException.class, () -> new XdrDecoder(Unpooled.wrappedBuffer(new byte[2])).readFixedOpaque(1));
    }

    @Test
    void lengthsOverTheLimitAreRefusedBeforeAnyAllocation() {
        ByteBuf b = Unpooled.buffer().writeInt(11).writeBytes(new byte[12]);
        XdrException ex = assertThrows(XdrException.class, () -> new XdrDecoder(b).readOpaque(10));
        assertTrue(ex.getMessage().contains("limit"), ex.getMessage());
        assertEquals(4, b.readerIndex(), "only the length word was consumed");
        // an absurd length (2^32-1) does not try to allocate 4 GiB
        ByteBuf absurd = Unpooled.buffer().writeInt(-1);
        assertThrows(XdrException.class, () -> new XdrDecoder(absurd).readOpaque(Integer.MAX_VALUE));
        ByteBuf absurd2 = Unpooled.buffer().writeInt(0x7FFFFFFF);
        assertThrows(XdrException.class, () -> new XdrDecoder(absurd2).readOpaqueSlice(Integer.MAX_VALUE));
        ByteBuf s = Unpooled.buffer().writeInt(4).writeBytes("abcd".getBytes(StandardCharsets.US_ASCII));
        assertThrows(XdrException.class, () -> new XdrDecoder(s).readString(3));
        ByteBuf neg = Unpooled.buffer().writeInt(0x80000000);
        assertThrows(XdrException.class, () -> new XdrDecoder(neg).readLength(Integer.MAX_VALUE));
    }

    @Test
    void booleansOtherThanZeroOrOneAreRefused() {
        assertThrows(XdrException.class, () -> new XdrDecoder(Unpooled.buffer().writeInt(2)).readBool());
    }

    @Test
    void opaqueSlicesShareTheMessageMemory() throws Exception {
        ByteBuf msg = Unpooled.directBuffer().writeInt(3).writeBytes(new byte[] {4, 5, 6, 0}).writeInt(42);
        XdrDecoder d = new XdrDecoder(msg);
        ByteBuf slice = d.readOpaqueSlice(3);
        assertEquals(2, msg.refCnt(), "the slice holds a reference of the message");
        assertEquals(msg.memoryAddress() + 4, slice.memoryAddress());
        assertEquals(42, d.readInt());
        slice.release();
        msg.release();
        assertEquals(0, msg.refCnt());
    }

    @Test
    void skipsOpaqueAndFixedItems() throws Exception {
        ByteBuf b = Unpooled.buffer().writeInt(2).writeShort(0).writeShort(0).writeInt(9).writeInt(10);
        XdrDecoder d = new XdrDecoder(b);
        assertEquals(2, d.skipOpaque(8));
        d.skip(4);
        assertEquals(10, d.readInt());
        assertThrows(XdrException.class, () -> d.skip(1));
    }

    @Test
    void payloadStaysASeparatePartWithItsPaddingInTheTail() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment seg = arena.allocate(5);
            seg.copyFrom(MemorySegment.ofArray(new byte[] {1, 2, 3, 4, 5}));
            IoMemory mem = IoMemory.lend(seg);
            XdrEncoder e = new XdrEncoder(PooledByteBufAllocator.DEFAULT);
            e.writeInt(77).writePayload(mem).writeInt(88);
            assertEquals(4 + 4 + 5 + 3 + 4, e.position());
            XdrMessage m = e.finish();
            assertSame(mem, m.payload());
            assertEquals(8, m.payloadPosition());
            assertEquals(8, m.head().readableBytes());
            assertEquals(3 + 4, m.tail().readableBytes());
            assertEquals("0000004d00000005" + "0102030405" + "000000" + "00000058", ByteBufUtil.hexDump(m.toBytes()));
            m.release();
            assertEquals(0, mem.refCount());
        }
    }

    @Test
    void oneMessageCarriesOnePayload() {
        try (Arena arena = Arena.ofConfined()) {
            XdrEncoder e = new XdrEncoder(PooledByteBufAllocator.DEFAULT);
            e.writePayload(IoMemory.lend(arena.allocate(4)));
            IoMemory second = IoMemory.lend(arena.allocate(4));
            assertThrows(IllegalStateException.class, () -> e.writePayload(second));
            assertEquals(0, second.refCount(), "a refused payload is released");
            e.discard();
        }
    }
}
