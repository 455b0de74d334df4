package io.rdmagate.rdma.softiwarp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.rdmagate.rdma.QueuePair;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.util.Random;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;

/**
 * The receive path against malformed and hostile input: truncated FPDUs, wrong lengths, bogus
 * opcodes and queues, MSN gaps, MO jumps, reads beyond the IRD, tagged accesses beyond the
 * region, bad CRCs. Whatever arrives, the queue pair ends the connection cleanly (or keeps it for
 * well-formed input), no exception escapes, and no byte outside the registered region changes.
 *
 * <p>{@link #fuzzReceivePath} is a Jazzer target (run it with JAZZER_FUZZ=1 to fuzz; otherwise it
 * replays its inputs); {@link #mutatedTrafficNeverEscapes} runs a fixed-seed mutation campaign in
 * every build ({@code -Drdmagate.fuzz.rounds=N} for a long run).
 */
class ReceivePathFuzzTest {

    @FuzzTest(maxDuration = "30s")
    void fuzzReceivePath(byte[] input) throws Exception {
        try (ReceivePathHarness h = new ReceivePathHarness()) {
            QueuePair.State end = h.run(input, false);
            assertNotEquals(QueuePair.State.CONNECTED, end, "the input ended, so the connection did");
            assertEquals(0, h.device.internalErrors(), "no unexpected exception on the receive path");
            assertTrue(h.guardsIntact(), "nothing outside the region was written");
        }
    }

    @Test
    void wellFormedTrafficIsPlacedAndTheStreamEndsCleanly() throws Exception {
        try (ReceivePathHarness h = new ReceivePathHarness()) {
            byte[] traffic = validTraffic(h, false);
            assertEquals(QueuePair.State.ERROR, h.run(traffic, false), "ends at end of stream");
            assertEquals(0, h.device.accessViolations());
            assertEquals(0, h.device.internalErrors());
            assertTrue(h.guardsIntact());
        }
    }

    /** The receive side reads ahead of the FPDU it handles: however the socket splits the stream, the same bytes land. */
    @Test
    void trafficSplitAnywhereByTheSocketIsPlacedAlike() throws Exception {
        byte[] whole;
        try (ReceivePathHarness h = new ReceivePathHarness()) {
            h.run(validTraffic(h, true), true);
            whole = h.placed();
        }
        for (int chunk : new int[] {1, 2, 3, 5, 7, 19, 64, 1000}) {
            try (ReceivePathHarness h = new ReceivePathHarness()) {
                assertEquals(QueuePair.State.ERROR, h.run(validTraffic(h, true), true, chunk), "ends at end of stream");
                assertEquals(0, h.device.accessViolations(), "chunks of " + chunk);
                assertEquals(0, h.device.internalErrors(), "chunks of " + chunk);
                org.junit.jupiter.api.Assertions.assertArrayEquals(whole, h.placed(), "chunks of " + chunk);
            }
        }
        assertTrue(java.util.stream.IntStream.range(0, whole.length).anyMatch(i -> whole[i] != (byte) 0xA5),
                "the traffic placed something");
    }

    @Test
    void mutatedTrafficNeverEscapes() throws Exception {
        Random rnd = new Random(20261202);
        int rounds = Integer.getInteger("rdmagate.fuzz.rounds", 1500);
        long t0 = System.nanoTime();
        long[] ends = new long[QueuePair.State.values().length];
        // one device, protection domain and region for the campaign, a fresh queue pair per stream
        try (ReceivePathHarness h = new ReceivePathHarness()) {
            byte[][] valid = {validTraffic(h, false), validTraffic(h, true)};
            for (int round = 0; round < rounds; round++) {
                h.reset();
                boolean crc = round % 5 == 0;
                byte[] t = valid[crc ? 1 : 0].clone();
                int mutations = 1 + rnd.nextInt(4);
                for (int m = 0; m < mutations; m++) {
                    switch (rnd.nextInt(4)) {
                        case 0 -> t[rnd.nextInt(t.length)] ^= (byte) (1 << rnd.nextInt(8));
                        case 1 -> t[rnd.nextInt(t.length)] = (byte) rnd.nextInt(256);
                        case 2 -> t = java.util.Arrays.copyOf(t, rnd.nextInt(t.length));
                        default -> {
                            int at = rnd.nextInt(t.length);
                            t[at] = (byte) 0xff;
                            t[Math.min(t.length - 1, at + 1)] = (byte) 0xff;
                        }
                    }
                    if (t.length == 0) {
                        break;
                    }
                }
                QueuePair.State end = h.run(t, crc);
                ends[end.ordinal()]++;
                assertNotEquals(QueuePair.State.CONNECTED, end);
                if (h.device.internalErrors() != 0 || !h.guardsIntact()) {
                    assertEquals(0, h.device.internalErrors(), "round " + round);
                    assertTrue(h.guardsIntact(), "round " + round);
                }
            }
            System.out.printf("ReceivePathFuzzTest: %d mutated streams in %.1f s, %d access violations refused, ends %s%n",
                    rounds, (System.nanoTime() - t0) / 1e9, h.device.accessViolations(), java.util.stream.IntStream
                            .range(0, ends.length).filter(i -> ends[i] > 0)
                            .mapToObj(i -> QueuePair.State.values()[i] + "=" + ends[i]).toList());
        }
    }

    /** Sends into each posted receive (one in two segments), a Write, a Read Request, a zero-length Send. */
    private static byte[] validTraffic(ReceivePathHarness h, boolean crc) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.writeBytes(untagged(0x3, false, 0, 1, 0, pattern(300, 1), crc));
        out.writeBytes(untagged(0x3, true, 0, 1, 300, pattern(700, 2), crc));
        out.writeBytes(untagged(0x5, true, 0, 2, 0, pattern(10, 3), crc));
        out.writeBytes(tagged(0x0, h.region.rkey(), h.region.address() + 4000, pattern(96, 4), crc));
        ByteBuffer rr = ByteBuffer.allocate(28).putInt(0x99).putLong(0).putInt(512).putInt(h.region.rkey())
                .putLong(h.region.address());
        out.writeBytes(untagged(0x1, true, 1, 1, 0, rr.array(), crc));
        out.writeBytes(untagged(0x3, true, 0, 3, 0, new byte[0], crc));
        return out.toByteArray();
    }

    private static byte[] pattern(int n, int seed) {
        byte[] b = new byte[n];
        new Random(seed).nextBytes(b);
        return b;
    }

    private static byte[] untagged(int opcode, boolean last, int qn, int msn, int mo, byte[] payload, boolean crc) {
        ByteBuffer b = ByteBuffer.allocate(2 + 18 + payload.length + 3 + 4);
        b.putShort((short) (18 + payload.length)).put((byte) ((last ? 0x40 : 0) | 1)).put((byte) (0x40 | opcode));
        b.putInt(0).putInt(qn).putInt(msn).putInt(mo).put(payload);
        return finish(b, crc);
    }

    private static byte[] tagged(int opcode, int stag, long to, byte[] payload, boolean crc) {
        ByteBuffer b = ByteBuffer.allocate(2 + 14 + payload.length + 3 + 4);
        b.putShort((short) (14 + payload.length)).put((byte) 0xC1).put((byte) (0x40 | opcode)).putInt(stag).putLong(to)
                .put(payload);
        return finish(b, crc);
    }

    private static byte[] finish(ByteBuffer b, boolean crc) {
        while (b.position() % 4 != 0) {
            b.put((byte) 0);
        }
        int c = 0;
        if (crc) {
            CRC32C k = new CRC32C();
            k.update(b.array(), 0, b.position());
            c = (int) k.getValue();
        }
        b.put((byte) c).put((byte) (c >>> 8)).put((byte) (c >>> 16)).put((byte) (c >>> 24));
        return java.util.Arrays.copyOf(b.array(), b.position());
    }
}
