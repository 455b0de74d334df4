package io.rdmagate.oncrpc.tcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * A fixed-seed mutation campaign against the record-marking decoder (RFC 5531 §11) every TCP
 * listener of the RPC programs runs: streams of records of one to several fragments, with marks
 * whose lengths and last-fragment bits are mutated (edges around the limits, zero, 2^31 - 1),
 * bytes flipped, cuts and surplus bytes, delivered in random splits. What the decoder hands on,
 * and whether it closes the connection, must be exactly what a plain reading of the stream by
 * §11 and the decoder's limits gives ({@link #model}); every buffer it was given or made is
 * released afterwards (no leak, whatever the stream). {@code -Drdmagate.fuzz.rounds=N} runs longer.
 */
class RecordMarkingFuzzTest {
    private static final int MAX_RECORD = 4096;
    private static final int MAX_FRAGMENTS = 8;
    private static final int[] EDGES = {0, 1, 7, 8, 9, MAX_RECORD - 1, MAX_RECORD, MAX_RECORD + 1, 0x7fffffff, 0x80000000,
            0x80000007, 0x80000008, 0x80000000 | MAX_RECORD, 0x80000000 | (MAX_RECORD + 1), -1};

    /** What a reading of {@code stream} by RFC 5531 §11 under the decoder's limits gives. */
    private record Expected(List<byte[]> records, boolean closed) {
    }

    @Test
    void mutatedStreamsGiveTheRecordsTheStreamHoldsOrClose() {
        Random rnd = new Random(5531);
        long rounds = Long.getLong("rdmagate.fuzz.rounds", 100_000);
        long records = 0;
        long closed = 0;
        long t0 = System.nanoTime();
        for (long round = 0; round < rounds; round++) {
            byte[] stream = mutate(stream(rnd), rnd);
            Expected want = model(stream);
            List<ByteBuf> given = new ArrayList<>();
            EmbeddedChannel ch = new EmbeddedChannel(new RecordMarkingDecoder(MAX_RECORD, MAX_FRAGMENTS));
            List<byte[]> got = new ArrayList<>();
            int at = 0;
            while (at < stream.length && ch.isOpen()) {
                int n = Math.min(stream.length - at, 1 + rnd.nextInt(rnd.nextBoolean() ? 16 : 600));
                ByteBuf chunk = Unpooled.wrappedBuffer(Arrays.copyOfRange(stream, at, at + n));
                given.add(chunk);
                ch.writeInbound(chunk);
                at += n;
                for (ByteBuf r; (r = ch.readInbound()) != null; ) {
                    got.add(ByteBufUtil.getBytes(r));
                    r.release();
                }
            }
            boolean open = ch.isOpen();
            ch.finishAndReleaseAll();
            if (got.size() != want.records().size() || open == want.closed()
                    || !sameRecords(got, want.records())) {
                throw new AssertionError("round " + round + ": stream " + ByteBufUtil.hexDump(stream) + " gave "
                        + got.size() + " records, open " + open + "; expected " + want.records().size()
                        + ", closed " + want.closed());
            }
            for (ByteBuf b : given) {
                assertEquals(0, b.refCnt(), "round " + round + ": every received buffer released");
            }
            records += got.size();
            closed += want.closed() ? 1 : 0;
        }
        System.out.printf("RecordMarkingFuzzTest: %d mutated streams in %.1f s: %d records, %d connections closed%n",
                rounds, (System.nanoTime() - t0) / 1e9, records, closed);
        assertTrue(records > rounds / 2, "many records came through");
        assertTrue(closed > rounds / 20 && closed < rounds, "many streams, not all, closed the connection");
    }

    private static boolean sameRecords(List<byte[]> a, List<byte[]> b) {
        for (int i = 0; i < a.size(); i++) {
            if (!Arrays.equals(a.get(i), b.get(i))) {
                return false;
            }
        }
        return true;
    }

    /** One to four records, each of one to four fragments of 0 to 600 bytes, the last one marked. */
    private static byte[] stream(Random rnd) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int records = 1 + rnd.nextInt(4);
        for (int r = 0; r < records; r++) {
            int fragments = 1 + rnd.nextInt(4);
            for (int f = 0; f < fragments; f++) {
                int length = rnd.nextInt(4) == 0 ? rnd.nextInt(8) : 8 + rnd.nextInt(600);
                out.writeBytes(ByteBuffer.allocate(4).putInt((f == fragments - 1 ? 0x80000000 : 0) | length).array());
                byte[] data = new byte[length];
                rnd.nextBytes(data);
                out.writeBytes(data);
            }
        }
        return out.toByteArray();
    }

    /** Marks set to edges, bits flipped, a cut, surplus bytes: one to three of them. */
    private static byte[] mutate(byte[] s, Random rnd) {
        byte[] m = s;
        int mutations = rnd.nextInt(4); // some streams stay valid
        List<Integer> marks = marks(s);
        for (int k = 0; k < mutations && m.length > 0; k++) {
            switch (rnd.nextInt(5)) {
                case 0 -> {
                    int at = marks.get(rnd.nextInt(marks.size()));
                    if (at + 4 <= m.length) {
                        ByteBuffer.wrap(m).putInt(at, EDGES[rnd.nextInt(EDGES.length)]);
                    }
                }
                case 1 -> {
                    int at = marks.get(rnd.nextInt(marks.size()));
                    if (at < m.length) {
                        m[at] ^= (byte) 0x80; // the last-fragment bit
                    }
                }
                case 2 -> m[rnd.nextInt(m.length)] ^= (byte) (1 << rnd.nextInt(8));
                case 3 -> m = Arrays.copyOf(m, rnd.nextInt(m.length + 1));
                default -> {
                    byte[] more = new byte[1 + rnd.nextInt(12)];
                    rnd.nextBytes(more);
                    byte[] longer = Arrays.copyOf(m, m.length + more.length);
                    System.arraycopy(more, 0, longer, m.length, more.length);
                    m = longer;
                }
            }
        }
        return m;
    }

    /** Where the valid stream's marks are. */
    private static List<Integer> marks(byte[] s) {
        List<Integer> out = new ArrayList<>();
        ByteBuffer b = ByteBuffer.wrap(s);
        for (int at = 0; at + 4 <= s.length; at += 4 + (b.getInt(at) & 0x7fffffff)) {
            out.add(at);
        }
        return out;
    }

    /**
     * RFC 5531 §11 under the decoder's limits, read plainly from the whole stream: a mark whose
     * record would pass {@link #MAX_RECORD} bytes, a record of more than {@link #MAX_FRAGMENTS}
     * fragments or of fewer than 8 bytes (no xid and msg_type) closes the connection; what is cut
     * short at the end of the stream is waited for.
     */
    private static Expected model(byte[] s) {
        ByteBuffer b = ByteBuffer.wrap(s);
        List<byte[]> records = new ArrayList<>();
        ByteArrayOutputStream partial = new ByteArrayOutputStream();
        int fragments = 0;
        int at = 0;
        while (s.length - at >= 4) {
            int mark = b.getInt(at);
            boolean last = mark < 0;
            int length = mark & 0x7fffffff;
            if ((long) partial.size() + length > MAX_RECORD) {
                return new Expected(records, true);
            }
            if (s.length - at - 4 < length) {
                break;
            }
            if (fragments >= MAX_FRAGMENTS) {
                return new Expected(records, true);
            }
            partial.write(s, at + 4, length);
            fragments++;
            at += 4 + length;
            if (last) {
                if (partial.size() < 8) {
                    return new Expected(records, true);
                }
                records.add(partial.toByteArray());
                partial.reset();
                fragments = 0;
            }
        }
        return new Expected(records, false);
    }
}
