package io.rdmagate.rpcrdma.server;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.rdmagate.oncrpc.rpc.CallHeaders;
import io.rdmagate.oncrpc.rpc.Credentials;
import io.rdmagate.oncrpc.rpc.ReplyHeader;
import io.rdmagate.oncrpc.server.RpcDispatcher;
import io.rdmagate.oncrpc.xdr.XdrDecoder;
import io.rdmagate.rdma.RdmaDevice;
import io.rdmagate.rpcrdma.client.RpcRdmaClient;
import io.rdmagate.rpcrdma.client.RpcRdmaClient.Call;
import io.rdmagate.rpcrdma.client.RpcRdmaClient.Reply;
import io.rdmagate.rpcrdma.header.HeaderEncoder;
import io.rdmagate.rpcrdma.header.ReadSegment;
import io.rdmagate.rpcrdma.header.RpcRdma;
import io.rdmagate.rpcrdma.header.Segment;
import io.rdmagate.vfs.memory.PoolLimits;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.zip.CRC32;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The server transport end to end with the test client, on one provider. */
abstract class AbstractRpcRdmaTest {
    static final PoolLimits POOL = new PoolLimits(64L << 20, 32L << 20, 4 << 20, 4 << 10, 1 << 20,
            Duration.ofSeconds(2));

    RdmaDevice serverDevice;
    RdmaDevice clientDevice;
    RpcRdmaServer server;
    RpcRdmaClient client;
    EchoProgram echo;

    abstract RdmaDevice newDevice(String name);

    RpcRdmaOptions options() {
        return new RpcRdmaOptions(8, 4096, 4096, io.rdmagate.rpcrdma.header.RpcRdmaLimits.DEFAULT);
    }

    @BeforeEach
    void start() throws Exception {
        serverDevice = newDevice("server");
        clientDevice = newDevice("client");
        RpcDispatcher d = new RpcDispatcher(null, ByteBufAllocator.DEFAULT);
        RpcRdmaServer[] self = new RpcRdmaServer[1];
        echo = new EchoProgram(() -> self[0].pool());
        d.register(echo);
        server = RpcRdmaServer.start(serverDevice, d, options(), POOL,
                new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        self[0] = server;
        client = RpcRdmaClient.connect(clientDevice, server.localAddress());
    }

    @AfterEach
    void stop() throws Exception {
        if (client != null) {
            client.close();
        }
        waitFor(() -> server.connectionCount() == 0);
        waitFor(() -> server.pool().leasedBytes() == 0);
        assertEquals(0, server.pool().leasedBytes(), "the pool is back to idle: no lease leaked");
        server.close();
        clientDevice.close();
        serverDevice.close();
    }

    static void waitFor(java.util.function.BooleanSupplier c) throws InterruptedException {
        long end = System.nanoTime() + 10_000_000_000L;
        while (!c.getAsBoolean() && System.nanoTime() < end) {
            Thread.sleep(10);
        }
    }

    byte[] call(int proc, java.util.function.Consumer<ByteBuf> args) {
        return callOn(client, proc, args);
    }

    /** A real client connects to {@code server} and an echo of {@code length} bytes comes back: it is serving. */
    static void assertEchoServed(RdmaDevice clientDevice, RpcRdmaServer server, int length, String when) throws Exception {
        try (RpcRdmaClient client = RpcRdmaClient.connect(clientDevice, server.localAddress())) {
            ByteBuf b = Unpooled.buffer();
            CallHeaders.write(b, client.nextXid(), EchoProgram.PROGRAM, 1, EchoProgram.GET, Credentials.NONE);
            b.writeInt(length);
            byte[] m = new byte[b.readableBytes()];
            b.readBytes(m);
            assertEquals(length, success(client.call(Call.of(m))).readOpaque(100).length, "a real client is served " + when);
        }
    }

    static XdrDecoder success(Reply r) throws Exception {
        XdrDecoder d = new XdrDecoder(Unpooled.wrappedBuffer(r.message()));
        ReplyHeader h = ReplyHeader.decode(d);
        assertTrue(h.isSuccess(), h.toString());
        return d;
    }

    static byte[] random(int n, long seed) {
        byte[] b = new byte[n];
        new Random(seed).nextBytes(b);
        return b;
    }

    static long crc(byte[] b) {
        CRC32 c = new CRC32();
        c.update(b);
        return c.getValue();
    }

    /** The client's side of the test backchannel: answers CB_PROGRAM calls with the opaque reversed. */
    static byte[] reversedAnswer(byte[] call) {
        ByteBuf in = Unpooled.wrappedBuffer(call);
        int xid = in.getInt(0);
        assertEquals(EchoProgram.CB_PROGRAM, in.getInt(12), "a call of the callback program");
        int n = in.getInt(40);
        byte[] payload = new byte[n];
        in.getBytes(44, payload);
        for (int i = 0; i < n / 2; i++) {
            byte t = payload[i];
            payload[i] = payload[n - 1 - i];
            payload[n - 1 - i] = t;
        }
        ByteBuf out = Unpooled.buffer();
        out.writeInt(xid).writeInt(1).writeInt(0).writeInt(0).writeInt(0).writeInt(0);
        out.writeInt(n).writeBytes(payload).writeZero(-n & 3);
        byte[] b = new byte[out.readableBytes()];
        out.readBytes(b);
        return b;
    }

    @Test
    void reverseDirectionCallsReachTheClientWithinItsCredits() throws Exception {
        java.util.concurrent.atomic.AtomicInteger inHandler = new java.util.concurrent.atomic.AtomicInteger();
        java.util.concurrent.atomic.AtomicInteger most = new java.util.concurrent.atomic.AtomicInteger();
        java.util.concurrent.atomic.AtomicInteger answered = new java.util.concurrent.atomic.AtomicInteger();
        client.serveBackchannel(8, call -> {
            most.accumulateAndGet(inHandler.incrementAndGet(), Math::max);
            try {
                Thread.sleep(30);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            inHandler.decrementAndGet();
            answered.incrementAndGet();
            return reversedAnswer(call);
        });
        byte[] payload = random(1000, 7);
        Reply r = client.call(Call.of(call(EchoProgram.CALLBACK, b -> {
            b.writeInt(6);
            b.writeInt(payload.length).writeBytes(payload);
        })).withReplyChunk(64 << 10));
        XdrDecoder d = success(r);
        assertEquals(6, d.readInt());
        for (int i = 0; i < 6; i++) {
            assertTrue(d.readBool(), "reverse call " + i + " answered");
            assertArrayEquals(reversed(payload), d.readOpaque(64 << 10), "reply " + i + " carries the client's answer");
        }
        assertEquals(6, answered.get());
        // RFC 8167 §4.1: one call until the client's first reply, then at most the server's 2
        // (the client granted 8)
        assertTrue(most.get() <= 2, "at most 2 reverse calls outstanding, saw " + most.get());
        assertEquals(8, r.credits(), "reverse replies took no forward credit");
    }

    @Test
    void aReverseCallLongerThanTheInlineThresholdFailsAtOnce() throws Exception {
        client.serveBackchannel(2, AbstractRpcRdmaTest::reversedAnswer);
        Reply r = client.call(Call.of(call(EchoProgram.CALLBACK, b -> {
            b.writeInt(1);
            b.writeInt(5000).writeBytes(random(5000, 3));
        })).withReplyChunk(64 << 10));
        XdrDecoder d = success(r);
        assertEquals(1, d.readInt());
        assertEquals(false, d.readBool());
        String why = d.readString(1000);
        assertTrue(why.contains("exceeds the inline threshold"), why);
    }

    @Test
    void unansweredReverseCallsFailWhenTheConnectionCloses() throws Exception {
        client.serveBackchannel(2, call -> null);
        CompletableFuture<Reply> forward = client.callAsync(Call.of(call(EchoProgram.CALLBACK, b -> {
            b.writeInt(3);
            b.writeInt(4).writeInt(42);
        })));
        waitFor(() -> echo.reverseCalls.size() == 3);
        Thread.sleep(100);
        assertTrue(echo.reverseCalls.stream().noneMatch(CompletableFuture::isDone), "no reply, no completion");
        client.close();
        client = null;
        for (CompletableFuture<ByteBuf> f : echo.reverseCalls) {
            java.util.concurrent.ExecutionException e = org.junit.jupiter.api.Assertions.assertThrows(
                    java.util.concurrent.ExecutionException.class, () -> f.get(10, java.util.concurrent.TimeUnit.SECONDS));
            assertTrue(e.getCause() instanceof java.io.IOException, e.toString());
        }
        org.junit.jupiter.api.Assertions.assertThrows(java.io.IOException.class, () -> RpcRdmaClient.await(forward),
                "the forward call whose handler waited fails with the connection");
    }

    private static byte[] reversed(byte[] b) {
        byte[] r = new byte[b.length];
        for (int i = 0; i < b.length; i++) {
            r[i] = b[b.length - 1 - i];
        }
        return r;
    }

    @Test
    void privateDataAndCredits() throws Exception {
        assertEquals(4096, client.serverParameters().receiveSize());
        assertTrue(client.serverParameters().sendWithInvalidate(), "echoed");
        Reply r = client.call(Call.of(call(EchoProgram.LONG, b -> b.writeInt(8))));
        assertEquals(RpcRdma.RDMA_MSG, r.proc());
        assertEquals(8, r.credits(), "every receive is posted");
        assertEquals(8, success(r).readOpaque(100).length);
    }

    @Test
    void writeDataArrivesByRdmaReadWithoutReassembly() throws Exception {
        for (int n : new int[] {1 << 20, (1 << 20) - 3, 5}) {
            byte[] data = random(n, n);
            byte[] m = call(EchoProgram.PUT, b -> {
                b.writeInt(n);
                b.writeBytes(data);
                b.writeZero(-n & 3);
                b.writeInt(0x7777);
            });
            int dataAt = m.length - 4 - (-n & 3) - n;
            Reply r = client.call(Call.of(m).withReadChunk(dataAt, n));
            XdrDecoder d = success(r);
            assertEquals(n, d.readInt());
            assertEquals(crc(data), d.readHyper());
            assertTrue(d.readInt() >= 1);
            assertEquals(0x7777, d.readInt(), "the inline tail follows the chunk and its roundup");
            assertTrue(d.readBool(), "the chunk is in direct (registered) memory");
        }
    }

    @Test
    void readDataGoesByRdmaWriteIntoTheWriteChunk() throws Exception {
        for (int n : new int[] {1 << 20, (1 << 20) + 1 - 4096, 0}) {
            Reply r = client.call(Call.of(call(EchoProgram.GET, b -> b.writeInt(n))).withWriteChunk(1 << 20, 256 << 10));
            assertEquals(RpcRdma.RDMA_MSG, r.proc());
            XdrDecoder d = success(r);
            assertEquals(n, d.readInt(), "the length stays inline");
            assertEquals(0xfeedf00d, d.readInt(), "the data and its roundup are not inline");
            assertEquals(n, r.writeChunkData().length);
            for (int i = 0; i < n; i++) {
                if (r.writeChunkData()[i] != EchoProgram.pattern(i)) {
                    throw new AssertionError("byte " + i);
                }
            }
        }
    }

    @Test
    void programsHearOfTheConnectionWhenItOpensAndWhenItEnds() throws Exception {
        Reply r = client.call(Call.of(call(EchoProgram.GET, b -> b.writeInt(8))));
        success(r);
        assertEquals(1, echo.opened.size(), "the connection was reported open before its first call");
        assertEquals(echo.opened.peek().id(), echo.lastCaller.id(), "the call names that connection");
        assertEquals("rdma", echo.opened.peek().transport());
        assertTrue(echo.closed.isEmpty());
        client.close();
        client = null;
        waitFor(() -> echo.closed.size() == 1);
        assertEquals(echo.opened.peek(), echo.closed.peek(), "the same connection was reported closed, once");
    }

    @Test
    void aConnectBeyondTheConnectionLimitClosesTheQuietestAndIsServed() throws Exception {
        RpcDispatcher d = new RpcDispatcher(null, ByteBufAllocator.DEFAULT);
        RpcRdmaServer[] self = new RpcRdmaServer[1];
        d.register(new EchoProgram(() -> self[0].pool()));
        try (RpcRdmaServer limited = RpcRdmaServer.start(serverDevice, d, options().withMaxConnections(1), POOL,
                new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))) {
            self[0] = limited;
            RpcRdmaClient idle = RpcRdmaClient.connect(clientDevice, limited.localAddress());
            RpcRdmaClient newcomer = RpcRdmaClient.connect(clientDevice, limited.localAddress());
            try {
                ByteBuf b = Unpooled.buffer();
                CallHeaders.write(b, newcomer.nextXid(), EchoProgram.PROGRAM, 1, EchoProgram.GET, Credentials.NONE);
                b.writeInt(17);
                byte[] m = new byte[b.readableBytes()];
                b.readBytes(m);
                XdrDecoder r = success(newcomer.call(Call.of(m)));
                assertEquals(17, r.readOpaque(100).length, "the new client is served at the bound");
                assertEquals(1, limited.evictedConnections(), "the idle connection made room");
                assertEquals(0, limited.refusedConnections());
                assertEquals(1, limited.connectionCount());
            } finally {
                newcomer.close();
                idle.close();
            }
            waitFor(() -> limited.connectionCount() == 0);
        }
    }

    /**
     * A connection's receive buffers are leased from the one pool when it is accepted (an idle
     * connection holds nothing else of it). A connect the pool cannot hold closes the quietest idle
     * connection to make room, as at the connection bound; with every connection busy it is
     * refused, and the connections go on. Closed connections give everything back.
     */
    @Test
    void connectionBuffersComeFromThePoolWhichIdleConnectionsMakeRoomIn() throws Exception {
        RpcDispatcher d = new RpcDispatcher(null, ByteBufAllocator.DEFAULT);
        RpcRdmaServer[] self = new RpcRdmaServer[1];
        EchoProgram prog = new EchoProgram(() -> self[0].pool());
        d.register(prog);
        // one slab of 256 buffers of 4 KiB; a connection with 100 credits posts 103 receives (one spare,
        // two for the backchannel): two connections fit, not three
        PoolLimits small = new PoolLimits(1 << 20, 1 << 20, 1 << 20, 4 << 10, 1 << 20, Duration.ofMillis(100));
        RpcRdmaOptions o = new RpcRdmaOptions(100, 4096, 4096, io.rdmagate.rpcrdma.header.RpcRdmaLimits.DEFAULT);
        long ring = 103 * 4096L;
        List<RpcRdmaClient> clients = new ArrayList<>();
        try (RpcRdmaServer s = RpcRdmaServer.start(serverDevice, d, o, small,
                new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))) {
            self[0] = s;
            try {
                RpcRdmaClient first = RpcRdmaClient.connect(clientDevice, s.localAddress());
                clients.add(first);
                assertEquals(ring, s.pool().leasedBytes(), "an idle connection holds its receive buffers, from the pool");
                RpcRdmaClient second = RpcRdmaClient.connect(clientDevice, s.localAddress());
                clients.add(second);
                assertEquals(2 * ring, s.pool().leasedBytes());
                // the second is busy: a call waits at the gate
                CompletableFuture<Reply> blocked = second.callAsync(Call.of(callOn(second, EchoProgram.BLOCK, b -> { })));
                waitFor(() -> s.connectionCount() == 2 && prog.gate.getQueueLength() == 1);

                RpcRdmaClient third = RpcRdmaClient.connect(clientDevice, s.localAddress());
                clients.add(third);
                assertEquals(1, s.evictedConnections(), "the idle first connection made room");
                assertEquals(0, s.refusedConnections());
                assertEquals(17, echo(third, 17), "the newcomer is served");
                assertTrue(s.pool().leasedBytes() <= small.maxBytes());

                // now both connections are busy: no room can be made
                CompletableFuture<Reply> blocked3 = third.callAsync(Call.of(callOn(third, EchoProgram.BLOCK, b -> { })));
                waitFor(() -> prog.gate.getQueueLength() == 2);
                org.junit.jupiter.api.Assertions.assertThrows(java.io.IOException.class,
                        () -> clients.add(RpcRdmaClient.connect(clientDevice, s.localAddress())),
                        "every connection is busy and the pool full: refused");
                assertEquals(1, s.refusedConnections());
                prog.gate.release(2);
                success(RpcRdmaClient.await(blocked));
                success(RpcRdmaClient.await(blocked3));
                assertEquals(23, echo(second, 23), "the connections it had go on");
            } finally {
                for (RpcRdmaClient c : clients) {
                    c.close();
                }
            }
            waitFor(() -> s.connectionCount() == 0 && s.pool().leasedBytes() == 0);
            assertEquals(0, s.pool().leasedBytes(), "closed connections gave their buffers back");
        }
    }

    static byte[] callOn(RpcRdmaClient c, int proc, java.util.function.Consumer<ByteBuf> args) {
        ByteBuf b = Unpooled.buffer();
        CallHeaders.write(b, c.nextXid(), EchoProgram.PROGRAM, 1, proc, Credentials.NONE);
        args.accept(b);
        byte[] out = new byte[b.readableBytes()];
        b.readBytes(out);
        return out;
    }

    /** GET of {@code n} bytes on {@code c}: how many came back. */
    static int echo(RpcRdmaClient c, int n) throws Exception {
        return success(c.call(Call.of(callOn(c, EchoProgram.GET, b -> b.writeInt(n))))).readOpaque(n + 1).length;
    }

    @Test
    void smallPayloadWithoutWriteChunkGoesInline() throws Exception {
        Reply r = client.call(Call.of(call(EchoProgram.GET, b -> b.writeInt(101))));
        XdrDecoder d = success(r);
        byte[] got = d.readOpaque(200);
        assertEquals(101, got.length);
        assertEquals(EchoProgram.pattern(100), got[100]);
        assertEquals(0xfeedf00d, d.readInt());
    }

    @Test
    void longReplyGoesToTheReplyChunk() throws Exception {
        Reply r = client.call(Call.of(call(EchoProgram.LONG, b -> b.writeInt(100_000))).withReplyChunk(128 << 10));
        assertEquals(RpcRdma.RDMA_NOMSG, r.proc());
        byte[] got = success(r).readOpaque(1 << 20);
        assertEquals(100_000, got.length);
        assertEquals(EchoProgram.pattern(99_999), got[99_999]);
    }

    @Test
    void longReplyWithoutReplyChunkIsErrChunk() throws Exception {
        Reply r = client.call(Call.of(call(EchoProgram.LONG, b -> b.writeInt(100_000))));
        assertEquals(RpcRdma.RDMA_ERROR, r.proc());
        assertEquals(RpcRdma.ERR_CHUNK, r.errorCode());
        assertEquals(8, success(client.call(Call.of(call(EchoProgram.LONG, b -> b.writeInt(8))))).readOpaque(9).length,
                "the connection goes on");
    }

    @Test
    void payloadLargerThanTheWriteChunkIsErrChunk() throws Exception {
        Reply r = client.call(Call.of(call(EchoProgram.GET, b -> b.writeInt(8192))).withWriteChunk(4096, 4096));
        assertEquals(RpcRdma.ERR_CHUNK, r.errorCode());
    }

    @Test
    void longCallGoesWholeInAPositionZeroReadChunk() throws Exception {
        byte[] data = random(20_000, 3);
        byte[] m = call(EchoProgram.PUT, b -> {
            b.writeInt(data.length);
            b.writeBytes(data);
            b.writeInt(0x1234);
        });
        XdrDecoder d = success(client.call(Call.of(m)));
        assertEquals(data.length, d.readInt());
        assertEquals(crc(data), d.readHyper());
    }

    @Test
    void concurrentCallsUpToTheCredits() throws Exception {
        List<CompletableFuture<Reply>> fs = new ArrayList<>();
        for (int k = 0; k < 8; k++) {
            int n = 4096 * (k + 1);
            fs.add(client.callAsync(Call.of(call(EchoProgram.GET, b -> b.writeInt(n))).withWriteChunk(n, n)));
        }
        for (int k = 0; k < 8; k++) {
            Reply r = RpcRdmaClient.await(fs.get(k));
            assertEquals(4096 * (k + 1), r.writeChunkData().length);
        }
    }

    private byte[] raw(int version, int proc, List<ReadSegment> reads, List<List<Segment>> writes, byte[] body,
            int xid) {
        MemorySegment s = Arena.ofAuto().allocate(4096);
        int n = HeaderEncoder.call(s, 0, xid, 8, proc, reads, writes, null);
        s.set(ValueLayout.JAVA_INT_UNALIGNED.withOrder(java.nio.ByteOrder.BIG_ENDIAN), 4, version);
        byte[] out = new byte[n + body.length];
        MemorySegment.copy(s, ValueLayout.JAVA_BYTE, 0, out, 0, n);
        System.arraycopy(body, 0, out, n, body.length);
        return out;
    }

    @Test
    void wrongVersionIsErrVersWithTheSupportedRange() throws Exception {
        byte[] body = call(EchoProgram.LONG, b -> b.writeInt(8));
        Reply r = RpcRdmaClient.await(client.sendRaw(raw(2, RpcRdma.RDMA_MSG, List.of(), List.of(), body, 99), 99));
        assertEquals(RpcRdma.RDMA_ERROR, r.proc());
        assertEquals(RpcRdma.ERR_VERS, r.errorCode());
        assertEquals(1, r.versLow());
        assertEquals(1, r.versHigh());
    }

    @Test
    void badChunkListsAreErrChunkBeforeAnyRead() throws Exception {
        byte[] body = call(EchoProgram.PUT, b -> b.writeInt(8).writeLong(0).writeInt(1));
        // the read segment names memory the client never registered: had the server read it,
        // the queue pair would have failed; ERR_CHUNK comes first
        List<List<ReadSegment>> bad = List.of(
                List.of(new ReadSegment(0, new Segment(0x77, 8, 0))), // position zero with RDMA_MSG
                List.of(new ReadSegment(6, new Segment(0x77, 8, 0))), // unaligned position
                List.of(new ReadSegment(4096, new Segment(0x77, 8, 0))), // beyond the message
                List.of(new ReadSegment(32, new Segment(0x77, 0, 0))), // empty segment
                List.of(new ReadSegment(32, new Segment(0x77, 2 << 20, 0))), // longer than the limit
                List.of(new ReadSegment(32, new Segment(0x77, 4096, 0)),
                        new ReadSegment(32, new Segment(0x77, 4096, 100)))); // overlapping
        int xid = 1000;
        for (List<ReadSegment> reads : bad) {
            Reply r = RpcRdmaClient.await(client.sendRaw(raw(1, RpcRdma.RDMA_MSG, reads, List.of(), body, ++xid), xid));
            assertEquals(RpcRdma.ERR_CHUNK, r.errorCode(), reads.toString());
        }
        Reply r = RpcRdmaClient.await(client.sendRaw(raw(1, RpcRdma.RDMA_MSGP, List.of(), List.of(), body, ++xid), xid));
        assertEquals(RpcRdma.ERR_CHUNK, r.errorCode(), "RDMA_MSGP");
        r = RpcRdmaClient.await(client.sendRaw(raw(1, RpcRdma.RDMA_MSG, List.of(), List.of(List.of()), body, ++xid), xid));
        assertEquals(RpcRdma.ERR_CHUNK, r.errorCode(), "empty write chunk");
        assertEquals(8, success(client.call(Call.of(call(EchoProgram.LONG, b -> b.writeInt(8))))).readOpaque(9).length,
                "the connection goes on");
    }

    /**
     * Mutated transport headers sent to the server: each gets a reply (RDMA_ERROR or an RPC reply),
     * is dropped, or ends the connection; after each the server still answers a good call on a
     * connection (a new one when the old ended); nothing leaks (the pool is idle after the test).
     */
    @Test
    void mutatedHeadersGetAnErrorOrADisconnectAndLeakNothing() throws Exception {
        Random rnd = new Random(8166_4);
        byte[] put = call(EchoProgram.PUT, b -> b.writeInt(8).writeLong(0).writeInt(1));
        byte[] get = call(EchoProgram.GET, b -> b.writeInt(64));
        List<byte[]> seeds = List.of(
                raw(1, RpcRdma.RDMA_MSG, List.of(), List.of(), get, 0x600),
                raw(1, RpcRdma.RDMA_MSG, List.of(new ReadSegment(32, new Segment(0x77, 8, 0x1000))), List.of(), put,
                        0x600),
                raw(1, RpcRdma.RDMA_MSG, List.of(), List.of(List.of(new Segment(0x78, 4096, 0x2000))), get, 0x600),
                raw(1, RpcRdma.RDMA_NOMSG, List.of(new ReadSegment(0, new Segment(0x79, put.length, 0x3000))),
                        List.of(), new byte[0], 0x600));
        int disconnects = 0;
        for (int round = 0; round < 120; round++) {
            byte[] m = seeds.get(round % seeds.size()).clone();
            int header = m.length - (round % seeds.size() == 3 ? 0 : (round % seeds.size() == 1 ? put.length : get.length));
            for (int k = 0; k <= rnd.nextInt(3); k++) {
                int at = 4 * rnd.nextInt(header / 4);
                int v = switch (rnd.nextInt(3)) {
                    case 0 -> rnd.nextInt(5);
                    case 1 -> rnd.nextInt();
                    default -> -1 - rnd.nextInt(3);
                };
                m[at] = (byte) (v >>> 24);
                m[at + 1] = (byte) (v >>> 16);
                m[at + 2] = (byte) (v >>> 8);
                m[at + 3] = (byte) v;
            }
            client.sendRaw(m, 0x600 + round);
            try {
                Reply r = client.call(Call.of(call(EchoProgram.LONG, b -> b.writeInt(8))));
                assertEquals(8, success(r).readOpaque(9).length);
            } catch (java.io.IOException e) {
                assertNotNull(client.awaitDisconnect(Duration.ofSeconds(10)), "a failed probe means a disconnect: " + e);
                disconnects++;
                client.close();
                client = RpcRdmaClient.connect(clientDevice, server.localAddress());
            }
        }
        assertEquals(8, success(client.call(Call.of(call(EchoProgram.LONG, b -> b.writeInt(8))))).readOpaque(9).length,
                "the server still serves after " + disconnects + " disconnects");
        client.close();
        client = null;
        waitFor(() -> server.connectionCount() == 0);
        assertEquals(0, server.connectionCount(), "every connection was torn down");
    }

    @Test
    void aClientOverItsCreditsIsDisconnected() throws Exception {
        // every call waits in the program and keeps its credit: the ninth is over the eight granted
        byte[] body = call(EchoProgram.BLOCK, b -> { });
        try {
            for (int k = 0; k < 9; k++) {
                client.sendRaw(raw(1, RpcRdma.RDMA_MSG, List.of(), List.of(), body, 5000 + k), 5000 + k);
            }
            String reason = client.awaitDisconnect(Duration.ofSeconds(10));
            assertNotNull(reason, "disconnected");
        } finally {
            echo.gate.release(100);
        }
        waitFor(() -> server.connectionCount() == 0);
        assertEquals(0, server.connectionCount());
        client = null;
    }

    @Test
    void manySequentialCallsReuseReceivesAndSendBuffers() throws Exception {
        for (int k = 0; k < 200; k++) {
            int n = k * 37;
            Reply r = client.call(Call.of(call(EchoProgram.GET, b -> b.writeInt(n))).withWriteChunk(8192, 8192));
            assertArrayEquals(expected(n), r.writeChunkData());
        }
    }

    static byte[] expected(int n) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) {
            b[i] = EchoProgram.pattern(i);
        }
        return b;
    }
}
