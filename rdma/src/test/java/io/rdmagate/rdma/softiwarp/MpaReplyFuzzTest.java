package io.rdmagate.rdma.softiwarp;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.rdmagate.rdma.CompletionQueue;
import io.rdmagate.rdma.ConnectionEvents;
import io.rdmagate.rdma.ConnectionRejectedException;
import io.rdmagate.rdma.ProtectionDomain;
import io.rdmagate.rdma.QpConfig;
import io.rdmagate.rdma.QueuePair;
import io.rdmagate.rdma.RdmaException;
import java.io.ByteArrayInputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The MPA Reply a connecting side reads (RFC 5044 §7.1, RFC 6581 §5), driven by a fixed-seed
 * mutation campaign over what a siw responder sends: the key, the flags (markers, CRC, reject,
 * enhanced), the revision, the private data length against what follows, the IRD and ORD words,
 * the user data, cuts and trailing bytes. Over TCP, from a responder that writes the mutated
 * Reply and ends its side, each connect completes within the handshake deadline: with a queue
 * pair that keeps the Reply's promises (its private data the bytes sent, reads outbound bounded by
 * the responder's IRD), with ConnectionRejectedException for a Reject, or with RdmaException,
 * never another exception; no TCP socket is left behind. In memory, the same parsing of 100
 * times as many Replies. {@code -Drdmagate.fuzz.rounds=N} sets the number of inputs.
 */
class MpaReplyFuzzTest {
    private static final int ROUNDS = Integer.getInteger("rdmagate.fuzz.rounds", 2000);
    private static final byte[] USER = "rdmagate".getBytes(StandardCharsets.US_ASCII);

    @Test
    void mutatedRepliesEndEveryConnectAndKeepTheirPromises() throws Exception {
        SoftIwarpDevice device = new SoftIwarpDevice("siw-reply-fuzz",
                new SoftIwarpDevice.Options(65504, false, Duration.ofSeconds(5)));
        ProtectionDomain pd = device.allocateProtectionDomain();
        CompletionQueue sendCq = device.createCompletionQueue(64, wc -> { });
        CompletionQueue recvCq = device.createCompletionQueue(64, wc -> { });
        QpConfig config = new QpConfig(pd, sendCq, recvCq, 16, 16, 4, 16, 16, new ConnectionEvents() {
        });
        Random rnd = new Random(0x6581L);
        Map<String, Integer> outcomes = new TreeMap<>();
        long fds = tcpSockets().size();
        try (ServerSocket peer = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            InetSocketAddress at = new InetSocketAddress(InetAddress.getLoopbackAddress(), peer.getLocalPort());
            for (int round = 0; round < ROUNDS + 1; round++) {
                boolean last = round == ROUNDS; // a well-formed Reply after the campaign
                byte[] reply = last ? MpaRequests.siwReply(new Random(1), USER)
                        : MpaRequests.mutate(rnd, MpaRequests.siwReply(rnd, USER));
                if (last) {
                    reply[16] &= (byte) ~MpaFrame.FLAG_REJECT; // an accept
                }
                var connecting = device.connect(at, config, new byte[0]);
                try (Socket s = peer.accept()) {
                    s.setSoTimeout(10_000);
                    DataInputStream in = new DataInputStream(s.getInputStream());
                    byte[] header = in.readNBytes(20);
                    in.readNBytes(Short.toUnsignedInt(ByteBuffer.wrap(header).getShort(18)));
                    s.getOutputStream().write(reply);
                    s.shutdownOutput();
                    String outcome = outcome(connecting, reply);
                    outcomes.merge(outcome, 1, Integer::sum);
                    if (last) {
                        assertEquals("connected", outcome, "a well-formed Reply after the campaign");
                    }
                }
            }
        } finally {
            pd.close();
        }
        System.out.printf("MpaReplyFuzzTest: %d mutated MPA Replies over TCP, outcomes %s%n", ROUNDS, outcomes);
        for (String o : new String[] {"connected", "rejected", "refused"}) {
            assertTrue(outcomes.getOrDefault(o, 0) > ROUNDS / 100, "every outcome is exercised: " + outcomes);
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (tcpSockets().size() > fds && System.nanoTime() < deadline) {
            Thread.sleep(10); // the last queue pairs close their sockets as their receivers see the end
        }
        assertTrue(tcpSockets().size() <= fds, "TCP sockets back to " + fds + ": " + tcpSockets());
    }

    /** How a connect that read {@code reply} ended; checks what a queue pair or a Reject carries. */
    private static String outcome(java.util.concurrent.CompletableFuture<QueuePair> connecting, byte[] reply)
            throws Exception {
        MpaFrame f = parsed(reply);
        try {
            QueuePair qp = connecting.get(10, TimeUnit.SECONDS);
            try {
                assertTrue(f != null && !f.reject() && !f.markers(), "connected on a Reply the parser takes");
                assertArrayEquals(f.privateData(), qp.remotePrivateData(), "the Reply's private data");
                assertTrue(qp.outboundReads() <= 16 && (!f.enhanced() || qp.outboundReads() <= f.ird()),
                        "reads outbound within our ORD and the responder's IRD: " + qp.outboundReads());
            } finally {
                qp.disconnect();
            }
            return "connected";
        } catch (ExecutionException e) {
            if (e.getCause() instanceof ConnectionRejectedException r) {
                assertTrue(f != null && f.reject(), "a Reject");
                assertArrayEquals(f.privateData(), r.privateData(), "the Reject's private data");
                return "rejected";
            }
            if (e.getCause() instanceof RdmaException) {
                assertTrue(f == null || f.markers(), "refused a Reply the parser takes: " + e.getCause().getMessage());
                return "refused";
            }
            fail("connect failed with " + e.getCause(), e.getCause());
            return null;
        }
    }

    /** The Reply as the parser reads it; null when it ends early or is not one. */
    private static MpaFrame parsed(byte[] reply) throws Exception {
        try {
            return MpaHandshake.read(Channels.newChannel(new ByteArrayInputStream(reply)), false);
        } catch (EOFException cut) {
            return null;
        }
    }

    /**
     * The TCP sockets this process holds, as /proc/net/tcp and tcp6 describe them (the JVM's own
     * descriptors, pollers and netlink sockets among them, come and go as it likes).
     */
    private static java.util.List<String> tcpSockets() throws Exception {
        java.util.Set<String> inodes = new java.util.HashSet<>();
        try (var s = Files.list(Path.of("/proc/self/fd"))) {
            s.forEach(fd -> {
                try {
                    String t = Files.readSymbolicLink(fd).toString();
                    if (t.startsWith("socket:[")) {
                        inodes.add(t.substring(8, t.length() - 1));
                    }
                } catch (java.io.IOException gone) {
                    // closed meanwhile
                }
            });
        }
        java.util.List<String> out = new java.util.ArrayList<>();
        for (String table : new String[] {"/proc/net/tcp", "/proc/net/tcp6"}) {
            for (String line : Files.readAllLines(Path.of(table))) {
                String[] f = line.trim().split("\\s+");
                if (f.length > 9 && inodes.contains(f[9])) {
                    out.add(line.trim());
                }
            }
        }
        return out;
    }

    @Test
    void mutatedRepliesReadInMemoryKeepTheirPromises() throws Exception {
        long rounds = 100L * ROUNDS;
        Random rnd = new Random(0x5044_2L);
        Map<String, Long> outcomes = new TreeMap<>();
        long t0 = System.nanoTime();
        for (long round = 0; round < rounds; round++) {
            byte[] frame = MpaRequests.mutate(rnd, MpaRequests.siwReply(rnd, USER));
            MpaFrame f = parsed(frame);
            String outcome;
            if (f == null) {
                outcome = frame.length < 20 || 20 + Short.toUnsignedInt(ByteBuffer.wrap(frame).getShort(18)) > frame.length
                        ? "cut" : "malformed";
            } else {
                int declared = Short.toUnsignedInt(ByteBuffer.wrap(frame).getShort(18));
                assertTrue(declared <= 512 && frame.length >= 20 + declared, "a whole frame within the limit");
                assertTrue(Arrays.equals(f.privateData(), 0, f.privateData().length, frame, 20 + (f.enhanced() ? 4 : 0),
                        20 + declared), "the private data is the bytes sent");
                assertTrue(f.ird() <= 0x3fff && f.ord() <= 0x3fff, "IRD and ORD within 14 bits");
                assertTrue(f.enhanced() || f.ird() == 0 && f.ord() == 0, "IRD and ORD only from an enhanced frame");
                outcome = f.reject() ? "reject" : f.markers() ? "markers" : "reply";
            }
            outcomes.merge(outcome, 1L, Long::sum);
        }
        System.out.printf("MpaReplyFuzzTest: %d mutated MPA Replies read in memory in %.1f s, outcomes %s%n", rounds,
                (System.nanoTime() - t0) / 1e9, outcomes);
        for (String o : new String[] {"cut", "malformed", "reject", "markers", "reply"}) {
            assertTrue(outcomes.getOrDefault(o, 0L) > rounds / 1000, "every outcome is exercised: " + outcomes);
        }
    }
}
