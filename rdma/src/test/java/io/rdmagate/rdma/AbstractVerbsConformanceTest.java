package io.rdmagate.rdma;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rdmagate.vfs.memory.IoMemory;
import io.rdmagate.vfs.memory.IoMemoryPool;
import io.rdmagate.vfs.memory.PoolLimits;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.EnumSet;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What every provider of the verbs SPI must do, run against each one: connection management with
 * private data, the six send-queue operations, and the error behaviour of a real device (bad
 * keys, bounds, rights, receive-not-ready, flushes).
 */
public abstract class AbstractVerbsConformanceTest {
    private static final Duration WAIT = Duration.ofSeconds(10);

    /** Two devices that can reach each other (may be the same device). */
    protected abstract RdmaDevice serverDevice() throws Exception;

    protected abstract RdmaDevice clientDevice() throws Exception;

    /** An address the server device can listen on. */
    protected abstract InetSocketAddress listenAddress() throws Exception;

    /**
     * Whether a request the peer refuses completes with the peer's error (InfiniBand, the loopback
     * provider), or completes locally and the peer's Terminate then ends the connection (iWARP:
     * Sends and Writes complete when handed to TCP, RFC 5040 §5.1).
     */
    protected boolean remoteErrorsCompleteTheRequest() {
        return true;
    }

    /** The client's next request failed at the peer: reported as {@code expected}, or by a Terminate. */
    protected void assertRemoteFailure(WcStatus expected) throws Exception {
        WorkCompletion wc = client.nextSend();
        if (remoteErrorsCompleteTheRequest()) {
            assertEquals(expected, wc.status());
            return;
        }
        assertTrue(wc.status() == expected || wc.status() == WcStatus.SUCCESS || wc.status() == WcStatus.WR_FLUSH_ERROR,
                "unexpected " + wc.status());
        String reason = client.disconnects.poll(WAIT.toMillis(), TimeUnit.MILLISECONDS);
        assertTrue(reason != null && reason.contains("terminated"), "the peer's Terminate ends the connection: " + reason);
        assertEquals(QueuePair.State.ERROR, client.qp.state());
    }

    protected final Arena arena = Arena.ofShared();
    protected Side server;
    protected Side client;
    private RdmaListener listener;

    /** One end: its device objects and what it has seen. */
    protected static final class Side {
        final RdmaDevice device;
        final ProtectionDomain pd;
        final BlockingQueue<WorkCompletion> sends = new LinkedBlockingQueue<>();
        final BlockingQueue<WorkCompletion> recvs = new LinkedBlockingQueue<>();
        final BlockingQueue<String> disconnects = new LinkedBlockingQueue<>();
        final CountDownLatch established = new CountDownLatch(1);
        final AtomicReference<Thread> handlerThread = new AtomicReference<>();
        final CompletionQueue sendCq;
        final CompletionQueue recvCq;
        QueuePair qp;

        Side(RdmaDevice device) {
            this.device = device;
            this.pd = device.allocateProtectionDomain();
            this.sendCq = device.createCompletionQueue(256, wc -> {
                handlerThread.set(Thread.currentThread());
                sends.add(wc);
            });
            this.recvCq = device.createCompletionQueue(256, recvs::add);
        }

        QpConfig config(int ird, int ord) {
            return new QpConfig(pd, sendCq, recvCq, 64, 64, 4, ird, ord, new ConnectionEvents() {
                @Override
                public void established(QueuePair q) {
                    established.countDown();
                }

                @Override
                public void disconnected(QueuePair q, String reason) {
                    disconnects.add(reason);
                }
            });
        }

        WorkCompletion nextSend() throws InterruptedException {
            WorkCompletion wc = sends.poll(WAIT.toMillis(), TimeUnit.MILLISECONDS);
            if (wc == null) {
                throw new AssertionError("no send completion within " + WAIT);
            }
            return wc;
        }

        WorkCompletion nextRecv() throws InterruptedException {
            WorkCompletion wc = recvs.poll(WAIT.toMillis(), TimeUnit.MILLISECONDS);
            if (wc == null) {
                throw new AssertionError("no receive completion within " + WAIT);
            }
            return wc;
        }

        void close() {
            if (qp != null) {
                qp.disconnect();
            }
            sendCq.close();
            recvCq.close();
            pd.close();
        }
    }

    @BeforeEach
    void connect() throws Exception {
        server = new Side(serverDevice());
        client = new Side(clientDevice());
        AtomicReference<QueuePair> accepted = new AtomicReference<>();
        CountDownLatch acceptedLatch = new CountDownLatch(1);
        listener = server.device.listen(listenAddress(), req -> {
            try {
                accepted.set(req.accept(server.config(4, 4), "server-hello".getBytes(StandardCharsets.US_ASCII)));
            } catch (RdmaException e) {
                req.reject(new byte[0]);
            }
            acceptedLatch.countDown();
        });
        client.qp = client.device.connect(listener.localAddress(), client.config(4, 4),
                "client-hello".getBytes(StandardCharsets.US_ASCII)).get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
        assertTrue(acceptedLatch.await(WAIT.toMillis(), TimeUnit.MILLISECONDS));
        server.qp = accepted.get();
        assertTrue(server.established.await(WAIT.toMillis(), TimeUnit.MILLISECONDS));
        assertTrue(client.established.await(WAIT.toMillis(), TimeUnit.MILLISECONDS));
    }

    @AfterEach
    void disconnect() {
        if (client != null) {
            client.close();
        }
        if (server != null) {
            server.close();
        }
        if (listener != null) {
            listener.close();
        }
        arena.close();
    }

    protected MemoryRegion region(Side side, int size, Access... access) throws RdmaException {
        MemorySegment seg = arena.allocate(size, 64);
        return side.pd.register(seg, access.length == 0 ? EnumSet.noneOf(Access.class) : EnumSet.of(access[0], access));
    }

    private static void fill(MemoryRegion mr, String text) {
        byte[] b = text.getBytes(StandardCharsets.UTF_8);
        MemorySegment.copy(b, 0, mr.segment(), ValueLayout.JAVA_BYTE, 0, b.length);
    }

    private static String text(MemoryRegion mr, long offset, int length) {
        return new String(mr.segment().asSlice(offset, length).toArray(ValueLayout.JAVA_BYTE), StandardCharsets.UTF_8);
    }

    /**
     * A Send after RDMA Writes is delivered only once their data is placed (RFC 5040 §5.5): the usual
     * way a writer tells its peer the data is there. Returns when the server has the Send.
     */
    protected void fence() throws Exception {
        MemoryRegion rx = region(server, 16, Access.LOCAL_WRITE);
        MemoryRegion tx = region(client, 16);
        server.qp.postReceive(RecvWr.of(777, rx.sge(0, 16)));
        client.qp.postSend(SendWr.send(778, tx.sge(0, 4)));
        assertEquals(WcStatus.SUCCESS, client.nextSend().status());
        assertEquals(777, server.nextRecv().wrId());
    }

    protected static void awaitState(QueuePair qp, QueuePair.State want) throws InterruptedException {
        long end = System.nanoTime() + WAIT.toNanos();
        while (qp.state() != want && System.nanoTime() < end) {
            Thread.sleep(5);
        }
        assertEquals(want, qp.state());
    }

    // ---------------------------------------------------------------- connection management

    @Test
    void privateDataTravelsBothWaysAndReadsAreNegotiated() {
        assertEquals("client-hello", new String(server.qp.remotePrivateData(), StandardCharsets.US_ASCII));
        assertEquals("server-hello", new String(client.qp.remotePrivateData(), StandardCharsets.US_ASCII));
        assertEquals(4, client.qp.outboundReads());
        assertEquals(4, server.qp.inboundReads());
        assertEquals(QueuePair.State.CONNECTED, client.qp.state());
    }

    @Test
    void aRejectCarriesThePeersPrivateData() throws Exception {
        try (RdmaListener refusing = server.device.listen(otherListenAddress(), req -> req.reject(new byte[] {7, 7}))) {
            Side other = new Side(clientDevice());
            try {
                ExecutionException e = assertThrows(ExecutionException.class,
                        () -> other.device.connect(refusing.localAddress(), other.config(1, 1), new byte[0])
                                .get(WAIT.toMillis(), TimeUnit.MILLISECONDS));
                ConnectionRejectedException r = assertInstanceOf(ConnectionRejectedException.class, e.getCause());
                assertArrayEquals(new byte[] {7, 7}, r.privateData());
            } finally {
                other.close();
            }
        }
    }

    @Test
    void privateDataOverTheDeviceLimitIsRefused() throws Exception {
        byte[] big = new byte[client.device.limits().maxPrivateDataBytes() + 1];
        ExecutionException e = assertThrows(ExecutionException.class,
                () -> client.device.connect(listener.localAddress(), client.config(1, 1), big)
                        .get(WAIT.toMillis(), TimeUnit.MILLISECONDS));
        assertInstanceOf(RdmaException.class, e.getCause());
    }

    protected InetSocketAddress otherListenAddress() throws Exception {
        return new InetSocketAddress(InetAddress.getLoopbackAddress(), 0);
    }

    // ---------------------------------------------------------------- send / receive

    @Test
    void aSendLandsInThePostedReceiveAcrossScatterGatherLists() throws Exception {
        MemoryRegion rx = region(server, 64, Access.LOCAL_WRITE);
        MemoryRegion tx = region(client, 64);
        fill(tx, "hello, world");
        server.qp.postReceive(RecvWr.of(11, rx.sge(0, 4), rx.sge(32, 32)));
        client.qp.postSend(SendWr.send(21, tx.sge(0, 5), tx.sge(5, 7)));
        WorkCompletion s = client.nextSend();
        assertEquals(21, s.wrId());
        assertEquals(WcStatus.SUCCESS, s.status());
        WorkCompletion r = server.nextRecv();
        assertEquals(11, r.wrId());
        assertEquals(WcStatus.SUCCESS, r.status());
        assertEquals(12, r.byteLength());
        assertEquals("hell", text(rx, 0, 4));
        assertEquals("o, world", text(rx, 32, 8));
        assertNotEquals(Thread.currentThread(), client.handlerThread.get(), "completions are delivered off the poster");
    }

    @Test
    void completionsArriveInPostingOrder() throws Exception {
        MemoryRegion rx = region(server, 4096, Access.LOCAL_WRITE);
        MemoryRegion tx = region(client, 16);
        for (int i = 0; i < 32; i++) {
            server.qp.postReceive(RecvWr.of(100 + i, rx.sge(i * 64L, 64)));
        }
        for (int i = 0; i < 32; i++) {
            client.qp.postSend(SendWr.send(i, tx.sge(0, 16)));
        }
        for (int i = 0; i < 32; i++) {
            assertEquals(i, client.nextSend().wrId());
            assertEquals(100 + i, server.nextRecv().wrId());
        }
    }

    /** Whether {@link QueuePair#doorbell} with leave to transmit sends on the caller's thread (software providers). */
    protected boolean doorbellTransmitsOnTheCaller() {
        return false;
    }

    @Test
    void deferredPostsGoOutInOrderWhenTheDoorbellRingsAcrossAnRdmaRead() throws Exception {
        MemoryRegion rx = region(server, 4096, Access.LOCAL_WRITE);
        MemoryRegion target = region(server, 64, Access.LOCAL_WRITE, Access.REMOTE_WRITE);
        MemoryRegion source = region(server, 64, Access.REMOTE_READ);
        fill(source, "read back");
        MemoryRegion tx = region(client, 64, Access.LOCAL_WRITE);
        fill(tx, "written");
        for (int i = 0; i < 4; i++) {
            server.qp.postReceive(RecvWr.of(100 + i, rx.sge(i * 64L, 64)));
        }
        client.qp.postSendDeferred(SendWr.write(1, target.address(), target.rkey(), tx.sge(0, 7)));
        client.qp.postSendDeferred(SendWr.send(2, tx.sge(0, 1)));
        client.qp.postSendDeferred(SendWr.read(3, source.address(), source.rkey(), tx.sge(32, 9)));
        client.qp.postSendDeferred(SendWr.send(4, tx.sge(1, 1)));
        client.qp.doorbell(true);
        if (doorbellTransmitsOnTheCaller()) {
            assertTrue(client.sends.size() >= 2, "the Write and the Send before the Read went out on the thread that"
                    + " rang, and their completions were delivered there before it returned");
        }
        java.util.Map<Long, WcStatus> done = new java.util.HashMap<>();
        for (int i = 0; i < 4; i++) {
            WorkCompletion wc = client.nextSend();
            done.put(wc.wrId(), wc.status());
        }
        assertEquals(java.util.Map.of(1L, WcStatus.SUCCESS, 2L, WcStatus.SUCCESS, 3L, WcStatus.SUCCESS,
                4L, WcStatus.SUCCESS), done);
        assertEquals(100, server.nextRecv().wrId(), "the Sends arrive in posting order");
        assertEquals(101, server.nextRecv().wrId());
        assertEquals("written", text(target, 0, 7));
        assertEquals("read back", text(tx, 32, 9));
        assertEquals("w", text(rx, 0, 1));
        assertEquals("r", text(rx, 64, 1));
    }

    @Test
    void sendWithInvalidateInvalidatesTheReceiversRegion() throws Exception {
        MemoryRegion rx = region(server, 64, Access.LOCAL_WRITE);
        MemoryRegion exposed = region(server, 64, Access.LOCAL_WRITE, Access.REMOTE_WRITE);
        MemoryRegion tx = region(client, 64);
        server.qp.postReceive(RecvWr.of(1, rx.sge(0, 64)));
        client.qp.postSend(SendWr.sendWithInvalidate(2, exposed.rkey(), tx.sge(0, 8)));
        assertEquals(WcStatus.SUCCESS, client.nextSend().status());
        WorkCompletion r = server.nextRecv();
        assertEquals(exposed.rkey(), r.invalidatedRkey());
        assertFalse(exposed.isValid());
        client.qp.postSend(SendWr.write(3, exposed.address(), exposed.rkey(), tx.sge(0, 8)));
        assertRemoteFailure(WcStatus.REMOTE_ACCESS_ERROR); // an invalidated STag refuses access
    }

    @Test
    void sendWithSolicitedEventIsFlaggedAtTheReceiver() throws Exception {
        MemoryRegion rx = region(server, 64, Access.LOCAL_WRITE);
        MemoryRegion tx = region(client, 64);
        server.qp.postReceive(RecvWr.of(1, rx.sge(0, 64)));
        server.qp.postReceive(RecvWr.of(2, rx.sge(0, 64)));
        client.qp.postSend(SendWr.send(3, tx.sge(0, 4)));
        client.qp.postSend(SendWr.sendWithSolicitedEvent(4, tx.sge(0, 4)));
        assertFalse(server.nextRecv().solicited());
        assertTrue(server.nextRecv().solicited());
    }

    @Test
    void aSendWithNoReceivePostedBreaksTheConnection() throws Exception {
        MemoryRegion rx = region(client, 64, Access.LOCAL_WRITE);
        MemoryRegion tx = region(client, 64);
        client.qp.postReceive(RecvWr.of(9, rx.sge(0, 64)));
        client.qp.postSend(SendWr.send(1, tx.sge(0, 8)));
        assertRemoteFailure(WcStatus.REMOTE_OPERATION_ERROR);
        WorkCompletion flushed = client.nextRecv();
        assertEquals(9, flushed.wrId());
        assertEquals(WcStatus.WR_FLUSH_ERROR, flushed.status());
        assertTrue(server.disconnects.poll(WAIT.toMillis(), TimeUnit.MILLISECONDS) != null);
        awaitState(client.qp, QueuePair.State.ERROR);
        client.qp.postSend(SendWr.send(2, tx.sge(0, 8)));
        assertEquals(WcStatus.WR_FLUSH_ERROR, client.nextSend().status(), "after an error, requests flush");
    }

    @Test
    void aReceiveTooSmallFailsBothEnds() throws Exception {
        MemoryRegion rx = region(server, 64, Access.LOCAL_WRITE);
        MemoryRegion tx = region(client, 64);
        server.qp.postReceive(RecvWr.of(1, rx.sge(0, 4)));
        client.qp.postSend(SendWr.send(2, tx.sge(0, 32)));
        assertEquals(WcStatus.LOCAL_LENGTH_ERROR, server.nextRecv().status());
        assertRemoteFailure(WcStatus.REMOTE_OPERATION_ERROR);
    }

    @Test
    void aReceiveIntoMemoryWithoutLocalWriteIsAProtectionError() throws Exception {
        MemoryRegion rx = region(server, 64);
        MemoryRegion tx = region(client, 64);
        server.qp.postReceive(RecvWr.of(1, rx.sge(0, 64)));
        client.qp.postSend(SendWr.send(2, tx.sge(0, 8)));
        assertEquals(WcStatus.LOCAL_PROTECTION_ERROR, server.nextRecv().status());
        assertRemoteFailure(WcStatus.REMOTE_OPERATION_ERROR);
    }

    // ---------------------------------------------------------------- RDMA Write / Read

    @Test
    void rdmaWritePlacesDataAtTheRemoteAddress() throws Exception {
        MemoryRegion target = region(server, 128, Access.LOCAL_WRITE, Access.REMOTE_WRITE);
        MemoryRegion tx = region(client, 64);
        fill(tx, "placed by the peer");
        client.qp.postSend(SendWr.write(5, target.address() + 100, target.rkey(), tx.sge(0, 18)));
        assertEquals(WcStatus.SUCCESS, client.nextSend().status());
        assertEquals(0, server.recvs.size(), "RDMA Write consumes no receive");
        fence();
        assertEquals("placed by the peer", text(target, 100, 18));
    }

    @Test
    void rdmaReadFetchesRemoteData() throws Exception {
        MemoryRegion source = region(server, 128, Access.REMOTE_READ);
        fill(source, "fetched by the peer");
        MemoryRegion rx = region(client, 64, Access.LOCAL_WRITE);
        client.qp.postSend(SendWr.read(6, source.address(), source.rkey(), rx.sge(0, 7), rx.sge(32, 12)));
        assertEquals(WcStatus.SUCCESS, client.nextSend().status());
        assertEquals("fetched", text(rx, 0, 7));
        assertEquals(" by the peer", text(rx, 32, 12));
    }

    @Test
    void aWriteWithABadRkeyIsARemoteAccessErrorAndTerminates() throws Exception {
        MemoryRegion target = region(server, 64, Access.LOCAL_WRITE, Access.REMOTE_WRITE);
        MemoryRegion tx = region(client, 64);
        client.qp.postSend(SendWr.write(1, target.address(), target.rkey() ^ 0xff, tx.sge(0, 8)));
        assertRemoteFailure(WcStatus.REMOTE_ACCESS_ERROR);
        awaitState(client.qp, QueuePair.State.ERROR);
        assertTrue(server.disconnects.poll(WAIT.toMillis(), TimeUnit.MILLISECONDS) != null);
    }

    @Test
    void aWriteOutOfBoundsIsRefusedAndNothingBeyondTheRegionChanges() throws Exception {
        MemorySegment big = arena.allocate(256, 64);
        MemoryRegion target = server.pd.register(big.asSlice(0, 128), EnumSet.of(Access.LOCAL_WRITE, Access.REMOTE_WRITE));
        MemoryRegion tx = region(client, 64);
        tx.segment().fill((byte) 'x');
        client.qp.postSend(SendWr.write(1, target.address() + 100, target.rkey(), tx.sge(0, 64)));
        assertRemoteFailure(WcStatus.REMOTE_ACCESS_ERROR);
        for (long i = 0; i < 256; i++) {
            assertEquals(0, big.get(ValueLayout.JAVA_BYTE, i), "byte " + i + " untouched");
        }
    }

    @Test
    void aWriteToARegionWithoutRemoteWriteIsRefused() throws Exception {
        MemoryRegion target = region(server, 64, Access.LOCAL_WRITE, Access.REMOTE_READ);
        MemoryRegion tx = region(client, 64);
        client.qp.postSend(SendWr.write(1, target.address(), target.rkey(), tx.sge(0, 8)));
        assertRemoteFailure(WcStatus.REMOTE_ACCESS_ERROR);
    }

    @Test
    void aReadFromARegionWithoutRemoteReadIsRefused() throws Exception {
        MemoryRegion source = region(server, 64, Access.REMOTE_WRITE);
        MemoryRegion rx = region(client, 64, Access.LOCAL_WRITE);
        client.qp.postSend(SendWr.read(1, source.address(), source.rkey(), rx.sge(0, 8)));
        assertRemoteFailure(WcStatus.REMOTE_ACCESS_ERROR);
    }

    @Test
    void anRkeyOfAnotherProtectionDomainIsRefused() throws Exception {
        ProtectionDomain otherPd = server.device.allocateProtectionDomain();
        try {
            MemoryRegion foreign = otherPd.register(arena.allocate(64, 64), EnumSet.allOf(Access.class));
            MemoryRegion tx = region(client, 64);
            client.qp.postSend(SendWr.write(1, foreign.address(), foreign.rkey(), tx.sge(0, 8)));
            assertRemoteFailure(WcStatus.REMOTE_ACCESS_ERROR);
        } finally {
            otherPd.close();
        }
    }

    @Test
    void aDeregisteredRegionRefusesAccess() throws Exception {
        MemoryRegion target = region(server, 64, Access.LOCAL_WRITE, Access.REMOTE_WRITE);
        target.close();
        MemoryRegion tx = region(client, 64);
        client.qp.postSend(SendWr.write(1, target.address(), target.rkey(), tx.sge(0, 8)));
        assertRemoteFailure(WcStatus.REMOTE_ACCESS_ERROR);
    }

    @Test
    void aLocalSgeOutsideItsRegionIsALocalProtectionError() throws Exception {
        MemoryRegion target = region(server, 64, Access.LOCAL_WRITE, Access.REMOTE_WRITE);
        MemoryRegion tx = region(client, 64);
        client.qp.postSend(SendWr.write(1, target.address(), target.rkey(), tx.sge(60, 8)));
        assertEquals(WcStatus.LOCAL_PROTECTION_ERROR, client.nextSend().status());
    }

    // ---------------------------------------------------------------- immediate refusals and teardown

    @Test
    void tooManySgesAndAFullReceiveQueueAreRefusedAtOnce() throws Exception {
        MemoryRegion rx = region(server, 64, Access.LOCAL_WRITE);
        Sge s = rx.sge(0, 8);
        assertThrows(RdmaException.class, () -> server.qp.postReceive(RecvWr.of(1, s, s, s, s, s)));
        for (int i = 0; i < 64; i++) {
            server.qp.postReceive(RecvWr.of(i, s));
        }
        assertThrows(RdmaException.class, () -> server.qp.postReceive(RecvWr.of(99, s)));
    }

    @Test
    void disconnectFlushesPostedReceivesAndTellsBothEnds() throws Exception {
        MemoryRegion rx = region(server, 64, Access.LOCAL_WRITE);
        server.qp.postReceive(RecvWr.of(1, rx.sge(0, 64)));
        client.qp.disconnect();
        WorkCompletion f = server.nextRecv();
        assertEquals(WcStatus.WR_FLUSH_ERROR, f.status());
        assertTrue(server.disconnects.poll(WAIT.toMillis(), TimeUnit.MILLISECONDS) != null);
        assertTrue(client.disconnects.poll(WAIT.toMillis(), TimeUnit.MILLISECONDS) != null);
    }

    // ---------------------------------------------------------------- the vfs pool on a protection domain

    @Test
    void pooledIoMemoryIsRegisteredOncePerSlabAndUsableAsAnSge() throws Exception {
        PoolLimits limits = new PoolLimits(8L << 20, 8L << 20, 1 << 20, 4096, 1 << 20, Duration.ofSeconds(1));
        try (IoMemoryPool pool = new IoMemoryPool(limits, server.pd)) {
            IoMemoryPool.Account acct = pool.account("peer");
            try (IoMemory a = acct.lease(4096); IoMemory b = acct.lease(4096)) {
                MemoryRegion mr = assertInstanceOf(MemoryRegion.class, a.registration());
                assertTrue(mr == b.registration(), "one registration for the slab");
                Set<Access> rights = mr.access();
                assertTrue(rights.contains(Access.REMOTE_WRITE) && rights.contains(Access.LOCAL_WRITE));
                MemoryRegion tx = region(client, 64);
                fill(tx, "into the pool");
                client.qp.postSend(SendWr.write(1, mr.address() + b.offsetInRegistration(), mr.rkey(), tx.sge(0, 13)));
                assertEquals(WcStatus.SUCCESS, client.nextSend().status());
                fence();
                assertEquals("into the pool", new String(b.segment().asSlice(0, 13).toArray(ValueLayout.JAVA_BYTE),
                        StandardCharsets.UTF_8));
            }
        }
    }
}
