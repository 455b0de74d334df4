package io.rdmagate.oncrpc.tcp;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.socket.DatagramPacket;
import io.rdmagate.oncrpc.server.Connection;
import io.rdmagate.oncrpc.server.RpcDispatcher;
import io.rdmagate.oncrpc.xdr.XdrMessage;
import io.rdmagate.vfs.memory.PayloadCopies;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * RPC over UDP (RFC 5531 §11 applies to streams only: one datagram is one message). Each datagram
 * is dispatched on the executor and its reply sent back to the sender. When {@code maxInFlight}
 * datagrams are being processed, further ones are dropped: UDP clients retransmit.
 */
public final class UdpRpcHandler extends SimpleChannelInboundHandler<DatagramPacket> {
    private final RpcDispatcher dispatcher;
    private final Executor executor;
    private final int maxInFlight;
    private final PayloadCopies copies;
    private final AtomicInteger inFlight = new AtomicInteger();

    public UdpRpcHandler(RpcDispatcher dispatcher, Executor executor, int maxInFlight, PayloadCopies copies) {
        super(false);
        this.dispatcher = dispatcher;
        this.executor = executor;
        this.maxInFlight = maxInFlight;
        this.copies = copies;
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, DatagramPacket packet) {
        if (inFlight.incrementAndGet() > maxInFlight) {
            inFlight.decrementAndGet();
            packet.release();
            return;
        }
        ByteBuf record = packet.content();
        Connection c = new Connection(0, packet.sender(), packet.recipient(), "udp");
        executor.execute(() -> {
            try {
                XdrMessage reply = dispatcher.dispatch(record, c);
                if (reply != null) {
                    if (reply.payload() != null) {
                        copies.add("udp", reply.payload().length()); // a datagram is sent from one buffer
                    }
                    ctx.writeAndFlush(new DatagramPacket(reply.toByteBuf(ctx.alloc(), null), packet.sender()));
                }
            } finally {
                packet.release();
                inFlight.decrementAndGet();
            }
        });
    }
}
