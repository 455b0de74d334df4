package io.rdmagate.smb.server;

import io.rdmagate.smb.server.transport.SmbTransport;
import io.rdmagate.vfs.memory.IoMemory;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A client's messages handed to an {@link SmbConnection} of a running server in memory, without a
 * socket: the transport under the connection and the {@link RawSmbClient.Frames} of the client
 * in one. Each message goes to {@link SmbConnection#received} as the TCP transport hands it; each
 * response is gathered (parts and payload) into one array for the client to read. For campaigns
 * of millions of requests, which the loopback's round trips would make hours long.
 */
final class MemoryFrames implements RawSmbClient.Frames, SmbTransport {
    private static final byte[] END = new byte[0];
    private static int nextPort = 40000;

    private final SmbConnection connection;
    private final BlockingQueue<byte[]> responses = new LinkedBlockingQueue<>();
    private final AtomicBoolean closed = new AtomicBoolean();
    private final InetSocketAddress remote;

    MemoryFrames(SmbServer server) {
        synchronized (MemoryFrames.class) {
            nextPort = nextPort >= 65535 ? 40000 : nextPort + 1;
            remote = new InetSocketAddress("127.0.0.1", nextPort);
        }
        connection = new SmbConnection(server, this);
        connection.opened();
    }

    // ---- the client's side ----

    @Override
    public void write(byte[] message, int length) throws IOException {
        if (closed.get()) {
            throw new IOException("connection closed by the server");
        }
        ByteBuffer m = ByteBuffer.allocate(length).order(ByteOrder.LITTLE_ENDIAN);
        m.put(0, message, 0, length);
        connection.received(m, () -> { });
    }

    @Override
    public byte[] read() throws IOException, InterruptedException {
        byte[] b = responses.take();
        if (b == END) {
            responses.add(END);
            throw new IOException("connection closed by the server");
        }
        return b;
    }

    @Override
    public void close() {
        disconnect();
    }

    // ---- the server's side ----

    @Override
    public String kind() {
        return "tcp";
    }

    @Override
    public InetSocketAddress remoteAddress() {
        return remote;
    }

    @Override
    public InetSocketAddress localAddress() {
        return new InetSocketAddress("127.0.0.1", 445);
    }

    @Override
    public boolean isOpen() {
        return !closed.get();
    }

    @Override
    public void send(List<ByteBuffer> parts, IoMemory payload, long payloadInParts) {
        try {
            if (closed.get()) {
                return;
            }
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            for (ByteBuffer p : parts) {
                byte[] a = new byte[p.remaining()];
                p.duplicate().get(a);
                out.writeBytes(a);
            }
            if (payload != null) {
                out.writeBytes(payload.segment().toArray(ValueLayout.JAVA_BYTE));
            }
            responses.add(out.toByteArray());
        } finally {
            if (payload != null) {
                payload.release();
            }
        }
    }

    @Override
    public void pauseReceiving(boolean pause) {
        // the campaign's client waits for each answer: never more than one request in progress
    }

    @Override
    public void disconnect() {
        if (closed.compareAndSet(false, true)) {
            responses.add(END);
            Thread.ofVirtual().start(connection::closed); // as the transport's loss is handled off the caller
        }
    }
}
