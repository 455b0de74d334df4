package io.rdmagate.oncrpc.client;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.rdmagate.oncrpc.rpc.AuthStat;
import io.rdmagate.oncrpc.rpc.AuthSys;
import io.rdmagate.oncrpc.rpc.CallHeaders;
import io.rdmagate.oncrpc.rpc.Credentials;
import io.rdmagate.oncrpc.rpc.Rpc;
import io.rdmagate.oncrpc.server.RpcLimits;
import io.rdmagate.oncrpc.server.RpcServer;
import io.rdmagate.oncrpc.server.ToyProgram;
import io.rdmagate.vfs.memory.IoMemoryPool;
import io.rdmagate.vfs.memory.MemoryRegistrar;
import io.rdmagate.vfs.memory.PayloadCopies;
import io.rdmagate.vfs.memory.PoolLimits;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The server over loopback TCP, driven by the real client. */
class RpcServerEndToEndTest {
    private static final Duration T = Duration.ofSeconds(10);
    private static final InetAddress LOOPBACK = InetAddress.getLoopbackAddress();
    private static final AuthSys ALICE = new AuthSys(1, "client", 1000, 100, new int[] {100});

    private final ToyProgram toy = new ToyProgram();
    private final PayloadCopies copies = new PayloadCopies();
    private final List<AutoCloseable> closeables = new ArrayList<>();
    private RpcServer server;

    @AfterEach
    void tearDown() throws Exception {
        toy.gate.release(1000);
        for (AutoCloseable c : closeables.reversed()) {
            c.close();
        }
    }

    private void start(RpcLimits limits) throws IOException {
        server = RpcServer.builder().program(toy).limits(limits).payloadCopies(copies).bind(LOOPBACK, 0);
        closeables.add(server);
    }

    private RpcClient client() throws IOException {
        RpcClient c = RpcClient.connect(server.tcpAddress(), T).credentials(ALICE);
        closeables.add(c);
        return c;
    }

    private static void eventually(BooleanSupplier condition, String what) throws InterruptedException {
        long end = System.nanoTime() + T.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > end) {
                throw new AssertionError("timed out waiting until " + what);
            }
            Thread.sleep(10);
        }
    }

    private static byte[] opaque(byte... data) {
        ByteBuf b = Unpooled.buffer().writeInt(data.length).writeBytes(data).writeZero(-data.length & 3);
        return ByteBufUtil.getBytes(b);
    }

    @Test
    void programsHearOfEachConnectionOnceWhenItOpensAndOnceWhenItEnds() throws Exception {
        start(RpcLimits.DEFAULT);
        RpcClient first = client();
        assertTrue(first.call(ToyProgram.PROG, 2, ToyProgram.NULL, new byte[0], T).header().isSuccess());
        eventually(() -> toy.opened.size() == 1, "the connection's opening was reported");
        io.rdmagate.oncrpc.server.Connection opened = toy.opened.peek();
        assertEquals(opened.id(), toy.lastCaller.id(), "calls name the connection that was reported open");
        assertTrue(toy.closed.isEmpty(), "a connection still open is not reported closed");
        RpcClient second = client();
        assertTrue(second.call(ToyProgram.PROG, 2, ToyProgram.NULL, new byte[0], T).header().isSuccess());
        eventually(() -> toy.opened.size() == 2, "the second connection's opening was reported");
        first.close();
        eventually(() -> toy.closed.size() == 1, "the first connection's end was reported");
        assertEquals(opened, toy.closed.peek(), "the connection that ended is the first one");
        assertTrue(second.call(ToyProgram.PROG, 2, ToyProgram.NULL, new byte[0], T).header().isSuccess(),
                "the other connection is untouched");
        second.close();
        eventually(() -> toy.closed.size() == 2, "the second connection's end was reported");
        assertEquals(2, toy.opened.size(), "each connection was reported open once");
    }

    @Test
    void callsSucceedWithAuthSys() throws Exception {
        start(RpcLimits.DEFAULT);
        RpcClient c = client();
        assertTrue(c.call(ToyProgram.PROG, 2, ToyProgram.NULL, new byte[0], T).header().isSuccess());
        RpcReplyMessage echo = c.call(ToyProgram.PROG, 3, ToyProgram.ECHO, opaque((byte) 9, (byte) 8), T);
        assertArrayEquals(new byte[] {9, 8}, echo.results().readOpaque(64));
        assertEquals(1000, c.call(ToyProgram.PROG, 4, ToyProgram.WHOAMI, new byte[0], T).results().readInt());
        c.credentials(Credentials.NONE);
        RpcReplyMessage denied = c.call(ToyProgram.PROG, 4, ToyProgram.WHOAMI, new byte[0], T);
        assertEquals(AuthStat.AUTH_TOOWEAK, denied.header().authStat());
        assertEquals(Rpc.PROG_MISMATCH, c.call(ToyProgram.PROG, 9, 0, new byte[0], T).header().acceptStat());
    }

    @Test
    void manyPipelinedCallsFromManyClientsAllGetTheirReplies() throws Exception {
        start(RpcLimits.DEFAULT);
        List<CompletableFuture<RpcReplyMessage>> all = new ArrayList<>();
        List<Integer> xids = new ArrayList<>();
        for (int k = 0; k < 4; k++) {
            RpcClient c = client();
            for (int i = 0; i < 200; i++) {
                int xid = c.nextXid();
                xids.add(xid);
                all.add(c.callAsync(xid, ToyProgram.PROG, 2, ToyProgram.ECHO, opaque((byte) i)));
            }
        }
        for (int i = 0; i < all.size(); i++) {
            RpcReplyMessage r = RpcClient.await(all.get(i), T);
            assertEquals((int) xids.get(i), r.header().xid());
            assertArrayEquals(new byte[] {(byte) (i % 200)}, r.results().readOpaque(64));
        }
    }

    @Test
    void theCallPastTheInFlightBoundIsNotReadUntilOneCompletes() throws Exception {
        start(RpcLimits.DEFAULT.withMaxInFlight(2));
        RpcClient c = client();
        List<CompletableFuture<RpcReplyMessage>> f = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            f.add(c.callAsync(c.nextXid(), ToyProgram.PROG, 2, ToyProgram.BLOCK, new byte[0]));
        }
        eventually(() -> toy.entered.get() == 2, "two calls block in the handler");
        Thread.sleep(300);
        assertEquals(2, toy.entered.get(), "the third call waits");
        toy.gate.release();
        eventually(() -> toy.entered.get() == 3, "the third call runs once one has completed");
        toy.gate.release(2);
        for (CompletableFuture<RpcReplyMessage> x : f) {
            assertTrue(RpcClient.await(x, T).header().isSuccess());
        }
    }

    @Test
    void idleConnectionsAreClosed() throws Exception {
        start(RpcLimits.DEFAULT.withIdleTimeout(Duration.ofMillis(300)));
        RpcClient c = client();
        assertTrue(c.call(ToyProgram.PROG, 2, 0, new byte[0], T).header().isSuccess());
        eventually(c::isClosed, "the server closes the idle connection");
        eventually(() -> server.openConnections() == 0, "no connection is open");
    }

    @Test
    void atTheMaximumTheQuietestConnectionMakesRoomForANewClient() throws Exception {
        start(RpcLimits.DEFAULT.withMaxConnections(2));
        RpcClient a = client();
        RpcClient b = client();
        assertTrue(a.call(ToyProgram.PROG, 2, 0, new byte[0], T).header().isSuccess());
        assertTrue(b.call(ToyProgram.PROG, 2, 0, new byte[0], T).header().isSuccess()); // a is now the quietest
        RpcClient third = client();
        assertTrue(third.call(ToyProgram.PROG, 2, 0, new byte[0], T).header().isSuccess(),
                "a new client is served although the maximum was open");
        eventually(a::isClosed, "the quietest connection is closed");
        assertTrue(b.call(ToyProgram.PROG, 2, 0, new byte[0], T).header().isSuccess());
        assertEquals(1, server.evictedConnections());
        eventually(() -> server.openConnections() == 2, "two connections are open");
    }

    @Test
    void aFloodOfIdleConnectionsDoesNotLockAClientOut() throws Exception {
        start(RpcLimits.DEFAULT.withMaxConnections(16));
        List<java.net.Socket> flood = new ArrayList<>();
        try {
            for (int i = 0; i < 64; i++) {
                flood.add(new java.net.Socket(LOOPBACK, server.port())); // connects and never sends a byte
            }
            // the flood is in (its connections registered on several event loops, in no fixed order)
            eventually(() -> server.evictedConnections() == 64 - 16, "the flood evicted its own beyond 16");
            RpcClient c = client();
            assertTrue(c.call(ToyProgram.PROG, 2, 0, new byte[0], T).header().isSuccess());
            eventually(() -> server.openConnections() <= 16, "no more than the maximum stay open");
        } finally {
            for (java.net.Socket s : flood) {
                s.close();
            }
        }
    }

    /**
     * A flood from one address evicts only its own connections: the quiet connections of another
     * address (the oldest, which the global bound alone would close first) stay open.
     */
    @Test
    void aFloodFromOneAddressEvictsOnlyItsOwnConnections() throws Exception {
        start(RpcLimits.DEFAULT.withMaxConnections(16).withMaxConnectionsPerAddress(8));
        java.net.InetAddress other = java.net.InetAddress.getByName("127.0.0.2");
        List<java.net.Socket> quiet = new ArrayList<>();
        List<java.net.Socket> flood = new ArrayList<>();
        try {
            for (int i = 0; i < 4; i++) {
                quiet.add(new java.net.Socket(LOOPBACK, server.port(), other, 0));
            }
            eventually(() -> server.openConnections() == 4, "the other address's connections are open");
            for (int i = 0; i < 64; i++) {
                flood.add(new java.net.Socket(LOOPBACK, server.port(), LOOPBACK, 0)); // never sends a byte
            }
            eventually(() -> server.evictedConnections() == 64 - 8, "the flood evicted its own beyond 8");
            for (java.net.Socket s : quiet) {
                s.setSoTimeout(200);
                assertThrows(java.net.SocketTimeoutException.class, () -> s.getInputStream().read(),
                        "a connection of the other address is still open");
            }
            RpcClient c = client();
            assertTrue(c.call(ToyProgram.PROG, 2, 0, new byte[0], T).header().isSuccess(),
                    "a new client of the flooding address is served too");
            eventually(() -> server.openConnections() == 4 + 8, "4 of the other address and 8 of the flood's");
        } finally {
            for (java.net.Socket s : flood) {
                s.close();
            }
            for (java.net.Socket s : quiet) {
                s.close();
            }
        }
    }

    /**
     * Slowloris: a client that sends one byte of a record every 50 ms keeps its connection busy,
     * so neither the idle timeout nor the quietest-first eviction would ever close it; the record
     * deadline does, while a client whose calls complete stays.
     */
    @Test
    void aRecordTricklingInPastTheRecordTimeoutClosesItsConnection() throws Exception {
        start(RpcLimits.DEFAULT.withRecordTimeout(java.time.Duration.ofSeconds(1)));
        RpcClient fine = client();
        try (java.net.Socket trickle = new java.net.Socket(LOOPBACK, server.port())) {
            trickle.setSoTimeout(50);
            java.io.OutputStream out = trickle.getOutputStream();
            byte[] record = {(byte) 0x80, 0, 0, 100}; // a last fragment of 100 bytes, sent a byte at a time
            long end = System.nanoTime() + T.toNanos();
            boolean closed = false;
            for (int i = 0; !closed && System.nanoTime() < end; i++) {
                try {
                    out.write(i < record.length ? record[i] : 0);
                    out.flush();
                    closed = trickle.getInputStream().read() == -1; // the pacing of the trickle, and the check
                } catch (java.net.SocketTimeoutException stillOpen) {
                    // not closed yet: the next byte
                } catch (java.io.IOException reset) {
                    closed = true;
                }
            }
            assertTrue(closed, "the trickling connection is closed at the record deadline");
        }
        assertTrue(fine.call(ToyProgram.PROG, 2, 0, new byte[0], T).header().isSuccess(), "a normal client stays");
    }

    /**
     * A client that sends calls and never reads their replies: once its receive window and the
     * server's socket buffer are full, its replies (and the pool memory they hold) would wait
     * forever, and a connection with calls in flight is never idle. At the send deadline the
     * connection is closed and the memory released, while a client that reads stays served.
     */
    @Test
    void aClientThatTakesNoneOfItsRepliesIsClosedAtTheSendTimeout() throws Exception {
        start(RpcLimits.DEFAULT.withSendTimeout(Duration.ofSeconds(1)));
        try (IoMemoryPool pool = new IoMemoryPool(PoolLimits.DEFAULT, MemoryRegistrar.NONE)) {
            IoMemoryPool.Account account = pool.account("test");
            toy.payloads = () -> {
                try {
                    return account.lease(256 << 10);
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            };
            RpcClient fine = client();
            try (java.net.Socket stalled = new java.net.Socket()) {
                stalled.setReceiveBufferSize(4096);
                stalled.connect(server.tcpAddress());
                ByteBuf calls = Unpooled.buffer();
                for (int xid = 1; xid <= 64; xid++) {
                    ByteBuf call = CallHeaders.write(Unpooled.buffer(), xid, ToyProgram.PROG, 2, ToyProgram.PAYLOAD, ALICE);
                    calls.writeInt(0x80000000 | call.readableBytes()).writeBytes(call);
                }
                stalled.getOutputStream().write(ByteBufUtil.getBytes(calls));
                eventually(() -> pool.leasedBytes() > 0, "replies wait for the stalled client");
                eventually(() -> server.openConnections() == 1, "the stalled connection is closed at the send deadline");
                eventually(() -> pool.leasedBytes() == 0, "and what its replies held is released");
                var r = fine.call(ToyProgram.PROG, 2, ToyProgram.PAYLOAD, new byte[0], T).results();
                assertEquals(1, r.readInt());
                assertEquals(256 << 10, r.readOpaque(1 << 20).length, "a client that reads stays served");
            }
        }
    }

    @Test
    void aPayloadGoesOutWithoutACopyAndIsReleased() throws Exception {
        start(RpcLimits.DEFAULT);
        try (IoMemoryPool pool = new IoMemoryPool(PoolLimits.DEFAULT, MemoryRegistrar.NONE)) {
            IoMemoryPool.Account account = pool.account("test");
            toy.payloads = () -> {
                try {
                    var m = account.lease(100_000);
                    m.segment().fill((byte) 0x5A);
                    return m;
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            };
            RpcClient c = client();
            for (int i = 0; i < 20; i++) {
                var r = c.call(ToyProgram.PROG, 2, ToyProgram.PAYLOAD, new byte[0], T).results();
                assertEquals(1, r.readInt());
                byte[] data = r.readOpaque(1 << 20);
                assertEquals(100_000, data.length);
                assertEquals(0x5A, data[99_999]);
                assertEquals(2, r.readInt());
            }
            eventually(() -> pool.leasedBytes() == 0, "every payload is released once written");
            assertEquals(0, copies.total());
        }
    }

    @Test
    void badInputGetsARefusalOrACloseAndOtherClientsGoOn() throws Exception {
        start(RpcLimits.DEFAULT.withMaxRecordSize(64 * 1024));
        RpcClient other = client();

        // a truncated header: GARBAGE_ARGS, connection kept
        RpcClient c = client();
        CompletableFuture<RpcReplyMessage> f = c.expect(4242);
        c.sendRaw(marked(Unpooled.buffer().writeInt(4242).writeInt(Rpc.CALL).writeInt(2).writeInt(ToyProgram.PROG)));
        assertEquals(Rpc.GARBAGE_ARGS, RpcClient.await(f, T).header().acceptStat());
        assertTrue(c.call(ToyProgram.PROG, 2, 0, new byte[0], T).header().isSuccess());

        // a credential body over 400 bytes: AUTH_BADCRED
        f = c.expect(4343);
        c.sendRaw(marked(Unpooled.buffer().writeInt(4343).writeInt(Rpc.CALL).writeInt(2).writeInt(ToyProgram.PROG)
                .writeInt(2).writeInt(0).writeInt(1).writeInt(500).writeZero(500).writeLong(0)));
        assertEquals(AuthStat.AUTH_BADCRED, RpcClient.await(f, T).header().authStat());

        // rpcvers 3: RPC_MISMATCH
        f = c.expect(4444);
        ByteBuf v3 = CallHeaders.write(Unpooled.buffer(), 4444, ToyProgram.PROG, 2, 0, ALICE);
        v3.setInt(8, 3);
        c.sendRaw(marked(v3));
        assertEquals(Rpc.RPC_MISMATCH, RpcClient.await(f, T).header().rejectStat());

        // an absurd record length: closed
        RpcClient absurd = client();
        absurd.sendRaw(new byte[] {(byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF});
        eventually(absurd::isClosed, "absurd record length closes");
        // a record over the limit: closed
        RpcClient big = client();
        big.sendRaw(Unpooled.buffer().writeInt(0x80000000 | (64 * 1024 + 1)).array());
        eventually(big::isClosed, "oversize record closes");
        // an empty record: closed
        RpcClient empty = client();
        empty.sendRaw(new byte[] {(byte) 0x80, 0, 0, 0});
        eventually(empty::isClosed, "empty record closes");
        // a call cut short by the client going away
        RpcClient gone = client();
        gone.sendRaw(new byte[] {(byte) 0x80, 0, 1, 0, 1, 2, 3});
        gone.close();

        assertThrows(IOException.class, () -> absurd.call(ToyProgram.PROG, 2, 0, new byte[0], T));
        assertTrue(other.call(ToyProgram.PROG, 2, 0, new byte[0], T).header().isSuccess(), "other clients go on");
        assertTrue(client().call(ToyProgram.PROG, 2, 0, new byte[0], T).header().isSuccess(), "new clients too");
    }

    private static byte[] marked(ByteBuf message) {
        ByteBuf b = Unpooled.buffer().writeInt(0x80000000 | message.readableBytes()).writeBytes(message);
        return ByteBufUtil.getBytes(b);
    }

    @Test
    void serverAddressIsLoopback() throws Exception {
        start(RpcLimits.DEFAULT);
        InetSocketAddress a = server.tcpAddress();
        assertTrue(a.getAddress().isLoopbackAddress());
        assertTrue(a.getPort() > 0);
    }
}
