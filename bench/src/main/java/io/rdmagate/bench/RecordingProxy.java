package io.rdmagate.bench;

import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;

/**
 * A TCP proxy on 127.0.0.1 in front of one server port that keeps every message the clients send,
 * cut out of the byte stream by the protocol's framing: what a real client puts on the wire, for
 * the fuzz campaigns' seed corpora. Server bytes are passed on untouched.
 */
public final class RecordingProxy implements AutoCloseable {
    /** How a protocol frames messages on TCP. */
    public enum Framing {
        /** MS-SMB2 2.1 Direct TCP: a zero byte and a 24-bit length before each message. */
        SMB_DIRECT_TCP,
        /** RFC 5531 §11 record marking: fragments of up to 2^31-1 bytes, the last one flagged. */
        RPC_RECORD_MARKING
    }

    /** A message recorded, and the number of the connection that sent it (from 0, in accept order). */
    public record Message(int connection, byte[] bytes) {
    }

    private static final int MAX_MESSAGE = 16 << 20;

    private final InetSocketAddress upstream;
    private final Framing framing;
    private final ServerSocket listener;
    private final List<Message> messages = new ArrayList<>();
    private final List<Socket> sockets = new ArrayList<>();
    private int connections;

    public RecordingProxy(InetSocketAddress upstream, Framing framing) throws IOException {
        this(0, upstream, framing);
    }

    /** A proxy listening on 127.0.0.1's {@code port} (0: any free port). */
    public RecordingProxy(int port, InetSocketAddress upstream, Framing framing) throws IOException {
        this.upstream = upstream;
        this.framing = framing;
        this.listener = new ServerSocket(port, 50, InetAddress.getLoopbackAddress());
        Thread.ofPlatform().daemon().name("recording-proxy-" + listener.getLocalPort()).start(this::accept);
    }

    public int port() {
        return listener.getLocalPort();
    }

    /** The messages recorded so far, in the order they were complete. */
    public synchronized List<Message> messages() {
        return List.copyOf(messages);
    }

    private void accept() {
        while (!listener.isClosed()) {
            try {
                Socket client = listener.accept();
                Socket server = new Socket(upstream.getAddress(), upstream.getPort());
                int id;
                synchronized (this) {
                    sockets.add(client);
                    sockets.add(server);
                    id = connections++;
                }
                Thread.ofPlatform().daemon().start(() -> record(id, client, server));
                Thread.ofPlatform().daemon().start(() -> pass(server, client));
            } catch (IOException closed) {
                return;
            }
        }
    }

    private void record(int id, Socket from, Socket to) {
        try (DataInputStream in = new DataInputStream(from.getInputStream())) {
            OutputStream out = to.getOutputStream();
            while (true) {
                byte[] message = framing == Framing.SMB_DIRECT_TCP ? smb(in, out) : rpc(in, out);
                synchronized (this) {
                    messages.add(new Message(id, message));
                }
            }
        } catch (IOException ended) {
            closeQuietly(to);
        }
    }

    private static byte[] smb(DataInputStream in, OutputStream out) throws IOException {
        int header = in.readInt();
        int length = header & 0xffffff;
        byte[] m = new byte[length];
        in.readFully(m);
        out.write(new byte[] {(byte) (header >>> 24), (byte) (length >>> 16), (byte) (length >>> 8), (byte) length});
        out.write(m);
        return m;
    }

    private static byte[] rpc(DataInputStream in, OutputStream out) throws IOException {
        java.io.ByteArrayOutputStream record = new java.io.ByteArrayOutputStream();
        boolean last;
        do {
            int mark = in.readInt();
            last = mark < 0;
            int length = mark & 0x7fffffff;
            if (record.size() + (long) length > MAX_MESSAGE) {
                throw new EOFException("record over " + MAX_MESSAGE + " bytes");
            }
            byte[] fragment = new byte[length];
            in.readFully(fragment);
            out.write(new byte[] {(byte) (mark >>> 24), (byte) (mark >>> 16), (byte) (mark >>> 8), (byte) mark});
            out.write(fragment);
            record.writeBytes(fragment);
        } while (!last);
        return record.toByteArray();
    }

    private static void pass(Socket from, Socket to) {
        try (InputStream in = from.getInputStream()) {
            in.transferTo(to.getOutputStream());
        } catch (IOException ended) {
            // the other side went; its pump closes what is left
        } finally {
            closeQuietly(to);
        }
    }

    private static void closeQuietly(Socket s) {
        try {
            s.close();
        } catch (IOException ignored) {
            // closing anyway
        }
    }

    @Override
    public void close() throws IOException {
        listener.close();
        synchronized (this) {
            sockets.forEach(RecordingProxy::closeQuietly);
        }
    }
}
