package io.rdmagate.rpcrdma.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBufAllocator;
import io.rdmagate.oncrpc.server.RpcDispatcher;
import io.rdmagate.rdma.softiwarp.SoftIwarpDevice;
import io.rdmagate.rpcrdma.header.ConnectPrivateData;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * MPA Requests from a hostile client to the soft-iWARP port of the RPC-over-RDMA server, as the
 * kernel's siw would send them and then mutated: the key, the flags (markers, CRC, reject, the
 * enhanced bit), the revision, the private data length against what follows (RFC 5044 §7.1), the
 * IRD/ORD words with their peer-to-peer and RTR bits (RFC 6581 §5) and the RFC 8797 private data
 * inside; frames cut short; each connection's sender then closes its side. Whatever arrives, the
 * server answers with an MPA Reply (accept or reject) or closes the socket: no exception escapes a
 * thread, every connection it accepted is gone once the client's socket is, every pool lease is
 * back, and a real client is served afterwards. {@code -Drdmagate.fuzz.rounds=N} sets the number of
 * connections for a long run.
 */
class MpaHandshakeFuzzTest {
    private static final int ROUNDS = Integer.getInteger("rdmagate.fuzz.rounds", 1500);
    private static final byte[] KEY = "MPA ID Req Frame".getBytes(StandardCharsets.US_ASCII);
    /** How long a whole frame and the client's close may go unanswered (the handshake deadline is 10 min). */
    private static final Duration ANSWER = Duration.ofSeconds(30);

    @Test
    void mutatedMpaRequestsAreAnsweredOrClosedAndLeaveNothingBehind() throws Exception {
        // a handshake deadline far beyond the test's: an answer must come from the frame, not the deadline
        SoftIwarpDevice serverDevice = new SoftIwarpDevice("mpa-fuzz-server",
                new SoftIwarpDevice.Options(65504, false, Duration.ofMinutes(10), 64));
        SoftIwarpDevice clientDevice = new SoftIwarpDevice("mpa-fuzz-client", SoftIwarpDevice.Options.DEFAULT);
        RpcDispatcher d = new RpcDispatcher(null, ByteBufAllocator.DEFAULT);
        RpcRdmaServer[] self = new RpcRdmaServer[1];
        d.register(new EchoProgram(() -> self[0].pool()));
        AtomicInteger escaped = new AtomicInteger();
        Thread.UncaughtExceptionHandler previous = Thread.getDefaultUncaughtExceptionHandler();
        Thread.setDefaultUncaughtExceptionHandler((t, e) -> {
            escaped.incrementAndGet();
            e.printStackTrace();
        });
        Map<String, Integer> outcomes = new TreeMap<>();
        try (RpcRdmaServer server = RpcRdmaServer.start(serverDevice, d, RpcRdmaOptions.DEFAULT, AbstractRpcRdmaTest.POOL,
                new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))) {
            self[0] = server;
            Random rnd = new Random(0x6581L);
            for (int round = 0; round < ROUNDS; round++) {
                byte[] frame = mutate(rnd, request(rnd));
                try (Socket ch = new Socket(server.localAddress().getAddress(), server.localAddress().getPort())) {
                    ch.setSoLinger(true, 0);
                    ch.setSoTimeout((int) ANSWER.toMillis());
                    ch.getOutputStream().write(frame);
                    ch.shutdownOutput(); // a frame that promises more private data than it has ends here
                    outcomes.merge(reply(ch.getInputStream(), frame), 1, Integer::sum);
                }
            }
            System.out.printf("MpaHandshakeFuzzTest: %d mutated MPA Requests, outcomes %s%n", ROUNDS, outcomes);
            assertTrue(outcomes.getOrDefault("accepted", 0) > ROUNDS / 20, "many still connect: " + outcomes);
            assertTrue(outcomes.getOrDefault("rejected", 0) + outcomes.getOrDefault("closed", 0) > ROUNDS / 20,
                    outcomes.toString());
            AbstractRpcRdmaTest.waitFor(() -> server.connectionCount() == 0);
            assertEquals(0, server.connectionCount(), "every accepted connection is gone with its client's socket");
            AbstractRpcRdmaTest.waitFor(() -> server.pool().leasedBytes() == 0);
            assertEquals(0, server.pool().leasedBytes(), "every pool lease is back");
            AbstractRpcRdmaTest.assertEchoServed(clientDevice, server, 17, "after the campaign");
            assertEquals(0, escaped.get(), "no exception escaped a thread");
        } finally {
            Thread.setDefaultUncaughtExceptionHandler(previous);
            clientDevice.close();
            serverDevice.close();
        }
    }

    /** What siw sends: revision 2, enhanced, IRD and ORD, sometimes peer-to-peer with an RTR type, RFC 8797 data. */
    private static byte[] request(Random rnd) {
        byte[] rpc = new ConnectPrivateData(true, 4096, 4096).encode();
        ByteBuffer b = ByteBuffer.allocate(20 + 4 + rpc.length);
        int flags = 0x10 | (rnd.nextInt(4) == 0 ? 0x40 : 0);
        b.put(KEY).put((byte) flags).put((byte) 2).putShort((short) (4 + rpc.length));
        boolean p2p = rnd.nextBoolean();
        int rtr = new int[] {0x4000, 0x8000}[rnd.nextInt(2)];
        b.putShort((short) (16 | (p2p ? 0x8000 : 0))).putShort((short) (16 | (p2p ? rtr : 0)));
        b.put(rpc);
        return b.array();
    }

    private static byte[] mutate(Random rnd, byte[] seed) {
        byte[] b = seed.clone();
        ByteBuffer m = ByteBuffer.wrap(b);
        int n = 1 + rnd.nextInt(3);
        for (int k = 0; k < n; k++) {
            switch (rnd.nextInt(9)) {
                case 0 -> b[rnd.nextInt(16)] ^= (byte) (1 << rnd.nextInt(8)); // the key
                case 1 -> m.put(16, (byte) new int[] {0, 0x10, 0x20, 0x40, 0x50, 0x80, 0x90, 0xf0, 0xff}[rnd.nextInt(9)]);
                case 2 -> m.put(17, (byte) new int[] {0, 1, 2, 3, 255}[rnd.nextInt(5)]);
                case 3 -> m.putShort(18, (short) new int[] {0, 1, 3, 4, 11, 12, 13, 512, 513, 0xffff}[rnd.nextInt(10)]);
                case 4 -> m.putShort(20, (short) (rnd.nextInt(0x10000)));
                case 5 -> m.putShort(22, (short) (rnd.nextInt(0x10000)));
                case 6 -> b[24 + rnd.nextInt(8)] = (byte) rnd.nextInt(256); // the RFC 8797 magic, version, sizes
                case 7 -> {
                    b = Arrays.copyOf(b, rnd.nextInt(b.length + 1));
                    m = ByteBuffer.wrap(b);
                }
                default -> {
                    b = Arrays.copyOf(b, b.length + 1 + rnd.nextInt(600)); // private data beyond the header's length
                    m = ByteBuffer.wrap(b);
                }
            }
            if (b.length < 32) {
                break; // cut short: nothing left to mutate in place
            }
        }
        return b;
    }

    /**
     * Reads what the server answers: "accepted", "rejected", or "closed" (or reset) with no reply;
     * fails when nothing comes within {@link #ANSWER} of a complete frame and the client's close.
     */
    private static String reply(InputStream in, byte[] frame) throws Exception {
        byte[] h = new byte[20];
        try {
            int got = in.readNBytes(h, 0, 20);
            if (got < 20) {
                return "closed";
            }
            String outcome = (h[16] & 0x20) != 0 ? "rejected" : "accepted";
            assertTrue(Arrays.equals(h, 0, 16, "MPA ID Rep Frame".getBytes(StandardCharsets.US_ASCII), 0, 16), "an MPA Reply");
            in.transferTo(java.io.OutputStream.nullOutputStream()); // its private data, then until the server closes
            return outcome;
        } catch (SocketTimeoutException e) {
            throw new AssertionError("no answer within " + ANSWER + " to " + HexFormat.of().formatHex(frame), e);
        } catch (java.io.IOException reset) {
            return "closed";
        }
    }
}
