package io.rdmagate.oncrpc.tcp;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.rdmagate.oncrpc.rpc.AuthSys;
import io.rdmagate.oncrpc.rpc.CallHeaders;
import io.rdmagate.oncrpc.rpc.Credentials;
import io.rdmagate.oncrpc.rpc.ReplyHeader;
import io.rdmagate.oncrpc.rpc.ReplyHeaders;
import io.rdmagate.oncrpc.server.Backchannel;
import io.rdmagate.oncrpc.server.Connection;
import io.rdmagate.oncrpc.server.RpcDispatcher;
import io.rdmagate.oncrpc.server.ToyProgram;
import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Calls from the server to the client on the client's own TCP connection (the NFSv4.1
 * backchannel, RFC 8881 §2.10.3.1), in memory: the call goes out as a record beside the replies
 * to the client's calls, the client's reply (msg_type REPLY) is matched by xid and never
 * dispatched as a call, and calls left waiting fail when the connection ends.
 */
class TcpBackchannelTest {
    private static final int CB_PROGRAM = 0x40000000;
    private static final AuthSys ALICE = new AuthSys(1, "client", 1000, 1000, new int[] {1000});

    private ToyProgram toy;
    private RpcDispatcher dispatcher;
    private Connection connection;

    @BeforeEach
    void setUp() {
        toy = new ToyProgram();
        dispatcher = new RpcDispatcher(null, PooledByteBufAllocator.DEFAULT).register(toy);
    }

    private EmbeddedChannel channel(int maxInFlight, Duration timeout) {
        EmbeddedChannel ch = new EmbeddedChannel(new RecordMarkingDecoder(1 << 20, 16), RecordMarkingEncoder.INSTANCE,
                new RpcConnectionHandler(dispatcher, Runnable::run, maxInFlight, 4096, timeout));
        connection = toy.opened.peek(); // programs hear of the connection, and get its backchannel, when it opens
        return ch;
    }

    /** A CB_NULL-like call of the server's: xid, CALL, the callback program, procedure 0. */
    private static ByteBuf serverCall(int xid) {
        return CallHeaders.write(Unpooled.buffer(), xid, CB_PROGRAM, 1, 0, Credentials.NONE);
    }

    /** The client's reply to {@code xid}: accepted, SUCCESS, with one word of results. */
    private static ByteBuf clientReply(int xid, int result) {
        ByteBuf b = ReplyHeaders.accepted(Unpooled.buffer(), xid, 0);
        return Records.marked(b.writeInt(result));
    }

    private static int[] words(ByteBuf written, int n) {
        int[] w = new int[n];
        for (int i = 0; i < n; i++) {
            w[i] = written.getInt(written.readerIndex() + 4 * i);
        }
        return w;
    }

    @Test
    void aCallGoesOutAsARecordAndItsReplyCompletesIt() throws Exception {
        EmbeddedChannel ch = channel(8, Duration.ofMinutes(1));
        Backchannel bc = connection.backchannel();
        assertTrue(bc.isOpen(), "a TCP connection offers a backchannel");
        CompletableFuture<ByteBuf> f = bc.call(serverCall(0x1234));
        ByteBuf out = ch.readOutbound();
        assertNotNull(out, "the call was written");
        int[] w = words(out, 5);
        assertEquals(0x80000000 | (out.readableBytes() - 4), w[0], "one last fragment");
        assertEquals(0x1234, w[1]);
        assertEquals(0, w[2], "msg_type CALL");
        assertEquals(CB_PROGRAM, w[4]);
        out.release();
        assertFalse(f.isDone());

        ch.writeInbound(clientReply(0x1234, 77));
        assertTrue(f.isDone(), "the reply completed the call, on the event loop");
        ByteBuf r = f.get();
        try {
            assertEquals(0x1234, r.getInt(r.readerIndex()));
            assertEquals(1, r.getInt(r.readerIndex() + 4), "msg_type REPLY");
            assertEquals(77, r.getInt(r.writerIndex() - 4));
        } finally {
            r.release();
        }
        assertNull(ch.readOutbound(), "the reply was not dispatched as a call");
        ch.finishAndReleaseAll();
    }

    @Test
    void repliesNobodyWaitsForAreDroppedAndCallsStillServed() throws Exception {
        EmbeddedChannel ch = channel(8, Duration.ofMinutes(1));
        ch.writeInbound(clientReply(99, 1));
        assertNull(ch.readOutbound(), "a stray reply gets no answer");
        assertTrue(ch.isOpen());
        ch.writeInbound(Records.marked(Records.call(5, ToyProgram.PROG, 3, 0, ALICE, Unpooled.EMPTY_BUFFER)));
        ByteBuf out = ch.readOutbound();
        ReplyHeader h = Records.reply(Unpooled.copiedBuffer(out), null);
        out.release();
        assertEquals(5, h.xid());
        assertTrue(h.isSuccess(), "the client's own calls go on being served");
        ch.finishAndReleaseAll();
    }

    @Test
    void callsWaitingWhenTheConnectionEndsFailAndNoneCanBeSentAfter() throws Exception {
        EmbeddedChannel ch = channel(8, Duration.ofMinutes(1));
        Backchannel bc = connection.backchannel();
        CompletableFuture<ByteBuf> f = bc.call(serverCall(1));
        ch.<ByteBuf>readOutbound().release();
        ch.close();
        ExecutionException e = org.junit.jupiter.api.Assertions.assertThrows(ExecutionException.class, f::get);
        assertInstanceOf(IOException.class, e.getCause());
        assertFalse(bc.isOpen());
        assertTrue(bc.call(serverCall(2)).isCompletedExceptionally(), "a closed connection takes no call");
        ch.finishAndReleaseAll();
    }

    @Test
    void callsBeyondTheBoundOrTooLongFailAtOnce() throws Exception {
        EmbeddedChannel ch = channel(2, Duration.ofMinutes(1));
        Backchannel bc = connection.backchannel();
        CompletableFuture<ByteBuf> a = bc.call(serverCall(1));
        CompletableFuture<ByteBuf> b = bc.call(serverCall(2));
        assertTrue(bc.call(serverCall(3)).isCompletedExceptionally(), "two may wait, not three");
        assertTrue(bc.call(serverCall(2)).isCompletedExceptionally(), "an xid already waiting");
        ByteBuf tooLong = serverCall(4).writeZero(4096);
        assertTrue(bc.call(tooLong).isCompletedExceptionally(), "longer than the limit");
        assertEquals(0, tooLong.refCnt(), "a refused call's message is released");
        ch.writeInbound(clientReply(1, 0));
        assertTrue(a.isDone() && !a.isCompletedExceptionally());
        a.get().release();
        CompletableFuture<ByteBuf> c = bc.call(serverCall(3));
        assertFalse(c.isDone(), "a reply made room");
        ch.finishAndReleaseAll();
        assertTrue(b.isCompletedExceptionally() && c.isCompletedExceptionally());
    }

    @Test
    void aCallNotAnsweredInTimeFails() throws Exception {
        EmbeddedChannel ch = channel(8, Duration.ofMillis(50));
        CompletableFuture<ByteBuf> f = connection.backchannel().call(serverCall(1));
        ch.<ByteBuf>readOutbound().release();
        ExecutionException e = org.junit.jupiter.api.Assertions.assertThrows(ExecutionException.class,
                () -> f.get(10, TimeUnit.SECONDS));
        assertInstanceOf(java.util.concurrent.TimeoutException.class, e.getCause());
        ch.writeInbound(clientReply(1, 0)); // late: dropped
        assertTrue(ch.isOpen());
        ch.finishAndReleaseAll();
    }
}
