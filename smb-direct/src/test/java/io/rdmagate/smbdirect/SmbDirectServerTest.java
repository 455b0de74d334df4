package io.rdmagate.smbdirect;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rdmagate.rdma.MemoryRegion;
import io.rdmagate.rdma.RdmaDevice;
import io.rdmagate.rdma.RdmaResources;
import io.rdmagate.rdma.loopback.LoopbackFabric;
import io.rdmagate.smbdirect.client.SmbDirectClient;
import io.rdmagate.smbdirect.message.BufferDescriptor;
import io.rdmagate.smbdirect.message.NegotiateRequest;
import io.rdmagate.smbdirect.message.NegotiateResponse;
import io.rdmagate.vfs.memory.IoMemory;
import io.rdmagate.vfs.memory.IoMemoryPool;
import io.rdmagate.vfs.memory.PayloadCopies;
import io.rdmagate.vfs.memory.PoolLimits;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutionException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The SMB Direct server over the in-memory loopback RDMA provider, against {@link SmbDirectClient}:
 * negotiation, credits, fragmentation both ways, bad input, timers, the connection bound, the RDMA
 * transfers of the RDMA channel, and the pool back to idle afterwards. The upper layer echoes each
 * message, or runs the RDMA command a message names.
 */
class SmbDirectServerTest {
    private final LoopbackFabric fabric = new LoopbackFabric();
    private final RdmaDevice serverDevice = fabric.device("server");
    private final RdmaDevice clientDevice = fabric.device("client");
    private final RdmaResources rdma = RdmaResources.open(serverDevice);
    private final IoMemoryPool pool = new IoMemoryPool(
            new PoolLimits(64L << 20, 16L << 20, 4 << 20, 4 << 10, 1 << 20, Duration.ofSeconds(1)), rdma);
    private final PayloadCopies copies = new PayloadCopies();
    private SmbDirectServer server;

    /** Echoes every message; "R off token len" RDMA-Reads len bytes and writes them back reversed, "W ..." likewise from a fill. */
    private final class Echo implements SmbDirectUpper {
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
            Thread.ofVirtual().start(() -> {
                if (b.length == 40 && b[0] == 'X') {
                    ByteBuffer m = ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN);
                    BufferDescriptor from = new BufferDescriptor(m.getLong(8), m.getInt(16), m.getInt(20));
                    BufferDescriptor to = new BufferDescriptor(m.getLong(24), m.getInt(32), m.getInt(36));
                    try {
                        IoMemory data = conn.rdmaRead(List.of(from), from.length(), pool.account("upper")).get();
                        byte[] d = new byte[(int) data.length()];
                        ByteBuffer.wrap(d).put(data.segment().asByteBuffer());
                        for (int i = 0; i < d.length / 2; i++) {
                            byte t = d[i];
                            d[i] = d[d.length - 1 - i];
                            d[d.length - 1 - i] = t;
                        }
                        data.segment().asByteBuffer().put(d);
                        conn.rdmaWrite(List.of(to), data);
                        conn.send(List.of(ByteBuffer.wrap("done".getBytes())), null, Integer.toUnsignedLong(to.token()));
                    } catch (Exception e) {
                        conn.send(List.of(ByteBuffer.wrap(("failed " + e).getBytes())), null, -1);
                    }
                    return;
                }
                conn.send(List.of(ByteBuffer.wrap(b)), null, -1);
            });
        }

        @Override
        public void closed() {
        }
    }

    private SmbDirectServer start(SmbDirectOptions options) throws Exception {
        server = new SmbDirectServer(rdma, pool, copies, options, c -> new Echo());
        server.bind(new InetSocketAddress("127.0.0.1", 0));
        return server;
    }

    @AfterEach
    void stop() {
        if (server != null) {
            server.close();
        }
        awaitIdle();
        pool.close();
        rdma.close();
        clientDevice.close();
    }

    private void awaitIdle() {
        long end = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (pool.leasedBytes() != 0 && System.nanoTime() < end) {
            Thread.onSpinWait();
            Thread.yield();
        }
        assertEquals(0, pool.leasedBytes(), "every buffer back in the pool once the connections ended");
    }

    private static byte[] random(int n, long seed) {
        byte[] b = new byte[n];
        new Random(seed).nextBytes(b);
        return b;
    }

    private static byte[] bytes(ByteBuffer m) {
        byte[] b = new byte[m.remaining()];
        m.get(b);
        return b;
    }

    @Test
    void negotiatesAsLinuxExpectsAndEchoesMessagesOfEverySize() throws Exception {
        start(SmbDirectOptions.defaults());
        try (SmbDirectClient c = SmbDirectClient.connect(clientDevice, server.localAddress())) {
            NegotiateResponse r = c.negotiateResponse();
            assertEquals(0x0100, r.negotiatedVersion());
            assertEquals(0, r.status());
            assertEquals(64, r.creditsGranted(), "every posted receive granted in the response");
            assertEquals(1364, r.preferredSendSize());
            assertEquals(1364, r.maxReceiveSize());
            assertEquals(1 << 20, r.maxFragmentedSize());
            assertEquals(8 << 20, r.maxReadWriteSize());
            for (int size : new int[] {1, 1340, 1341, 4096, 200_000, 1 << 20}) {
                byte[] m = random(size, size);
                c.send(m);
                ByteBuffer back = c.receive(20_000);
                assertNotNull(back, "echo of " + size + " bytes");
                assertArrayEquals(m, bytes(back), "echo of " + size + " bytes");
            }
            assertNull(c.violation());
            assertEquals(1, server.openConnections());
        }
    }

    @Test
    void manyMessagesStayWithinTheCreditsOfBothSides() throws Exception {
        start(SmbDirectOptions.defaults());
        try (SmbDirectClient c = SmbDirectClient.connect(clientDevice, server.localAddress())) {
            int n = 2000;
            Thread sender = Thread.ofVirtual().start(() -> {
                try {
                    for (int i = 0; i < n; i++) {
                        c.send(ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putInt(i).array());
                    }
                } catch (Exception e) {
                    throw new AssertionError(e);
                }
            });
            boolean[] seen = new boolean[n];
            for (int i = 0; i < n; i++) {
                ByteBuffer m = c.receive(20_000);
                assertNotNull(m, "echo " + i);
                seen[m.getInt(0)] = true;
            }
            sender.join();
            for (boolean s : seen) {
                assertTrue(s);
            }
            assertNull(c.violation(), "the server never sent without a credit nor above the sizes");
        }
    }

    @Test
    void aNegotiateRequestOfAnotherVersionOrSizesBelowTheMinimumsEndsTheConnection() throws Exception {
        start(SmbDirectOptions.defaults());
        NegotiateRequest[] bad = {
            new NegotiateRequest(0x0200, 0x0200, 255, 1364, 1364, 1 << 20),
            new NegotiateRequest(0x0100, 0x0100, 0, 1364, 1364, 1 << 20),
            new NegotiateRequest(0x0100, 0x0100, 255, 1364, 64, 1 << 20),
            new NegotiateRequest(0x0100, 0x0100, 255, 1364, 1364, 4096),
        };
        for (NegotiateRequest req : bad) {
            try (SmbDirectClient c = SmbDirectClient.connectOnly(clientDevice, server.localAddress())) {
                byte[] b = new byte[20];
                req.encode(ByteBuffer.wrap(b));
                c.sendRaw(b);
                assertTrue(c.endsWithin(10_000), "refused: " + req);
            }
        }
        try (SmbDirectClient c = SmbDirectClient.connectOnly(clientDevice, server.localAddress())) {
            c.sendRaw(new byte[7]);
            assertTrue(c.endsWithin(10_000), "a 7-byte negotiate request");
        }
        assertEquals(5, server.refusedNegotiations());
    }

    @Test
    void malformedDataTransferMessagesEndTheConnection() throws Exception {
        start(SmbDirectOptions.defaults());
        byte[][] bad = {
            new byte[12], // shorter than the header
            header(255, 1, 0, 0, 25, 10, 48), // DataOffset not a multiple of 8
            header(255, 1, 0, 0, 24, 1000, 48), // data beyond the message
            header(255, 1, 0, 2 << 20, 24, 24, 48), // a fragmented message above MaxFragmentedSize
            header(0, 1, 0, 0, 24, 8, 48), // CreditsRequested 0
        };
        for (byte[] b : bad) {
            try (SmbDirectClient c = SmbDirectClient.connect(clientDevice, server.localAddress())) {
                c.sendRaw(b);
                assertTrue(c.endsWithin(10_000));
            }
        }
        assertEquals(0, server.refusedNegotiations());
    }

    private static byte[] header(int requested, int granted, int flags, int remaining, int offset, int length, int size) {
        ByteBuffer b = ByteBuffer.allocate(size).order(ByteOrder.LITTLE_ENDIAN);
        b.putShort((short) requested).putShort((short) granted).putShort((short) flags).putShort((short) 0)
                .putInt(remaining).putInt(offset).putInt(length);
        return b.array();
    }

    @Test
    void aConnectionThatNeverNegotiatesIsClosedAndGivesItsBuffersBack() throws Exception {
        start(SmbDirectOptions.defaults().withTimeouts(Duration.ofMillis(300), Duration.ofSeconds(120)));
        try (SmbDirectClient c = SmbDirectClient.connectOnly(clientDevice, server.localAddress())) {
            assertTrue(c.endsWithin(10_000));
        }
        assertEquals(1, server.negotiateTimeouts());
    }

    @Test
    void atTheBoundTheConnectionQuietLongestMakesRoom() throws Exception {
        SmbDirectOptions d = SmbDirectOptions.defaults();
        start(new SmbDirectOptions(d.receiveCredits(), d.sendCredits(), d.maxSendSize(), d.maxReceiveSize(),
                d.maxFragmentedSize(), d.maxReadWriteSize(), d.maxDescriptors(), 2, d.negotiateTimeout(),
                d.keepaliveInterval()));
        try (SmbDirectClient quiet = SmbDirectClient.connect(clientDevice, server.localAddress());
                SmbDirectClient busy = SmbDirectClient.connect(clientDevice, server.localAddress())) {
            busy.send(new byte[] {1});
            assertNotNull(busy.receive(10_000));
            try (SmbDirectClient newcomer = SmbDirectClient.connect(clientDevice, server.localAddress())) {
                assertTrue(quiet.endsWithin(10_000), "the connection that received nothing longest is closed");
                assertEquals(1, server.evictedConnections());
                assertEquals(0, server.refusedConnections());
                assertEquals(2, server.openConnections());
                for (SmbDirectClient c : List.of(busy, newcomer)) {
                    c.send(new byte[] {2});
                    assertNotNull(c.receive(10_000), "the others are served");
                }
            }
        }
    }

    @Test
    void keepAlivesKeepAnAnsweringClientAndEndASilentOne() throws Exception {
        start(SmbDirectOptions.defaults().withTimeouts(Duration.ofSeconds(5), Duration.ofMillis(200)));
        try (SmbDirectClient quiet = SmbDirectClient.connect(clientDevice, server.localAddress());
                SmbDirectClient alive = SmbDirectClient.connect(clientDevice, server.localAddress())) {
            quiet.answerKeepalives(false);
            assertTrue(quiet.endsWithin(10_000), "a client that answers no keep-alive is disconnected");
            int before = alive.receivedMessages();
            assertFalse(alive.endsWithin(1000), "an answering client stays");
            assertTrue(alive.receivedMessages() > before, "keep-alives reached the answering client");
            alive.send(new byte[] {7});
            assertNotNull(alive.receive(10_000));
        }
    }

    @Test
    void rdmaReadsAndWritesMoveDataBetweenRegisteredBuffersAndInvalidateOnRequest() throws Exception {
        start(SmbDirectOptions.defaults());
        try (SmbDirectClient c = SmbDirectClient.connect(clientDevice, server.localAddress())) {
            int n = 300_000;
            MemoryRegion src = c.register(n);
            MemoryRegion dst = c.register(n);
            byte[] data = random(n, 42);
            src.segment().asByteBuffer().put(data);
            ByteBuffer cmd = ByteBuffer.allocate(40).order(ByteOrder.LITTLE_ENDIAN);
            cmd.put(0, (byte) 'X').putLong(8, src.address()).putInt(16, src.rkey()).putInt(20, n)
                    .putLong(24, dst.address()).putInt(32, dst.rkey()).putInt(36, n);
            long copiedBefore = copies.total();
            c.send(cmd.array());
            ByteBuffer r = c.receive(20_000);
            assertNotNull(r);
            assertEquals("done", new String(bytes(r)));
            byte[] got = new byte[n];
            dst.segment().asByteBuffer().get(got);
            for (int i = 0; i < n; i++) {
                assertEquals(data[n - 1 - i], got[i], "byte " + i);
            }
            assertEquals(List.of(dst.rkey()), c.invalidated(), "the response invalidated the token it named");
            assertEquals(n, server.rdmaReadBytes().sum());
            assertEquals(n, server.rdmaWriteBytes().sum());
            assertEquals(copiedBefore, copies.total(), "RDMA moved the data: no payload byte copied");
            src.close();
            dst.close();
        }
    }
}
