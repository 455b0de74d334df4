package io.rdmagate.rdma.softiwarp;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rdmagate.rdma.Access;
import io.rdmagate.rdma.CompletionQueue;
import io.rdmagate.rdma.ConnectionEvents;
import io.rdmagate.rdma.MemoryRegion;
import io.rdmagate.rdma.Opcode;
import io.rdmagate.rdma.ProtectionDomain;
import io.rdmagate.rdma.QpConfig;
import io.rdmagate.rdma.QueuePair;
import io.rdmagate.rdma.RdmaListener;
import io.rdmagate.rdma.RecvWr;
import io.rdmagate.rdma.SendWr;
import io.rdmagate.rdma.WcStatus;
import io.rdmagate.rdma.WorkCompletion;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.EnumSet;
import java.util.HexFormat;
import java.util.Random;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The soft-iWARP provider against peers that speak the wire by hand (byte layouts written here
 * from RFC 5044, 5041, 5040 and 6581, independently of the provider's codecs), and against
 * malformed input: the server answers with a Terminate or a Reject, ends only that connection,
 * and keeps serving others.
 */
class SoftIwarpWireTest {
    private static final HexFormat HEX = HexFormat.of();
    private final Arena arena = Arena.ofShared();
    private final SoftIwarpDevice device = new SoftIwarpDevice("siw-test", SoftIwarpDevice.Options.DEFAULT);
    private final ProtectionDomain pd = device.allocateProtectionDomain();
    private final BlockingQueue<WorkCompletion> recvs = new LinkedBlockingQueue<>();
    private final BlockingQueue<WorkCompletion> sends = new LinkedBlockingQueue<>();
    private final BlockingQueue<String> disconnects = new LinkedBlockingQueue<>();
    private final CompletionQueue sendCq = device.createCompletionQueue(64, sends::add);
    private final CompletionQueue recvCq = device.createCompletionQueue(64, recvs::add);
    private final AtomicReference<QueuePair> accepted = new AtomicReference<>();
    /** Every queue pair {@link #server()} accepted, in whatever order the accepts returned. */
    private final java.util.Queue<QueuePair> everyAccepted = new java.util.concurrent.ConcurrentLinkedQueue<>();
    private MemoryRegion rx;
    private RdmaListener listener;

    @AfterEach
    void close() {
        if (accepted.get() != null) {
            accepted.get().disconnect();
        }
        if (listener != null) {
            listener.close();
        }
        pd.close();
        arena.close();
    }

    private QpConfig config(int ird, int ord) {
        return new QpConfig(pd, sendCq, recvCq, 16, 16, 4, ird, ord, new ConnectionEvents() {
            @Override
            public void disconnected(QueuePair qp, String reason) {
                disconnects.add(reason);
            }
        });
    }

    /** A server that accepts with "ok" and posts one 256-byte receive. */
    private InetSocketAddress server() throws Exception {
        rx = pd.register(arena.allocate(256, 64), EnumSet.of(Access.LOCAL_WRITE, Access.REMOTE_WRITE, Access.REMOTE_READ));
        listener = device.listen(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), req -> {
            try {
                QueuePair q = req.accept(config(2, 2), "ok".getBytes(StandardCharsets.US_ASCII),
                        qp -> qp.postReceive(RecvWr.of(1, rx.sge(0, 256))));
                everyAccepted.add(q);
                accepted.set(q);
            } catch (Exception e) {
                req.reject(new byte[0]);
            }
        });
        return listener.localAddress();
    }

    // ---- a hand-written initiator ----

    private static byte[] mpaRequest(int flags, int revision, byte[] pd) {
        ByteBuffer b = ByteBuffer.allocate(20 + pd.length);
        b.put("MPA ID Req Frame".getBytes(StandardCharsets.US_ASCII)).put((byte) flags).put((byte) revision)
                .putShort((short) pd.length).put(pd);
        return b.array();
    }

    /** What Linux siw sends by default: revision 2, enhanced, no CRC, no markers, IRD 1, ORD 1. */
    private static byte[] siwDefaultRequest() {
        return mpaRequest(0x10, 2, new byte[] {0, 1, 0, 1});
    }

    private static byte[] readReply(InputStream in) throws IOException {
        DataInputStream d = new DataInputStream(in);
        byte[] head = new byte[20];
        d.readFully(head);
        int pdLen = ((head[18] & 0xff) << 8) | (head[19] & 0xff);
        byte[] all = new byte[20 + pdLen];
        System.arraycopy(head, 0, all, 0, 20);
        d.readFully(all, 20, pdLen);
        return all;
    }

    /** An untagged FPDU: ULPDU length, control, reserved/inval STag, QN, MSN, MO, payload, pad, CRC. */
    private static byte[] untagged(int opcode, boolean last, int qn, int msn, int mo, byte[] payload, boolean crc) {
        int ulpdu = 18 + payload.length;
        int pad = (-(2 + ulpdu)) & 3;
        ByteBuffer b = ByteBuffer.allocate(2 + ulpdu + pad + 4);
        b.putShort((short) ulpdu).put((byte) ((last ? 0x40 : 0) | 0x01)).put((byte) (0x40 | opcode));
        b.putInt(0).putInt(qn).putInt(msn).putInt(mo).put(payload);
        for (int i = 0; i < pad; i++) {
            b.put((byte) 0);
        }
        int c = 0;
        if (crc) {
            CRC32C k = new CRC32C();
            k.update(b.array(), 0, b.position());
            c = (int) k.getValue();
        }
        b.put((byte) c).put((byte) (c >>> 8)).put((byte) (c >>> 16)).put((byte) (c >>> 24));
        return b.array();
    }

    private static byte[] tagged(int opcode, int stag, long to, byte[] payload) {
        int ulpdu = 14 + payload.length;
        int pad = (-(2 + ulpdu)) & 3;
        ByteBuffer b = ByteBuffer.allocate(2 + ulpdu + pad + 4);
        b.putShort((short) ulpdu).put((byte) 0xC1).put((byte) (0x40 | opcode)).putInt(stag).putLong(to).put(payload);
        return b.array();
    }

    /** Reads FPDUs until a Terminate; returns its layer/etype/code word. */
    private static int readTerminate(InputStream in) throws IOException {
        DataInputStream d = new DataInputStream(in);
        while (true) {
            int ulpdu = d.readUnsignedShort();
            byte[] rest = new byte[ulpdu + ((-(2 + ulpdu)) & 3) + 4];
            d.readFully(rest);
            int opcode = rest[1] & 0x0f;
            if (opcode == 7) {
                return ByteBuffer.wrap(rest, 18, 4).getInt();
            }
        }
    }

    private Socket handshake(InetSocketAddress server, byte[] request) throws IOException {
        Socket s = new Socket(server.getAddress(), server.getPort());
        s.setSoTimeout(10_000);
        s.getOutputStream().write(request);
        byte[] reply = readReply(s.getInputStream());
        assertEquals("MPA ID Rep Frame", new String(reply, 0, 16, StandardCharsets.US_ASCII));
        return s;
    }

    private WorkCompletion nextRecv() throws InterruptedException {
        WorkCompletion wc = recvs.poll(10, TimeUnit.SECONDS);
        assertNotNull(wc, "no receive completion");
        return wc;
    }

    // ---- tests ----

    @Test
    void theMpaRequestIsWhatLinuxSiwSends() throws Exception {
        try (ServerSocket peer = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            QpConfig c = config(1, 1);
            device.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), peer.getLocalPort()), c, new byte[0]);
            try (Socket s = peer.accept()) {
                s.setSoTimeout(10_000);
                byte[] got = new DataInputStream(s.getInputStream()).readNBytes(24);
                assertEquals("4d504120494420526571204672616d65" + "10" + "02" + "0004" + "0001" + "0001", HEX.formatHex(got));
            }
        }
    }

    @Test
    void aSiwStyleInitiatorIsAcceptedAndItsSendIsPlaced() throws Exception {
        InetSocketAddress addr = server();
        try (Socket s = handshake(addr, siwDefaultRequest())) {
            OutputStream out = s.getOutputStream();
            byte[] msg = "a Send from a hand-made FPDU".getBytes(StandardCharsets.US_ASCII);
            // two segments of one message: MO 0 and MO 10, same MSN
            out.write(untagged(3, false, 0, 1, 0, java.util.Arrays.copyOfRange(msg, 0, 10), false));
            out.write(untagged(3, true, 0, 1, 10, java.util.Arrays.copyOfRange(msg, 10, msg.length), false));
            WorkCompletion wc = nextRecv();
            assertEquals(WcStatus.SUCCESS, wc.status());
            assertEquals(msg.length, wc.byteLength());
            assertArrayEquals(msg, rx.segment().asSlice(0, msg.length).toArray(ValueLayout.JAVA_BYTE));
            assertEquals(0, wc.queuePair().remotePrivateData().length, "siw sends no private data of its own");
        }
    }

    @Test
    void theReplyCarriesIrdOrdAndPrivateData() throws Exception {
        InetSocketAddress addr = server();
        try (Socket s = new Socket(addr.getAddress(), addr.getPort())) {
            s.setSoTimeout(10_000);
            s.getOutputStream().write(mpaRequest(0x10, 2, new byte[] {0, 1, 0, 1, 'h', 'i'}));
            byte[] reply = readReply(s.getInputStream());
            assertEquals(0x10, reply[16] & 0xff, "enhanced, no CRC, no markers, not rejected");
            assertEquals(2, reply[17]);
            assertEquals(6, ((reply[18] & 0xff) << 8) | (reply[19] & 0xff));
            assertEquals(2, ((reply[20] & 0x3f) << 8) | (reply[21] & 0xff), "our IRD");
            assertEquals(1, ((reply[22] & 0x3f) << 8) | (reply[23] & 0xff), "our ORD, bounded by the peer's IRD 1");
            assertEquals("ok", new String(reply, 24, 2, StandardCharsets.US_ASCII));
        }
    }

    @Test
    void markersAreRefusedWithAReject() throws Exception {
        InetSocketAddress addr = server();
        try (Socket s = new Socket(addr.getAddress(), addr.getPort())) {
            s.setSoTimeout(10_000);
            s.getOutputStream().write(mpaRequest(0x80 | 0x10, 2, new byte[] {0, 1, 0, 1}));
            byte[] reply = readReply(s.getInputStream());
            assertTrue((reply[16] & 0x20) != 0, "R bit set");
            assertEquals(-1, s.getInputStream().read(), "then the connection closes");
        }
        assertTheServerStillServes(addr);
    }

    @Test
    void aWrongKeyOrOversizePrivateDataEndsTheConnection() throws Exception {
        InetSocketAddress addr = server();
        try (Socket s = new Socket(addr.getAddress(), addr.getPort())) {
            s.setSoTimeout(10_000);
            byte[] bad = mpaRequest(0x10, 2, new byte[] {0, 1, 0, 1});
            bad[0] = 'X';
            s.getOutputStream().write(bad);
            byte[] reply = readReply(s.getInputStream());
            assertTrue((reply[16] & 0x20) != 0, "rejected");
        }
        try (Socket s = new Socket(addr.getAddress(), addr.getPort())) {
            s.setSoTimeout(10_000);
            ByteBuffer b = ByteBuffer.allocate(20);
            b.put("MPA ID Req Frame".getBytes(StandardCharsets.US_ASCII)).put((byte) 0x10).put((byte) 2).putShort((short) 60000);
            s.getOutputStream().write(b.array());
            byte[] reply = readReply(s.getInputStream());
            assertTrue((reply[16] & 0x20) != 0, "600000-byte private data is refused before it is read");
        }
        assertTheServerStillServes(addr);
    }

    @Test
    void aBogusOpcodeIsTerminated() throws Exception {
        InetSocketAddress addr = server();
        try (Socket s = handshake(addr, siwDefaultRequest())) {
            s.getOutputStream().write(untagged(9, true, 0, 1, 0, new byte[4], false));
            int word = readTerminate(s.getInputStream());
            assertEquals(0, word >>> 28, "RDMAP layer");
            assertEquals(2, (word >>> 24) & 0xf, "remote operation error");
            assertEquals(Rdmap.RDMAP_OPCODE, (word >>> 16) & 0xff);
        }
        assertTheServerStillServes(addr);
    }

    @Test
    void anMsnGapIsTerminated() throws Exception {
        InetSocketAddress addr = server();
        try (Socket s = handshake(addr, siwDefaultRequest())) {
            s.getOutputStream().write(untagged(3, true, 0, 5, 0, new byte[8], false));
            int word = readTerminate(s.getInputStream());
            assertEquals(1, word >>> 28, "DDP layer");
            assertEquals(2, (word >>> 24) & 0xf, "untagged buffer error");
            assertEquals(Rdmap.DDP_UT_MSN_RANGE, (word >>> 16) & 0xff);
        }
        assertEquals(WcStatus.WR_FLUSH_ERROR, nextRecv().status(), "the posted receive is flushed");
    }

    @Test
    void aSendWithNoReceivePostedIsTerminatedNoBuffer() throws Exception {
        InetSocketAddress addr = server();
        try (Socket s = handshake(addr, siwDefaultRequest())) {
            OutputStream out = s.getOutputStream();
            out.write(untagged(3, true, 0, 1, 0, new byte[8], false));
            assertEquals(WcStatus.SUCCESS, nextRecv().status());
            out.write(untagged(3, true, 0, 2, 0, new byte[8], false));
            int word = readTerminate(s.getInputStream());
            assertEquals(Rdmap.DDP_UT_NO_BUFFER, (word >>> 16) & 0xff);
        }
    }

    @Test
    void aWriteWithABadStagIsTerminatedAndCounted() throws Exception {
        InetSocketAddress addr = server();
        long before = device.accessViolations();
        try (Socket s = handshake(addr, siwDefaultRequest())) {
            s.getOutputStream().write(tagged(0, rx.rkey() ^ 0x55, rx.address(), new byte[16]));
            int word = readTerminate(s.getInputStream());
            assertEquals(0, word >>> 28, "RDMAP layer");
            assertEquals(1, (word >>> 24) & 0xf, "remote protection error");
            assertEquals(Rdmap.RDMAP_INVALID_STAG, (word >>> 16) & 0xff);
        }
        assertEquals(before + 1, device.accessViolations());
        for (long i = 0; i < 256; i++) {
            assertEquals(0, rx.segment().get(ValueLayout.JAVA_BYTE, i), "memory untouched");
        }
    }

    @Test
    void aWriteOutOfBoundsIsTerminatedWithBaseBounds() throws Exception {
        InetSocketAddress addr = server();
        try (Socket s = handshake(addr, siwDefaultRequest())) {
            s.getOutputStream().write(tagged(0, rx.rkey(), rx.address() + 250, new byte[16]));
            int word = readTerminate(s.getInputStream());
            assertEquals(Rdmap.RDMAP_BASE_BOUNDS, (word >>> 16) & 0xff);
        }
    }

    @Test
    void readsBeyondTheIrdAreTerminated() throws Exception {
        InetSocketAddress addr = server();
        int size = 32 << 20;
        MemoryRegion big = pd.register(arena.allocate(size, 4096), EnumSet.of(Access.REMOTE_READ));
        try (Socket s = handshake(addr, siwDefaultRequest())) {
            OutputStream out = s.getOutputStream();
            // IRD is 2: one response in transmission and two requests queued behind it are allowed.
            // Not reading the responses keeps the first in transmission (32 MiB exceed any socket
            // buffers), so the fourth request exceeds the IRD whatever the timing.
            for (int i = 1; i <= 4; i++) {
                ByteBuffer body = ByteBuffer.allocate(28);
                body.putInt(0x1234).putLong(0).putInt(size).putInt(big.rkey()).putLong(big.address());
                out.write(untagged(1, true, 1, i, 0, body.array(), false));
            }
            String reason = disconnects.poll(10, TimeUnit.SECONDS);
            assertNotNull(reason);
            assertTrue(reason.contains("IRD"), reason);
            int word = readTerminate(s.getInputStream());
            assertEquals(0, word >>> 28, "RDMAP layer");
            assertEquals(2, (word >>> 24) & 0xf, "remote operation error");
        }
        assertTheServerStillServes(addr);
    }

    @Test
    void aTruncatedFpduThenCloseEndsOnlyThatConnection() throws Exception {
        InetSocketAddress addr = server();
        try (Socket s = handshake(addr, siwDefaultRequest())) {
            byte[] f = untagged(3, true, 0, 1, 0, new byte[100], false);
            s.getOutputStream().write(f, 0, 30);
        }
        String reason = disconnects.poll(10, TimeUnit.SECONDS);
        assertNotNull(reason);
        assertTheServerStillServes(addr);
    }

    @Test
    void aUlpduShorterThanItsHeaderIsTerminated() throws Exception {
        InetSocketAddress addr = server();
        try (Socket s = handshake(addr, siwDefaultRequest())) {
            ByteBuffer b = ByteBuffer.allocate(8);
            b.putShort((short) 4).put((byte) 0x41).put((byte) 0x43).putInt(0);
            s.getOutputStream().write(b.array());
            int word = readTerminate(s.getInputStream());
            assertEquals(2, word >>> 28, "MPA layer");
        }
    }

    @Test
    void crcIsUsedWhenThePeerAsksAndABadCrcIsTerminated() throws Exception {
        InetSocketAddress addr = server();
        try (Socket s = new Socket(addr.getAddress(), addr.getPort())) {
            s.setSoTimeout(10_000);
            s.getOutputStream().write(mpaRequest(0x40 | 0x10, 2, new byte[] {0, 1, 0, 1}));
            byte[] reply = readReply(s.getInputStream());
            assertTrue((reply[16] & 0x40) != 0, "C bit in the reply");
            OutputStream out = s.getOutputStream();
            out.write(untagged(3, true, 0, 1, 0, "checked".getBytes(StandardCharsets.US_ASCII), true));
            WorkCompletion wc = nextRecv();
            assertEquals(WcStatus.SUCCESS, wc.status());
            wc.queuePair().postReceive(RecvWr.of(2, rx.sge(0, 256)));
            byte[] corrupt = untagged(3, true, 0, 2, 0, "flipped".getBytes(StandardCharsets.US_ASCII), true);
            corrupt[corrupt.length - 1] ^= 1;
            out.write(corrupt);
            int word = readTerminate(s.getInputStream());
            assertEquals(2, word >>> 28, "MPA layer");
            assertEquals(Rdmap.LLP_CRC, (word >>> 16) & 0xff);
        }
    }

    /**
     * Sockets that connect and never send their MPA Request hold the listener's pending places; at
     * the limit, each newcomer closes the one silent longest, so a real client connecting in a
     * flood of them is served, and a silent socket lasts no longer than the next {@code limit}
     * connects.
     */
    @Test
    void atThePendingHandshakeLimitTheSocketSilentLongestMakesRoom() throws Exception {
        SoftIwarpDevice capped = new SoftIwarpDevice("siw-capped", new SoftIwarpDevice.Options(65504, false,
                Duration.ofSeconds(30), 2));
        listener = capped.listen(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), req -> {
            try {
                accepted.set(req.accept(config(4, 4), new byte[0]));
            } catch (Exception e) {
                req.reject(new byte[0]);
            }
        });
        int port = listener.localAddress().getPort();
        try (Socket idle1 = new Socket(InetAddress.getLoopbackAddress(), port);
                Socket idle2 = new Socket(InetAddress.getLoopbackAddress(), port);
                Socket idle3 = new Socket(InetAddress.getLoopbackAddress(), port)) {
            idle1.setSoTimeout(10_000);
            assertEquals(-1, idle1.getInputStream().read(), "the first silent socket is closed without an answer");
            assertEquals(1, capped.refusedHandshakes());

            QueuePair qp = device.connect(listener.localAddress(), config(4, 4), new byte[0]).get(10, TimeUnit.SECONDS);
            assertEquals(QueuePair.State.CONNECTED, qp.state(), "a real client is served while silent sockets hold every place");
            idle2.setSoTimeout(10_000);
            assertEquals(-1, idle2.getInputStream().read(), "it made room by closing the next silent one");
            assertEquals(2, capped.refusedHandshakes());
            idle3.setSoTimeout(200);
            org.junit.jupiter.api.Assertions.assertThrows(java.net.SocketTimeoutException.class,
                    () -> idle3.getInputStream().read(), "the newest silent socket still waits within its deadline");
            qp.disconnect();
        }
    }

    /**
     * A peer that completes the MPA exchange and then reads nothing: once its receive window and
     * the socket buffer are full, the transmit thread's write would wait forever, holding the
     * memory of every posted Send. At the send deadline the connection fails and every Send
     * completes, the ones not handed to TCP flushed in error.
     */
    @Test
    void aPeerThatTakesNoDataIsDisconnectedAtTheSendDeadline() throws Exception {
        SoftIwarpDevice stalling = new SoftIwarpDevice("siw-stalling", new SoftIwarpDevice.Options(65504, false,
                Duration.ofSeconds(10), 64, Duration.ofSeconds(1)));
        ProtectionDomain pd2 = stalling.allocateProtectionDomain();
        BlockingQueue<WorkCompletion> sent = new LinkedBlockingQueue<>();
        CompletionQueue scq = stalling.createCompletionQueue(64, sent::add);
        CompletionQueue rcq = stalling.createCompletionQueue(64, wc -> { });
        MemoryRegion big = pd2.register(arena.allocate(4 << 20, 4096), EnumSet.of(Access.LOCAL_WRITE));
        AtomicReference<QueuePair> qp = new AtomicReference<>();
        BlockingQueue<String> why = new LinkedBlockingQueue<>();
        listener = stalling.listen(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), req -> {
            try {
                qp.set(req.accept(new QpConfig(pd2, scq, rcq, 16, 16, 4, 2, 2, new ConnectionEvents() {
                    @Override
                    public void disconnected(QueuePair q, String reason) {
                        why.add(reason);
                    }
                }), new byte[0]));
            } catch (Exception e) {
                req.reject(new byte[0]);
            }
        });
        try (Socket peer = new Socket()) {
            peer.setReceiveBufferSize(4096);
            peer.connect(listener.localAddress());
            peer.getOutputStream().write(mpaRequest(0, 1, new byte[0]));
            readReply(peer.getInputStream());
            long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (qp.get() == null && System.nanoTime() < end) {
                Thread.sleep(10);
            }
            assertNotNull(qp.get(), "accepted");
            for (int i = 0; i < 8; i++) { // 32 MiB: far beyond what the socket buffers hold
                qp.get().postSend(new SendWr(i, Opcode.SEND, java.util.List.of(big.sge(0, 4 << 20)), 0, 0, 0, true));
            }
            String reason = why.poll(20, TimeUnit.SECONDS);
            assertNotNull(reason, "the stalled connection ends");
            assertTrue(reason.contains("took no data"), reason);
            assertEquals(QueuePair.State.ERROR, qp.get().state());
            int flushed = 0;
            for (int i = 0; i < 8; i++) {
                WorkCompletion wc = sent.poll(10, TimeUnit.SECONDS);
                assertNotNull(wc, "every Send completes, " + i + " so far");
                flushed += wc.status() == WcStatus.WR_FLUSH_ERROR ? 1 : 0;
            }
            assertTrue(flushed > 0, "the Sends the peer never took are flushed");
        } finally {
            pd2.close();
            stalling.close();
        }
    }

    @Test
    void largeWritesAndReadsCrossManyFpdusIntact() throws Exception {
        SoftIwarpDevice small = new SoftIwarpDevice("siw-small", new SoftIwarpDevice.Options(1400, true,
                Duration.ofSeconds(10)));
        int size = 4 << 20;
        MemoryRegion target = pd.register(arena.allocate(size, 4096), EnumSet.allOf(Access.class));
        listener = device.listen(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), req -> {
            try {
                accepted.set(req.accept(config(4, 4), new byte[0]));
            } catch (Exception e) {
                req.reject(new byte[0]);
            }
        });
        ProtectionDomain cpd = small.allocateProtectionDomain();
        BlockingQueue<WorkCompletion> csends = new LinkedBlockingQueue<>();
        QpConfig cc = new QpConfig(cpd, small.createCompletionQueue(16, csends::add),
                small.createCompletionQueue(16, wc -> { }), 16, 16, 4, 4, 4, ConnectionEvents.NONE);
        QueuePair qp = small.connect(listener.localAddress(), cc, new byte[0]).get(10, TimeUnit.SECONDS);
        try {
            MemorySegment src = arena.allocate(size, 4096);
            byte[] pattern = new byte[size];
            new Random(42).nextBytes(pattern);
            MemorySegment.copy(pattern, 0, src, ValueLayout.JAVA_BYTE, 0, size);
            MemoryRegion smr = cpd.register(src, EnumSet.of(Access.LOCAL_WRITE));
            qp.postSend(SendWr.write(1, target.address(), target.rkey(), smr.sge(0, size)));
            assertEquals(WcStatus.SUCCESS, csends.poll(30, TimeUnit.SECONDS).status());
            MemorySegment back = arena.allocate(size, 4096);
            MemoryRegion bmr = cpd.register(back, EnumSet.of(Access.LOCAL_WRITE));
            qp.postSend(SendWr.read(2, target.address(), target.rkey(), bmr.sge(0, size)));
            WorkCompletion wc = csends.poll(30, TimeUnit.SECONDS);
            assertEquals(WcStatus.SUCCESS, wc.status(), "read after write: the Read Response follows the placed Write");
            assertArrayEquals(pattern, back.toArray(ValueLayout.JAVA_BYTE), "4 MiB written then read back, CRC on");
        } finally {
            qp.disconnect();
            cpd.close();
        }
    }

    /**
     * A fresh connection still gets through, with a Send placed. The fresh queue pair is found by its
     * peer's port among all accepted: the accept of an earlier connection may return late, after
     * that connection already ended and after the fresh one's (its queue pair is started before
     * accept returns).
     */
    private void assertTheServerStillServes(InetSocketAddress addr) throws Exception {
        try (Socket s = handshake(addr, siwDefaultRequest())) {
            long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            QueuePair fresh = null;
            while (fresh == null && System.nanoTime() < end) {
                fresh = everyAccepted.stream().filter(q -> isPeerOf(q, s)).findFirst().orElse(null);
                if (fresh == null) {
                    Thread.sleep(5);
                }
            }
            assertTrue(isPeerOf(fresh, s), "the fresh connection was accepted");
            s.getOutputStream().write(untagged(3, true, 0, 1, 0, "still here".getBytes(StandardCharsets.US_ASCII), false));
            WorkCompletion wc;
            do {
                wc = nextRecv(); // completions of the earlier connection may still be arriving
            } while (wc.queuePair() != fresh);
            assertEquals(WcStatus.SUCCESS, wc.status());
        }
    }

    private static boolean isPeerOf(QueuePair qp, Socket s) {
        return qp != null && qp.remoteAddress() != null && qp.remoteAddress().getPort() == s.getLocalPort();
    }
}
