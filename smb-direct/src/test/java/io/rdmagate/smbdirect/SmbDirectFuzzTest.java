package io.rdmagate.smbdirect;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import io.rdmagate.rdma.RdmaDevice;
import io.rdmagate.rdma.RdmaResources;
import io.rdmagate.rdma.loopback.LoopbackFabric;
import io.rdmagate.smbdirect.client.SmbDirectClient;
import io.rdmagate.smbdirect.message.DataTransfer;
import io.rdmagate.smbdirect.message.NegotiateRequest;
import io.rdmagate.vfs.memory.IoMemoryPool;
import io.rdmagate.vfs.memory.PayloadCopies;
import io.rdmagate.vfs.memory.PoolLimits;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * A fixed-seed mutation campaign against the SMB Direct server's parsers, through the loopback
 * provider: Negotiate Requests as a connection's first message, then Data Transfer Messages on
 * negotiated connections, each with its fields set to edges (credits, flags, RemainingDataLength,
 * DataOffset, DataLength), bytes flipped, cut or extended. Every message is taken or ends its
 * connection; no completion handler throws ({@link SmbDirectServer#internalErrors()}); every
 * buffer is back in the pool afterwards; a well-behaved client is served at the end.
 * {@code -Drdmagate.fuzz.rounds=N} runs longer.
 */
class SmbDirectFuzzTest {
    private static final int ROUNDS = Integer.getInteger("rdmagate.fuzz.rounds", 1500);
    private static final int[] EDGES = {0, 1, 7, 8, 19, 20, 23, 24, 25, 1340, 1364, 1365, 65535, 65536, 131072,
            1 << 20, (1 << 20) + 1, Integer.MAX_VALUE, -1};

    @Test
    void mutatedNegotiateAndDataTransferMessagesAreTakenOrEndTheirConnection() throws Exception {
        LoopbackFabric fabric = new LoopbackFabric();
        RdmaDevice clientDevice = fabric.device("client");
        RdmaResources rdma = RdmaResources.open(fabric.device("server"));
        IoMemoryPool pool = new IoMemoryPool(
                new PoolLimits(64L << 20, 16L << 20, 4 << 20, 4 << 10, 1 << 20, Duration.ofSeconds(1)), rdma);
        SmbDirectServer server = new SmbDirectServer(rdma, pool, new PayloadCopies(),
                SmbDirectOptions.defaults().withTimeouts(Duration.ofMillis(500), Duration.ofSeconds(120)),
                c -> new SmbDirectUpper() {
                    private SmbDirectConnection conn;

                    @Override
                    public void opened(SmbDirectConnection connection) {
                        conn = connection;
                    }

                    @Override
                    public void received(ByteBuffer message, Runnable release) {
                        byte[] b = new byte[message.remaining()];
                        message.get(b);
                        release.run();
                        Thread.ofVirtual().start(() -> conn.send(List.of(ByteBuffer.wrap(b)), null, -1));
                    }

                    @Override
                    public void closed() {
                    }
                });
        server.bind(new InetSocketAddress("127.0.0.1", 0));
        Random rnd = new Random(0x5D1EC7L);
        int ended = 0;
        try {
            for (int round = 0; round < ROUNDS; round++) {
                boolean negotiatePhase = round % 3 == 0;
                SmbDirectClient c = negotiatePhase ? SmbDirectClient.connectOnly(clientDevice, server.localAddress())
                        : SmbDirectClient.connect(clientDevice, server.localAddress());
                try {
                    byte[] m = negotiatePhase ? mutatedNegotiate(rnd) : mutatedDataTransfer(rnd);
                    c.sendRaw(m);
                    if (c.endsWithin(rnd.nextInt(4) == 0 ? 50 : 2)) {
                        ended++;
                    }
                } finally {
                    c.close();
                }
            }
            assertEquals(0, server.internalErrors(), "no completion handler threw");
            try (SmbDirectClient ok = SmbDirectClient.connect(clientDevice, server.localAddress())) {
                byte[] m = new byte[5000];
                rnd.nextBytes(m);
                ok.send(m);
                ByteBuffer back = ok.receive(10_000);
                assertNotNull(back, "a client is served after the campaign");
                byte[] b = new byte[back.remaining()];
                back.get(b);
                assertArrayEquals(m, b);
            }
        } finally {
            server.close();
        }
        long end = System.nanoTime() + Duration.ofSeconds(20).toNanos();
        while (pool.leasedBytes() != 0 && System.nanoTime() < end) {
            Thread.yield();
        }
        assertEquals(0, pool.leasedBytes(), "every connection's buffers are back in the pool");
        System.out.printf("SMB Direct fuzz: %d rounds, %d connections seen ending at once, 0 internal errors%n", ROUNDS,
                ended);
        pool.close();
        rdma.close();
        clientDevice.close();
    }

    /**
     * The same mutations, 100 times as many, read in memory by the parsers the receive path uses:
     * {@link NegotiateRequest#decode} with the server's acceptance rules, and {@link DataTransfer#check}.
     * A request taken names version 0x0100 among its versions, asks for credits and offers sizes
     * at or above the spec's minimums; a data transfer message taken has its data inside the bytes
     * received, at an offset past the header and 8-aligned, so the slice the server hands up exists.
     */
    @Test
    void mutatedMessagesReadInMemoryKeepEveryPromise() {
        long rounds = 100L * ROUNDS;
        Random rnd = new Random(0x5D1EC8L);
        long[] negotiate = new long[2];
        long[] transfer = new long[3];
        long t0 = System.nanoTime();
        for (long round = 0; round < rounds; round++) {
            if (round % 3 == 0) {
                byte[] m = mutatedNegotiate(rnd);
                NegotiateRequest req = NegotiateRequest.decode(ByteBuffer.wrap(m), m.length);
                String bad = SmbDirectConnection.refusal(req, m.length);
                if (bad == null) {
                    negotiate[0]++;
                    if (m.length < NegotiateRequest.SIZE || req.minVersion() > 0x0100 || req.maxVersion() < 0x0100
                            || req.creditsRequested() == 0
                            || Integer.toUnsignedLong(req.maxReceiveSize()) < SmbDirectOptions.MIN_RECEIVE_SIZE
                            || Integer.toUnsignedLong(req.preferredSendSize()) < SmbDirectOptions.MIN_RECEIVE_SIZE
                            || Integer.toUnsignedLong(req.maxFragmentedSize()) < SmbDirectOptions.MIN_FRAGMENTED_SIZE) {
                        throw new AssertionError("round " + round + ": took " + req);
                    }
                } else {
                    negotiate[1]++;
                }
            } else {
                byte[] b = mutatedDataTransfer(rnd);
                ByteBuffer m = ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN);
                if (DataTransfer.check(m, b.length) != null) {
                    transfer[2]++;
                    continue;
                }
                long length = DataTransfer.dataLength(m);
                if (length == 0) {
                    transfer[0]++;
                    continue;
                }
                long offset = DataTransfer.dataOffset(m);
                if (offset < DataTransfer.DATA_OFFSET || offset % 8 != 0 || offset + length > b.length) {
                    throw new AssertionError("round " + round + ": took DataOffset " + offset + " DataLength " + length
                            + " in " + b.length + " bytes");
                }
                assertEquals(length, m.slice((int) offset, (int) length).remaining());
                transfer[1]++;
            }
        }
        assertNotEquals(0, negotiate[0], "some Negotiate Requests are taken");
        assertNotEquals(0, transfer[1], "some data transfer messages with data are taken");
        System.out.printf("SMB Direct fuzz in memory: %d messages in %.1f s: Negotiate Requests %d taken, %d refused;"
                + " data transfer messages %d with data taken, %d without data, %d refused%n", rounds,
                (System.nanoTime() - t0) / 1e9, negotiate[0], negotiate[1], transfer[1], transfer[0], transfer[2]);
    }

    private static int edge(Random rnd) {
        return rnd.nextInt(3) == 0 ? rnd.nextInt() : EDGES[rnd.nextInt(EDGES.length)];
    }

    private static byte[] mutatedNegotiate(Random rnd) {
        byte[] b = new byte[20];
        new NegotiateRequest(0x0100, 0x0100, 255, 1364, 1364, 1 << 20).encode(ByteBuffer.wrap(b));
        ByteBuffer m = ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN);
        switch (rnd.nextInt(5)) {
            case 0 -> m.putShort(2 * rnd.nextInt(4), (short) edge(rnd));
            case 1 -> m.putInt(8 + 4 * rnd.nextInt(3), edge(rnd));
            case 2 -> b[rnd.nextInt(b.length)] ^= (byte) (1 << rnd.nextInt(8));
            case 3 -> {
                return java.util.Arrays.copyOf(b, rnd.nextInt(b.length));
            }
            default -> {
                byte[] longer = java.util.Arrays.copyOf(b, 20 + rnd.nextInt(200));
                return longer;
            }
        }
        return b;
    }

    private static byte[] mutatedDataTransfer(Random rnd) {
        int data = rnd.nextInt(64);
        byte[] b = new byte[Math.min(1364, 24 + data + (rnd.nextBoolean() ? 0 : rnd.nextInt(64)))];
        ByteBuffer m = ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN);
        m.putShort(0, (short) 255).putShort(2, (short) 1).putShort(4, (short) 0).putInt(8, 0).putInt(12, 24)
                .putInt(16, Math.min(data, b.length - 24));
        int mutations = 1 + rnd.nextInt(3);
        for (int i = 0; i < mutations; i++) {
            switch (rnd.nextInt(7)) {
                case 0 -> m.putShort(0, (short) edge(rnd));
                case 1 -> m.putShort(2, (short) edge(rnd));
                case 2 -> m.putShort(4, (short) edge(rnd));
                case 3 -> m.putInt(8, edge(rnd));
                case 4 -> m.putInt(12, edge(rnd));
                case 5 -> m.putInt(16, edge(rnd));
                default -> b[rnd.nextInt(b.length)] ^= (byte) (1 << rnd.nextInt(8));
            }
        }
        if (rnd.nextInt(8) == 0) {
            return java.util.Arrays.copyOf(b, rnd.nextInt(b.length));
        }
        return b;
    }
}
