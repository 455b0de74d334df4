package io.rdmagate.rpcrdma.server;

import io.netty.buffer.ByteBuf;
import io.rdmagate.oncrpc.server.RpcCall;
import io.rdmagate.oncrpc.server.RpcProgram;
import io.rdmagate.oncrpc.xdr.XdrEncoder;
import io.rdmagate.oncrpc.xdr.XdrException;
import io.rdmagate.oncrpc.xdr.XdrMessage;
import io.rdmagate.vfs.VfsException;
import io.rdmagate.vfs.memory.IoMemory;
import io.rdmagate.vfs.memory.IoMemoryPool;
import java.util.function.Supplier;
import java.util.zip.CRC32;

/**
 * A program for transport tests. PUT (1): opaque data → its length, CRC32 and how many buffers
 * it arrived in. GET (2): count → count bytes of a pattern as a DDP-eligible payload leased from
 * the pool. LONG (3): count → count bytes of a pattern inline (a long reply). CALLBACK (4): count,
 * opaque → sends count reverse-direction calls (program CB_PROGRAM, procedure 1, the opaque and
 * the call's index) at once over the connection's backchannel and answers, for each, the opaque
 * the client returned or the failure as a string.
 */
final class EchoProgram implements RpcProgram {
    static final int PROGRAM = 0x20000777;
    static final int PUT = 1;
    static final int GET = 2;
    static final int LONG = 3;
    static final int CALLBACK = 4;
    /** Waits for a permit of {@link #gate}, keeping its credit meanwhile, then answers with nothing. */
    static final int BLOCK = 5;
    static final int CB_PROGRAM = 0x40000777;

    final java.util.concurrent.Semaphore gate = new java.util.concurrent.Semaphore(0);
    /** What the dispatcher reported, in order. */
    final java.util.Queue<io.rdmagate.oncrpc.server.Connection> opened = new java.util.concurrent.ConcurrentLinkedQueue<>();
    final java.util.Queue<io.rdmagate.oncrpc.server.Connection> closed = new java.util.concurrent.ConcurrentLinkedQueue<>();
    volatile io.rdmagate.oncrpc.server.Connection lastCaller;
    /** Every reverse-direction call the server sent, for tests to watch. */
    final java.util.List<java.util.concurrent.CompletableFuture<ByteBuf>> reverseCalls =
            new java.util.concurrent.CopyOnWriteArrayList<>();
    private final java.util.concurrent.atomic.AtomicInteger reverseXids = new java.util.concurrent.atomic.AtomicInteger(0x7000);

    private final Supplier<IoMemoryPool> pool;

    EchoProgram(Supplier<IoMemoryPool> pool) {
        this.pool = pool;
    }

    static byte pattern(long i) {
        return (byte) (i * 31 + (i >>> 8));
    }

    @Override
    public int program() {
        return PROGRAM;
    }

    @Override
    public String name() {
        return "echo";
    }

    @Override
    public int lowVersion() {
        return 1;
    }

    @Override
    public int highVersion() {
        return 1;
    }

    @Override
    public void connectionOpened(io.rdmagate.oncrpc.server.Connection connection) {
        opened.add(connection);
    }

    @Override
    public void connectionClosed(io.rdmagate.oncrpc.server.Connection connection) {
        closed.add(connection);
    }

    @Override
    public XdrMessage handle(RpcCall call) throws XdrException, io.rdmagate.oncrpc.server.RpcErrorException {
        lastCaller = call.connection();
        switch (call.procedure()) {
            case PUT -> {
                ByteBuf data = call.decoder().readOpaqueSlice(4 << 20);
                try {
                    CRC32 crc = new CRC32();
                    for (java.nio.ByteBuffer b : data.nioBuffers()) {
                        crc.update(b);
                    }
                    int trailer = call.decoder().readInt();
                    XdrEncoder out = call.success();
                    out.writeInt(data.readableBytes()).writeHyper(crc.getValue()).writeInt(data.nioBufferCount())
                            .writeInt(trailer).writeBool(data.isDirect());
                    return out.finish();
                } finally {
                    data.release();
                }
            }
            case GET -> {
                int n = call.decoder().readInt();
                IoMemory m;
                try {
                    m = pool.get().account("echo").lease(Math.max(n, 1));
                } catch (VfsException e) {
                    throw new IllegalStateException(e);
                }
                m.shrink(n);
                for (int i = 0; i < n; i++) {
                    m.segment().set(java.lang.foreign.ValueLayout.JAVA_BYTE, i, pattern(i));
                }
                XdrEncoder out = call.success();
                out.writePayload(m);
                out.writeInt(0xfeedf00d);
                return out.finish();
            }
            case BLOCK -> {
                try {
                    if (!gate.tryAcquire(30, java.util.concurrent.TimeUnit.SECONDS)) {
                        throw new IllegalStateException("the gate never opened");
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                return call.success().finish();
            }
            case LONG -> {
                int n = call.decoder().readInt();
                byte[] b = new byte[n];
                for (int i = 0; i < n; i++) {
                    b[i] = pattern(i);
                }
                XdrEncoder out = call.success();
                out.writeOpaque(b);
                return out.finish();
            }
            case CALLBACK -> {
                int n = call.decoder().readInt();
                byte[] payload = call.decoder().readOpaque(64 << 10);
                io.rdmagate.oncrpc.server.Backchannel bc = call.connection().backchannel();
                java.util.List<java.util.concurrent.CompletableFuture<ByteBuf>> futures = new java.util.ArrayList<>();
                for (int i = 0; i < n; i++) {
                    ByteBuf m = io.netty.buffer.Unpooled.buffer();
                    io.rdmagate.oncrpc.rpc.CallHeaders.write(m, reverseXids.incrementAndGet(), CB_PROGRAM, 1, 1,
                            io.rdmagate.oncrpc.rpc.Credentials.NONE);
                    m.writeInt(payload.length).writeBytes(payload).writeZero(-payload.length & 3).writeInt(i);
                    java.util.concurrent.CompletableFuture<ByteBuf> f = new java.util.concurrent.CompletableFuture<>();
                    futures.add(f);
                    reverseCalls.add(f);
                    Thread.ofVirtual().start(() -> bc.call(m).whenComplete((r, t) -> {
                        if (t != null) {
                            f.completeExceptionally(t);
                        } else {
                            f.complete(r);
                        }
                    }));
                }
                XdrEncoder out = call.success();
                out.writeInt(n);
                for (java.util.concurrent.CompletableFuture<ByteBuf> f : futures) {
                    try {
                        ByteBuf r = f.join();
                        try {
                            io.rdmagate.oncrpc.xdr.XdrDecoder d = new io.rdmagate.oncrpc.xdr.XdrDecoder(r);
                            io.rdmagate.oncrpc.rpc.ReplyHeader.decode(d);
                            out.writeBool(true).writeOpaque(d.readOpaque(64 << 10));
                        } finally {
                            r.release();
                        }
                    } catch (java.util.concurrent.CompletionException e) {
                        out.writeBool(false).writeString(String.valueOf(e.getCause()));
                    }
                }
                return out.finish();
            }
            default -> throw io.rdmagate.oncrpc.server.RpcErrorException.procUnavailable(call.procedure());
        }
    }
}
