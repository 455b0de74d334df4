package io.rdmagate.oncrpc.tcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class RecordMarkingDecoderTest {

    private static EmbeddedChannel channel(int max) {
        return new EmbeddedChannel(new RecordMarkingDecoder(max, 4));
    }

    private static byte[] seq(int n, int from) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) {
            b[i] = (byte) (from + i);
        }
        return b;
    }

    private static ByteBuf fragment(boolean last, byte[] data) {
        return Unpooled.buffer().writeInt((last ? 0x80000000 : 0) | data.length).writeBytes(data);
    }

    private static byte[] read(EmbeddedChannel ch) {
        ByteBuf b = ch.readInbound();
        if (b == null) {
            return null;
        }
        byte[] out = ByteBufUtil.getBytes(b);
        b.release();
        return out;
    }

    @Test
    void reassemblesMultiFragmentRecords() {
        EmbeddedChannel ch = channel(1024);
        ch.writeInbound(fragment(false, seq(10, 0)));
        assertNull(ch.readInbound());
        ch.writeInbound(Unpooled.wrappedBuffer(fragment(false, seq(3, 10)), fragment(true, seq(7, 13)),
                fragment(true, seq(9, 100))));
        assertEquals(ByteBufUtil.hexDump(seq(20, 0)), ByteBufUtil.hexDump(read(ch)));
        assertEquals(ByteBufUtil.hexDump(seq(9, 100)), ByteBufUtil.hexDump(read(ch)));
        assertTrue(ch.isOpen());
        assertFalse(ch.finish());
    }

    @Test
    void anySplitOfTheStreamGivesTheSameRecords() {
        ByteBuf stream = Unpooled.wrappedBuffer(fragment(true, seq(12, 0)), fragment(false, seq(9, 50)),
                fragment(true, seq(8, 59)), fragment(true, seq(16, 90)));
        byte[] all = ByteBufUtil.getBytes(stream);
        List<String> expected = List.of(ByteBufUtil.hexDump(seq(12, 0)), ByteBufUtil.hexDump(seq(17, 50)),
                ByteBufUtil.hexDump(seq(16, 90)));
        for (int cut1 = 0; cut1 <= all.length; cut1++) {
            for (int cut2 = cut1; cut2 <= all.length; cut2 += 3) {
                EmbeddedChannel ch = channel(1024);
                ch.writeInbound(Unpooled.wrappedBuffer(all, 0, cut1));
                ch.writeInbound(Unpooled.wrappedBuffer(all, cut1, cut2 - cut1));
                ch.writeInbound(Unpooled.wrappedBuffer(all, cut2, all.length - cut2));
                List<String> got = new ArrayList<>();
                byte[] r;
                while ((r = read(ch)) != null) {
                    got.add(ByteBufUtil.hexDump(r));
                }
                assertEquals(expected, got, "cut at " + cut1 + "/" + cut2);
                ch.finishAndReleaseAll();
            }
        }
        // and byte by byte
        EmbeddedChannel ch = channel(1024);
        for (byte b : all) {
            ch.writeInbound(Unpooled.wrappedBuffer(new byte[] {b}));
        }
        assertEquals(expected.get(0), ByteBufUtil.hexDump(read(ch)));
        assertEquals(expected.get(1), ByteBufUtil.hexDump(read(ch)));
        assertEquals(expected.get(2), ByteBufUtil.hexDump(read(ch)));
    }

    @Test
    void anOversizeRecordClosesTheConnectionAsSoonAsItsMarkArrives() {
        EmbeddedChannel ch = channel(100);
        ch.writeInbound(Unpooled.buffer().writeInt(0x80000000 | 101));
        assertFalse(ch.isOpen(), "closed on the mark, before any of the body");
        assertNull(ch.readInbound());
    }

    @Test
    void fragmentsThatAddUpOverTheLimitClose() {
        EmbeddedChannel ch = channel(100);
        ch.writeInbound(fragment(false, seq(60, 0)));
        assertTrue(ch.isOpen());
        ch.writeInbound(Unpooled.buffer().writeInt(41));
        assertFalse(ch.isOpen());
    }

    @Test
    void absurdLengthCloses() {
        EmbeddedChannel ch = channel(1 << 20);
        ch.writeInbound(Unpooled.buffer().writeInt(0xFFFFFFFF));
        assertFalse(ch.isOpen());
    }

    @Test
    void emptyAndTinyRecordsClose() {
        EmbeddedChannel ch = channel(100);
        ch.writeInbound(Unpooled.buffer().writeInt(0x80000000));
        assertFalse(ch.isOpen());
        ch = channel(100);
        ch.writeInbound(fragment(false, seq(3, 0)));
        ch.writeInbound(fragment(true, seq(4, 0)));
        assertFalse(ch.isOpen());
    }

    @Test
    void tooManyFragmentsClose() {
        EmbeddedChannel ch = channel(100);
        for (int i = 0; i < 4; i++) {
            ch.writeInbound(Unpooled.buffer().writeInt(0));
        }
        assertTrue(ch.isOpen());
        ch.writeInbound(Unpooled.buffer().writeInt(0));
        assertFalse(ch.isOpen());
    }

    /** Above 16 fragments a composite merges its components; the count must hold past that. */
    @Test
    void theFragmentLimitHoldsForLargeLimits() {
        int limit = 1024;
        EmbeddedChannel ch = new EmbeddedChannel(new RecordMarkingDecoder(1 << 20, limit));
        for (int i = 0; i < limit; i++) {
            ch.writeInbound(fragment(false, seq(1, i)));
        }
        assertTrue(ch.isOpen(), "exactly the limit is allowed so far");
        ch.writeInbound(fragment(true, seq(1, 0)));
        assertFalse(ch.isOpen(), "fragment " + (limit + 1) + " closes the connection");

        EmbeddedChannel ok = new EmbeddedChannel(new RecordMarkingDecoder(1 << 20, limit));
        for (int i = 0; i < limit - 1; i++) {
            ok.writeInbound(fragment(false, seq(1, i)));
        }
        ok.writeInbound(fragment(true, seq(1, limit - 1)));
        assertEquals(ByteBufUtil.hexDump(seq(limit, 0)), ByteBufUtil.hexDump(read(ok)), "a record of exactly the limit");
        assertTrue(ok.isOpen());
        assertFalse(ok.finish());
    }
}
