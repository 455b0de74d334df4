package io.rdmagate.rpcrdma.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBufAllocator;
import io.rdmagate.oncrpc.server.RpcDispatcher;
import io.rdmagate.rdma.softiwarp.SoftIwarpDevice;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The attack of an unauthenticated client on the soft-iWARP port: 2,000 TCP connections, each
 * sending a valid 20-byte MPA Request and nothing else, all held open. Each accepted one costs the
 * server a queue pair (two threads) and its registered receive and send buffers, so at the
 * connection bound (256, the default) each new one closes the quietest idle one: the server's
 * connections and threads stay within the bound, and a real client connecting in the middle of
 * the flood is served.
 */
class MpaFloodTest {
    private static final int FLOOD = 2_000;

    @Test
    void twoThousandHeldMpaConnectionsLeaveTheServerWithinItsBoundAndServing() throws Exception {
        SoftIwarpDevice serverDevice = new SoftIwarpDevice("flood-server", SoftIwarpDevice.Options.DEFAULT);
        SoftIwarpDevice clientDevice = new SoftIwarpDevice("flood-client", SoftIwarpDevice.Options.DEFAULT);
        RpcDispatcher d = new RpcDispatcher(null, ByteBufAllocator.DEFAULT);
        RpcRdmaServer[] self = new RpcRdmaServer[1];
        EchoProgram echo = new EchoProgram(() -> self[0].pool());
        d.register(echo);
        RpcRdmaOptions options = RpcRdmaOptions.DEFAULT;
        int bound = options.maxConnections();
        int threadsBefore = ManagementFactory.getThreadMXBean().getThreadCount();
        long heapBefore = heapAfterGc();
        List<SocketChannel> flood = new ArrayList<>();
        try (RpcRdmaServer server = RpcRdmaServer.start(serverDevice, d, options, AbstractRpcRdmaTest.POOL,
                new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))) {
            self[0] = server;
            int answered = 0;
            int peakThreads = 0;
            for (int i = 0; i < FLOOD; i++) {
                SocketChannel ch = SocketChannel.open(server.localAddress());
                flood.add(ch);
                ch.write(mpaRequest());
                if (readReply(ch)) {
                    answered++;
                }
                if (i == FLOOD / 2) {
                    AbstractRpcRdmaTest.assertEchoServed(clientDevice, server, 33, "in the middle of the flood");
                }
                if (i % 100 == 99) {
                    peakThreads = Math.max(peakThreads, ManagementFactory.getThreadMXBean().getThreadCount());
                    assertTrue(server.connectionCount() <= bound, server.connectionCount() + " connections");
                }
            }
            assertEquals(FLOOD, answered, "every MPA Request was accepted");
            assertTrue(server.connectionCount() <= bound, server.connectionCount() + " connections open");
            assertTrue(server.evictedConnections() >= FLOOD - bound, server.evictedConnections() + " evicted");
            // two threads per queue pair, for at most the bound's queue pairs, and some to spare
            assertTrue(peakThreads <= threadsBefore + 2 * bound + 64,
                    "threads peaked at " + peakThreads + " from " + threadsBefore);
            AbstractRpcRdmaTest.assertEchoServed(clientDevice, server, 33, "after the flood");
            echo.opened.clear(); // the test program's own record of every connection, not the server's
            echo.closed.clear();
            long heapGrowth = heapAfterGc() - heapBefore;
            System.out.printf("MPA flood: %d connections accepted, %d evicted, %d open, threads %d -> peak %d,"
                    + " heap +%d KiB%n", answered, server.evictedConnections(), server.connectionCount(), threadsBefore,
                    peakThreads, heapGrowth >> 10);
            // what the bound's connections hold on the heap (about 80 KiB each), with room to spare:
            // neither the evicted connections nor megabytes per held one (4.4 MiB each once) may stay
            assertTrue(heapGrowth < 40L << 20, "heap grew by " + (heapGrowth >> 20) + " MiB");
            for (SocketChannel ch : flood) {
                ch.close();
            }
            AbstractRpcRdmaTest.waitFor(() -> server.connectionCount() == 0);
            assertEquals(0, server.connectionCount(), "every flood connection is gone once its socket closes");
        } finally {
            for (SocketChannel ch : flood) {
                ch.close();
            }
            clientDevice.close();
            serverDevice.close();
        }
    }

    private static long heapAfterGc() {
        System.gc();
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }

    /** An MPA Request (RFC 5044 §7.1): key, no markers, no CRC, revision 1, no private data. */
    private static ByteBuffer mpaRequest() {
        ByteBuffer b = ByteBuffer.allocate(20);
        b.put("MPA ID Req Frame".getBytes(StandardCharsets.US_ASCII)).put((byte) 0).put((byte) 1).putShort((short) 0);
        return b.flip();
    }

    /** Reads the MPA Reply; true when it accepts (its Reject flag clear). */
    private static boolean readReply(SocketChannel ch) throws Exception {
        ByteBuffer h = ByteBuffer.allocate(20);
        while (h.hasRemaining()) {
            if (ch.read(h) < 0) {
                return false;
            }
        }
        ByteBuffer pd = ByteBuffer.allocate(Short.toUnsignedInt(h.getShort(18)));
        while (pd.hasRemaining()) {
            if (ch.read(pd) < 0) {
                return false;
            }
        }
        return (h.get(16) & 0x20) == 0;
    }
}
