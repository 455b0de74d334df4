package io.rdmagate.rpcrdma.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBufAllocator;
import io.rdmagate.oncrpc.server.RpcDispatcher;
import io.rdmagate.rdma.softiwarp.MpaRequests;
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
    private static final byte[] RFC_8797 = new ConnectPrivateData(true, 4096, 4096).encode();
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
                byte[] frame = MpaRequests.mutate(rnd, MpaRequests.siw(rnd, RFC_8797));
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

    /**
     * The same requests, {@code -Drdmagate.fuzz.rounds} of them times 100 (150,000 in a build), read
     * in memory as the listener reads a connection's first bytes, then their RFC 8797 private data
     * as the server reads it: a cut frame is a close, a frame the listener does not take is a
     * reject, and a request it takes keeps every promise the server relies on (IRD and ORD within
     * 14 bits, private data within 512 bytes and equal to the bytes sent, revision 2 for IRD/ORD
     * and RTR bits, inline sizes within RFC 8797's range); nothing throws.
     */
    @Test
    void mutatedMpaRequestsReadInMemoryKeepTheListenersPromises() throws Exception {
        long rounds = 100L * ROUNDS;
        Random rnd = new Random(0x5044L);
        Map<String, Long> outcomes = new TreeMap<>();
        long t0 = System.nanoTime();
        for (long round = 0; round < rounds; round++) {
            byte[] frame = MpaRequests.mutate(rnd, MpaRequests.siw(rnd, RFC_8797));
            MpaRequests.Read r = MpaRequests.read(frame);
            String outcome = r.outcome();
            if (outcome.equals("request")) {
                byte[] pd = r.privateData();
                int declared = Short.toUnsignedInt(ByteBuffer.wrap(frame).getShort(18));
                boolean enhanced = r.revision() >= 2 && (frame[16] & 0x10) != 0;
                assertTrue(declared <= 512 && frame.length >= 20 + declared, "a whole frame within the limit");
                assertTrue(Arrays.equals(pd, 0, pd.length, frame, 20 + (enhanced ? 4 : 0), 20 + declared),
                        "the private data is the bytes sent");
                assertTrue(r.ird() <= 0x3fff && r.ord() <= 0x3fff, "IRD and ORD within 14 bits");
                assertTrue(enhanced || (r.ird() == 0 && r.ord() == 0 && !r.peerToPeer() && r.rtrBits() == 0),
                        "IRD, ORD and RTR only from an enhanced revision 2 frame");
                ConnectPrivateData peer = ConnectPrivateData.decode(pd);
                assertTrue(peer.sendSize() >= 1024 && peer.sendSize() <= 256 << 10
                        && peer.receiveSize() >= 1024 && peer.receiveSize() <= 256 << 10, "inline sizes in range");
                outcome = peer == ConnectPrivateData.NONE ? "request without RFC 8797 data" : "request with RFC 8797 data";
            }
            outcomes.merge(outcome, 1L, Long::sum);
        }
        System.out.printf("MpaHandshakeFuzzTest: %d mutated MPA Requests read in memory in %.1f s, outcomes %s%n",
                rounds, (System.nanoTime() - t0) / 1e9, outcomes);
        for (String o : new String[] {"closed", "rejected", "request with RFC 8797 data", "request without RFC 8797 data"}) {
            assertTrue(outcomes.getOrDefault(o, 0L) > rounds / 100, "every outcome is exercised: " + outcomes);
        }
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
