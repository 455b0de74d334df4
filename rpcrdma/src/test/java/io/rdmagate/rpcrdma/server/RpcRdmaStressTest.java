package io.rdmagate.rpcrdma.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.rdmagate.oncrpc.rpc.CallHeaders;
import io.rdmagate.oncrpc.rpc.Credentials;
import io.rdmagate.oncrpc.server.RpcDispatcher;
import io.rdmagate.oncrpc.xdr.XdrDecoder;
import io.rdmagate.rdma.softiwarp.SoftIwarpDevice;
import io.rdmagate.rpcrdma.client.RpcRdmaClient;
import io.rdmagate.rpcrdma.client.RpcRdmaClient.Call;
import io.rdmagate.rpcrdma.header.RpcRdmaLimits;
import io.rdmagate.vfs.memory.PoolLimits;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Many connections at a small credit window moving 1 MiB chunks both ways over soft-iWARP, with a
 * quarter of the clients vanishing in the middle of a transfer: no deadlock (every client ends),
 * every surviving transfer intact, and afterwards every connection gone and every pool lease
 * back, with the pool never above its bound.
 */
class RpcRdmaStressTest {
    private static final int CONNECTIONS = 64;
    private static final int ROUNDS = 4;
    private static final int MIB = 1 << 20;
    /** Less than every connection's two chunks at once: leases wait for each other. */
    private static final PoolLimits POOL = new PoolLimits(96L << 20, 8L << 20, 4 << 20, 4 << 10, MIB,
            Duration.ofSeconds(30));

    @Test
    void sixtyFourConnectionsWithOneMiBChunksAndVanishingClientsLeaveNothingBehind() throws Exception {
        SoftIwarpDevice serverDevice = new SoftIwarpDevice("stress-server", SoftIwarpDevice.Options.DEFAULT);
        SoftIwarpDevice clientDevice = new SoftIwarpDevice("stress-client", SoftIwarpDevice.Options.DEFAULT);
        RpcDispatcher d = new RpcDispatcher(null, ByteBufAllocator.DEFAULT);
        RpcRdmaServer[] self = new RpcRdmaServer[1];
        d.register(new EchoProgram(() -> self[0].pool()));
        RpcRdmaOptions options = new RpcRdmaOptions(2, 4096, 4096, RpcRdmaLimits.DEFAULT)
                .withMaxConnections(CONNECTIONS);
        try (RpcRdmaServer server = RpcRdmaServer.start(serverDevice, d, options, POOL,
                new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))) {
            self[0] = server;
            AtomicInteger intact = new AtomicInteger();
            AtomicInteger vanished = new AtomicInteger();
            AtomicInteger peakAllocated = new AtomicInteger();
            List<Future<?>> clients = new ArrayList<>();
            try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
                for (int c = 0; c < CONNECTIONS; c++) {
                    int id = c;
                    clients.add(pool.submit(() -> {
                        RpcRdmaClient client = RpcRdmaClient.connect(clientDevice, server.localAddress());
                        try {
                            for (int round = 0; round < ROUNDS; round++) {
                                peakAllocated.accumulateAndGet((int) (server.pool().allocatedBytes() >> 10), Math::max);
                                if (id % 4 == 3 && round == ROUNDS / 2) {
                                    // vanish with a 1 MiB write chunk and a 1 MiB read chunk in flight
                                    client.callAsync(get(client, MIB));
                                    client.callAsync(put(client, id, round));
                                    client.close();
                                    vanished.incrementAndGet();
                                    return null;
                                }
                                byte[] data = payload(id, round);
                                XdrDecoder put = AbstractRpcRdmaTest.success(client.call(put(client, id, round)));
                                assertEquals(MIB, put.readInt());
                                assertEquals(AbstractRpcRdmaTest.crc(data), put.readHyper(), "client " + id);
                                RpcRdmaClient.Reply got = client.call(get(client, MIB));
                                AbstractRpcRdmaTest.success(got);
                                byte[] back = got.writeChunkData();
                                for (int i = 0; i < MIB; i += 4093) {
                                    if (back[i] != EchoProgram.pattern(i)) {
                                        throw new AssertionError("client " + id + " byte " + i);
                                    }
                                }
                                intact.incrementAndGet();
                            }
                            return null;
                        } finally {
                            client.close();
                        }
                    }));
                }
                for (Future<?> f : clients) {
                    f.get(120, TimeUnit.SECONDS); // a deadlock fails here, not by hanging the build
                }
            }
            assertEquals(CONNECTIONS / 4, vanished.get());
            assertEquals((CONNECTIONS - CONNECTIONS / 4) * ROUNDS + CONNECTIONS / 4 * (ROUNDS / 2), intact.get(),
                    "every transfer of a client that stayed came back intact");
            AbstractRpcRdmaTest.waitFor(() -> server.connectionCount() == 0);
            assertEquals(0, server.connectionCount(), "every connection is gone, the vanished ones too");
            AbstractRpcRdmaTest.waitFor(() -> server.pool().leasedBytes() == 0);
            assertEquals(0, server.pool().leasedBytes(), "every chunk and payload lease went back to the pool");
            assertTrue(server.pool().allocatedBytes() <= POOL.maxBytes(), "the pool stayed within its bound");
            assertTrue(peakAllocated.get() <= POOL.maxBytes() >> 10, "the pool never grew past its bound");
        } finally {
            clientDevice.close();
            serverDevice.close();
        }
    }

    private static byte[] payload(int id, int round) {
        return AbstractRpcRdmaTest.random(MIB, id * 1000L + round);
    }

    private static Call put(RpcRdmaClient client, int id, int round) {
        byte[] data = payload(id, round);
        ByteBuf b = Unpooled.buffer();
        CallHeaders.write(b, client.nextXid(), EchoProgram.PROGRAM, 1, EchoProgram.PUT, Credentials.NONE);
        b.writeInt(MIB).writeBytes(data).writeInt(0x7777);
        byte[] m = new byte[b.readableBytes()];
        b.readBytes(m);
        return Call.of(m).withReadChunk(m.length - 4 - MIB, MIB);
    }

    private static Call get(RpcRdmaClient client, int n) {
        ByteBuf b = Unpooled.buffer();
        CallHeaders.write(b, client.nextXid(), EchoProgram.PROGRAM, 1, EchoProgram.GET, Credentials.NONE);
        b.writeInt(n);
        byte[] m = new byte[b.readableBytes()];
        b.readBytes(m);
        return Call.of(m).withWriteChunk(MIB, 256 << 10);
    }
}
