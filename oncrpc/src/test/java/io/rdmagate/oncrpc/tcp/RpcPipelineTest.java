package io.rdmagate.oncrpc.tcp;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.rdmagate.oncrpc.rpc.AuthStat;
import io.rdmagate.oncrpc.rpc.AuthSys;
import io.rdmagate.oncrpc.rpc.Credentials;
import io.rdmagate.oncrpc.rpc.ReplyHeader;
import io.rdmagate.oncrpc.rpc.Rpc;
import io.rdmagate.oncrpc.server.DuplicateRequestCache;
import io.rdmagate.oncrpc.server.RpcDispatcher;
import io.rdmagate.oncrpc.server.ToyProgram;
import io.rdmagate.oncrpc.xdr.XdrDecoder;
import io.rdmagate.vfs.memory.IoMemory;
import io.rdmagate.vfs.memory.IoMemoryPool;
import io.rdmagate.vfs.memory.MemoryRegistrar;
import io.rdmagate.vfs.memory.PayloadCopies;
import io.rdmagate.vfs.memory.PoolLimits;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.concurrent.Executor;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The server pipeline in memory: record marking, dispatch, replies, DRC, in-flight bound, zero copy. */
class RpcPipelineTest {
    private static final AuthSys ALICE = new AuthSys(1, "client", 1000, 1000, new int[] {1000});

    /** Runs tasks when the test says so. */
    static final class QueuedExecutor implements Executor {
        final ArrayDeque<Runnable> tasks = new ArrayDeque<>();

        @Override
        public void execute(Runnable r) {
            tasks.add(r);
        }

        void runOne() {
            tasks.poll().run();
        }
    }

    private ToyProgram toy;
    private PayloadCopies copies;
    private RpcDispatcher dispatcher;

    @BeforeEach
    void setUp() {
        toy = new ToyProgram();
        copies = new PayloadCopies();
        dispatcher = new RpcDispatcher(new DuplicateRequestCache(100, Duration.ofMinutes(1), 128, copies),
                PooledByteBufAllocator.DEFAULT).register(toy);
    }

    private EmbeddedChannel channel(Executor executor, int maxInFlight) {
        return new EmbeddedChannel(new RecordMarkingDecoder(1 << 20, 16), RecordMarkingEncoder.INSTANCE,
                new RpcConnectionHandler(dispatcher, executor, maxInFlight));
    }

    private static ByteBuf call(int xid, int prog, int vers, int proc, Credentials cred, ByteBuf args) {
        return Records.marked(Records.call(xid, prog, vers, proc, cred, args));
    }

    private static ByteBuf call(int xid, int vers, int proc) {
        return call(xid, ToyProgram.PROG, vers, proc, ALICE, Unpooled.EMPTY_BUFFER);
    }

    private static ReplyHeader reply(EmbeddedChannel ch, XdrDecoder[] results) throws Exception {
        ByteBuf b = ch.readOutbound();
        if (b == null) {
            return null;
        }
        ByteBuf copy = Unpooled.copiedBuffer(b);
        b.release();
        return Records.reply(copy, results);
    }

    private ReplyHeader roundTrip(ByteBuf record) throws Exception {
        EmbeddedChannel ch = channel(Runnable::run, 8);
        ch.writeInbound(record);
        ReplyHeader h = reply(ch, null);
        assertTrue(ch.isOpen());
        ch.finishAndReleaseAll();
        return h;
    }

    @Test
    void echoSucceeds() throws Exception {
        EmbeddedChannel ch = channel(Runnable::run, 8);
        ch.writeInbound(call(7, ToyProgram.PROG, 3, ToyProgram.ECHO, ALICE,
                Unpooled.buffer().writeInt(3).writeBytes(new byte[] {1, 2, 3, 0})));
        XdrDecoder[] r = new XdrDecoder[1];
        ReplyHeader h = reply(ch, r);
        assertEquals(7, h.xid());
        assertTrue(h.isSuccess());
        assertArrayEquals(new byte[] {1, 2, 3}, r[0].readOpaque(64));
    }

    @Test
    void unknownProgramIsProgUnavail() throws Exception {
        ReplyHeader h = roundTrip(call(1, 0x20000123, 1, 0, ALICE, Unpooled.EMPTY_BUFFER));
        assertEquals(Rpc.PROG_UNAVAIL, h.acceptStat());
    }

    @Test
    void wrongVersionIsProgMismatchWithTheRange() throws Exception {
        ReplyHeader h = roundTrip(call(2, 5, 0));
        assertEquals(Rpc.PROG_MISMATCH, h.acceptStat());
        assertEquals(2, h.low());
        assertEquals(4, h.high());
        assertEquals(Rpc.PROG_MISMATCH, roundTrip(call(2, 1, 0)).acceptStat());
    }

    @Test
    void unknownProcedureIsProcUnavail() throws Exception {
        assertEquals(Rpc.PROC_UNAVAIL, roundTrip(call(3, 2, 99)).acceptStat());
    }

    @Test
    void malformedArgumentsAreGarbageArgs() throws Exception {
        // ECHO with an opaque longer than its limit of 64, and one cut short
        assertEquals(Rpc.GARBAGE_ARGS, roundTrip(call(4, ToyProgram.PROG, 2, ToyProgram.ECHO, ALICE,
                Unpooled.buffer().writeInt(65).writeZero(68))).acceptStat());
        assertEquals(Rpc.GARBAGE_ARGS, roundTrip(call(4, ToyProgram.PROG, 2, ToyProgram.ECHO, ALICE,
                Unpooled.buffer().writeInt(8).writeZero(4))).acceptStat());
        // a header cut short after prog/vers/proc
        ByteBuf truncated = Unpooled.buffer().writeInt(44).writeInt(Rpc.CALL).writeInt(2).writeInt(ToyProgram.PROG)
                .writeInt(2).writeInt(0);
        ReplyHeader h = roundTrip(Records.marked(truncated));
        assertEquals(44, h.xid());
        assertEquals(Rpc.GARBAGE_ARGS, h.acceptStat());
    }

    @Test
    void aFailingProcedureIsSystemErrAndTheConnectionGoesOn() throws Exception {
        EmbeddedChannel ch = channel(Runnable::run, 8);
        ch.writeInbound(call(5, 2, ToyProgram.FAIL));
        assertEquals(Rpc.SYSTEM_ERR, reply(ch, null).acceptStat());
        ch.writeInbound(call(6, 2, ToyProgram.NULL));
        assertTrue(reply(ch, null).isSuccess());
        assertTrue(ch.isOpen());
    }

    @Test
    void rpcVersionThreeIsRpcMismatch() throws Exception {
        ByteBuf m = Unpooled.buffer().writeInt(8).writeInt(Rpc.CALL).writeInt(3).writeInt(ToyProgram.PROG).writeInt(2)
                .writeInt(0).writeLong(0).writeLong(0);
        ReplyHeader h = roundTrip(Records.marked(m));
        assertEquals(Rpc.MSG_DENIED, h.replyStat());
        assertEquals(Rpc.RPC_MISMATCH, h.rejectStat());
        assertEquals(2, h.low());
        assertEquals(2, h.high());
    }

    @Test
    void authErrorsAreDenied() throws Exception {
        ReplyHeader h = roundTrip(call(9, ToyProgram.PROG, 2, ToyProgram.WHOAMI, Credentials.NONE, Unpooled.EMPTY_BUFFER));
        assertEquals(Rpc.AUTH_ERROR, h.rejectStat());
        assertEquals(AuthStat.AUTH_TOOWEAK, h.authStat());
        // a credential body of 401 bytes
        ByteBuf m = Unpooled.buffer().writeInt(10).writeInt(Rpc.CALL).writeInt(2).writeInt(ToyProgram.PROG).writeInt(2)
                .writeInt(0).writeInt(1).writeInt(401).writeZero(404).writeLong(0);
        h = roundTrip(Records.marked(m));
        assertEquals(Rpc.AUTH_ERROR, h.rejectStat());
        assertEquals(AuthStat.AUTH_BADCRED, h.authStat());
        XdrDecoder[] r = new XdrDecoder[1];
        EmbeddedChannel ch = channel(Runnable::run, 8);
        ch.writeInbound(call(11, 2, ToyProgram.WHOAMI));
        assertTrue(reply(ch, r).isSuccess());
        assertEquals(1000, r[0].readInt());
    }

    @Test
    void repliesAndCallsThatAreNotCallsAreDropped() throws Exception {
        EmbeddedChannel ch = channel(Runnable::run, 8);
        ch.writeInbound(Records.marked(Unpooled.buffer().writeInt(1).writeInt(Rpc.REPLY).writeInt(0)));
        assertNull(ch.readOutbound());
        assertTrue(ch.isOpen());
    }

    @Test
    void aRetransmittedNonIdempotentCallGetsTheCachedReply() throws Exception {
        EmbeddedChannel ch = channel(Runnable::run, 8);
        ch.writeInbound(call(77, 2, ToyProgram.COUNT));
        ByteBuf first = ch.readOutbound();
        byte[] firstBytes = ByteBufUtil.getBytes(first);
        first.release();
        ch.writeInbound(call(77, 2, ToyProgram.COUNT));
        ByteBuf second = ch.readOutbound();
        assertArrayEquals(firstBytes, ByteBufUtil.getBytes(second));
        second.release();
        assertEquals(1, toy.counted.get(), "the handler ran once");
        // another xid runs again
        ch.writeInbound(call(78, 2, ToyProgram.COUNT));
        XdrDecoder[] r = new XdrDecoder[1];
        assertTrue(reply(ch, r).isSuccess());
        assertEquals(2, r[0].readInt());
        assertEquals(0, copies.total());
    }

    @Test
    void inProgressRetransmissionsProduceNoReply() throws Exception {
        QueuedExecutor ex = new QueuedExecutor();
        EmbeddedChannel ch = channel(ex, 8);
        DuplicateRequestCache drc = dispatcher.drc();
        ch.writeInbound(call(91, 2, ToyProgram.COUNT));
        ch.writeInbound(call(91, 2, ToyProgram.COUNT));
        // mark the call in progress as the original would, by running the second task while the
        // first has not finished: start the first on another thread and hold it in the handler
        toy.countRelease = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.CountDownLatch started = new java.util.concurrent.CountDownLatch(1);
        toy.countStarted.add(started);
        Runnable first = ex.tasks.poll();
        Runnable second = ex.tasks.poll();
        Thread t = Thread.ofVirtual().start(first);
        assertTrue(started.await(10, java.util.concurrent.TimeUnit.SECONDS));
        second.run(); // IN_PROGRESS: dropped, no reply
        ch.runPendingTasks();
        assertNull(ch.readOutbound());
        toy.countRelease.countDown();
        t.join(10_000);
        ch.runPendingTasks();
        ByteBuf r = ch.readOutbound();
        assertTrue(r != null);
        r.release();
        assertNull(ch.readOutbound());
        assertEquals(1, toy.counted.get());
        assertEquals(1, drc.size());
    }

    @Test
    void theCallPastTheInFlightBoundIsNotDispatchedUntilOneCompletes() throws Exception {
        QueuedExecutor ex = new QueuedExecutor();
        EmbeddedChannel ch = channel(ex, 2);
        ch.writeInbound(Unpooled.wrappedBuffer(call(1, 2, 0), call(2, 2, 0), call(3, 2, 0)));
        assertEquals(2, ex.tasks.size(), "two dispatched, the third waits");
        assertFalse(ch.config().isAutoRead(), "reading stopped");
        ex.runOne();
        assertEquals(1, Records.reply(Unpooled.copiedBuffer((ByteBuf) ch.readOutbound()), null).xid());
        assertEquals(2, ex.tasks.size(), "the third is dispatched once the first is written");
        assertFalse(ch.config().isAutoRead());
        ex.runOne();
        ex.runOne();
        assertTrue(ch.config().isAutoRead(), "reading resumes");
        ch.finishAndReleaseAll();
    }

    @Test
    void aPayloadIsWrittenFromItsOwnMemoryAndReleasedAfterwards() throws Exception {
        try (IoMemoryPool pool = new IoMemoryPool(PoolLimits.DEFAULT, MemoryRegistrar.NONE)) {
            IoMemory mem = pool.account("test").lease(5000);
            mem.segment().fill((byte) 7);
            MemorySegment seg = mem.segment();
            toy.payloads = () -> mem;
            EmbeddedChannel ch = channel(Runnable::run, 8);
            ch.writeInbound(call(12, 2, ToyProgram.PAYLOAD));
            ByteBuf written = ch.readOutbound();
            CompositeByteBuf c = assertInstanceOf(CompositeByteBuf.class, written);
            boolean found = false;
            for (int i = 0; i < c.numComponents(); i++) {
                ByteBuf part = c.internalComponent(i);
                if (part.readableBytes() == 5000
                        && MemorySegment.ofBuffer(part.nioBuffer()).address() == seg.address()) {
                    found = true;
                }
            }
            assertTrue(found, "the payload is a component over the IoMemory's own memory");
            assertEquals(1, mem.refCount(), "held by the buffer being written");
            ByteBuf copy = Unpooled.copiedBuffer(written);
            written.release(); // what the channel does once the bytes are on the wire
            assertEquals(0, mem.refCount());
            assertEquals(0, pool.leasedBytes());
            XdrDecoder[] r = new XdrDecoder[1];
            assertTrue(Records.reply(copy, r).isSuccess());
            assertEquals(1, r[0].readInt());
            byte[] data = r[0].readOpaque(8192);
            assertEquals(5000, data.length);
            assertEquals(7, data[4999]);
            assertEquals(2, r[0].readInt());
            assertEquals(0, copies.total());
        }
    }
}
