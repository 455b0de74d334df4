package io.rdmagate.oncrpc.client;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.rdmagate.oncrpc.rpc.CallHeaders;
import io.rdmagate.oncrpc.rpc.Credentials;
import io.rdmagate.oncrpc.rpc.ReplyHeader;
import io.rdmagate.oncrpc.rpc.Rpc;
import io.rdmagate.oncrpc.xdr.XdrDecoder;
import io.rdmagate.oncrpc.xdr.XdrException;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A small ONC RPC client over TCP for tests, benchmarks and rpcbind registration: record marking
 * (multi-fragment records are reassembled, up to {@link #MAX_RECORD} bytes), calls pipelined on
 * one connection and matched to replies by xid, AUTH_NONE or AUTH_SYS. Thread-safe.
 *
 * <p>Reading: one virtual thread reads records; a reply whose xid no call waits for is dropped. A
 * malformed reply or a closed connection fails every waiting call. A call the server makes on the
 * connection (msg_type CALL: the NFSv4.1 backchannel) goes to the {@link #serveCalls} handler,
 * whose answer is written back as a record; without one it is dropped.
 */
public final class RpcClient implements AutoCloseable {
    public static final int MAX_RECORD = 16 * 1024 * 1024;

    private final Socket socket;
    private final OutputStream out;
    private final ReentrantLock writeLock = new ReentrantLock();
    private final Map<Integer, CompletableFuture<RpcReplyMessage>> pending = new ConcurrentHashMap<>();
    private final AtomicInteger xids = new AtomicInteger(ThreadLocalRandom.current().nextInt());
    private final Thread reader;
    private volatile Credentials credentials = Credentials.NONE;
    private volatile IOException failure;
    private volatile java.util.function.Function<byte[], byte[]> callHandler;

    private RpcClient(Socket socket) throws IOException {
        this.socket = socket;
        this.out = socket.getOutputStream();
        DataInputStream in = new DataInputStream(new java.io.BufferedInputStream(socket.getInputStream(), 65536));
        this.reader = Thread.ofVirtual().name("rpc-client-reader").start(() -> readLoop(in));
    }

    public static RpcClient connect(InetSocketAddress server, Duration timeout) throws IOException {
        Socket s = new Socket();
        try {
            s.setTcpNoDelay(true);
            s.connect(server, (int) timeout.toMillis());
        } catch (IOException e) {
            s.close();
            throw e;
        }
        return new RpcClient(s);
    }

    /**
     * Answers the calls the server makes on this connection: the handler gets each call message
     * (xid first, no record mark) on the reading thread and returns the whole reply message, or
     * null to send none.
     */
    public RpcClient serveCalls(java.util.function.Function<byte[], byte[]> handler) {
        this.callHandler = handler;
        return this;
    }

    /** The credential sent with later calls. */
    public RpcClient credentials(Credentials c) {
        this.credentials = c;
        return this;
    }

    public InetSocketAddress localAddress() {
        return (InetSocketAddress) socket.getLocalSocketAddress();
    }

    /** A fresh xid. */
    public int nextXid() {
        return xids.incrementAndGet();
    }

    /** Calls and waits; {@code args} are the procedure's XDR arguments (may be empty). */
    public RpcReplyMessage call(int prog, int vers, int proc, byte[] args, Duration timeout) throws IOException {
        return await(callAsync(nextXid(), prog, vers, proc, args), timeout);
    }

    public CompletableFuture<RpcReplyMessage> callAsync(int xid, int prog, int vers, int proc, byte[] args)
            throws IOException {
        ByteBuf header = CallHeaders.write(Unpooled.buffer(64), xid, prog, vers, proc, credentials);
        byte[] record = new byte[4 + header.readableBytes() + args.length];
        int len = record.length - 4;
        record[0] = (byte) (0x80 | (len >>> 24));
        record[1] = (byte) (len >>> 16);
        record[2] = (byte) (len >>> 8);
        record[3] = (byte) len;
        header.readBytes(record, 4, header.readableBytes());
        System.arraycopy(args, 0, record, record.length - args.length, args.length);
        CompletableFuture<RpcReplyMessage> f = new CompletableFuture<>();
        pending.put(xid, f);
        try {
            sendRaw(record);
        } catch (IOException e) {
            pending.remove(xid);
            throw e;
        }
        return f;
    }

    /** Writes bytes as they are (record marks included): for tests of malformed input. */
    public void sendRaw(byte[] bytes) throws IOException {
        IOException f = failure;
        if (f != null) {
            throw new IOException("connection failed", f);
        }
        writeLock.lock();
        try {
            out.write(bytes);
            out.flush();
        } finally {
            writeLock.unlock();
        }
    }

    /** Registers interest in a reply to {@code xid} sent with {@link #sendRaw}. */
    public CompletableFuture<RpcReplyMessage> expect(int xid) {
        CompletableFuture<RpcReplyMessage> f = new CompletableFuture<>();
        pending.put(xid, f);
        return f;
    }

    public static RpcReplyMessage await(CompletableFuture<RpcReplyMessage> f, Duration timeout) throws IOException {
        try {
            return f.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            throw e.getCause() instanceof IOException io ? io : new IOException(e.getCause());
        } catch (TimeoutException e) {
            throw new IOException("no reply within " + timeout);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted");
        }
    }

    /** Whether the server has closed the connection (or it failed). */
    public boolean isClosed() {
        return failure != null;
    }

    private void readLoop(DataInputStream in) {
        try {
            while (true) {
                byte[] record = readRecord(in);
                if (record.length >= 8 && Unpooled.wrappedBuffer(record).getInt(4) == Rpc.CALL) {
                    answer(record);
                    continue;
                }
                XdrDecoder x = new XdrDecoder(Unpooled.wrappedBuffer(record));
                ReplyHeader h = ReplyHeader.decode(x);
                byte[] body = new byte[x.remaining()];
                x.buffer().readBytes(body);
                CompletableFuture<RpcReplyMessage> f = pending.remove(h.xid());
                if (f != null) {
                    f.complete(new RpcReplyMessage(h, body));
                }
            }
        } catch (IOException | XdrException e) {
            IOException io = e instanceof IOException i ? i : new IOException("malformed reply: " + e.getMessage());
            failure = io;
            pending.values().forEach(f -> f.completeExceptionally(io));
            pending.clear();
        }
    }

    private void answer(byte[] call) throws IOException {
        java.util.function.Function<byte[], byte[]> h = callHandler;
        byte[] reply = h == null ? null : h.apply(call);
        if (reply != null) {
            byte[] record = new byte[4 + reply.length];
            Unpooled.wrappedBuffer(record).setInt(0, 0x80000000 | reply.length);
            System.arraycopy(reply, 0, record, 4, reply.length);
            sendRaw(record);
        }
    }

    /** Reassembles one record (RFC 5531 §11). */
    private static byte[] readRecord(DataInputStream in) throws IOException {
        byte[] record = new byte[0];
        while (true) {
            int mark;
            try {
                mark = in.readInt();
            } catch (EOFException e) {
                throw new EOFException("connection closed by the server");
            }
            int len = mark & 0x7fffffff;
            if ((long) record.length + len > MAX_RECORD) {
                throw new IOException("reply record over " + MAX_RECORD + " bytes");
            }
            byte[] grown = java.util.Arrays.copyOf(record, record.length + len);
            in.readFully(grown, record.length, len);
            record = grown;
            if (mark < 0) {
                return record;
            }
        }
    }

    @Override
    public void close() throws IOException {
        socket.close();
        try {
            reader.join(2000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
