package io.rdmagate.bench.nfs;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;

/**
 * The TCP side of a load connection: RPC records (RFC 5531 §11) written into a buffered stream,
 * a payload straight from the caller's array, never copied into a record; replies read into one
 * reusable array.
 */
final class RecordStream implements AutoCloseable {
    /** Largest reply accepted: a 1 MiB READ plus its attributes and headers. */
    static final int MAX_REPLY = (1 << 20) + 4096;

    private final Socket socket;
    private final DataOutputStream out;
    private final DataInputStream in;
    private final byte[] reply = new byte[MAX_REPLY];
    private final ByteBuffer replyView = ByteBuffer.wrap(reply);

    RecordStream(InetSocketAddress server) throws IOException {
        socket = new Socket();
        socket.setTcpNoDelay(true);
        socket.setSendBufferSize(4 << 20);
        socket.setReceiveBufferSize(4 << 20);
        socket.connect(server, 10_000);
        out = new DataOutputStream(new BufferedOutputStream(socket.getOutputStream(), 64 << 10));
        in = new DataInputStream(new BufferedInputStream(socket.getInputStream(), 256 << 10));
    }

    /** Writes the encoded call as one last fragment, followed by {@code data[0, count)} (count may be 0). */
    void send(ByteBuffer call, byte[] data, int count) throws IOException {
        out.writeInt(0x80000000 | (call.position() + count));
        out.write(call.array(), 0, call.position());
        call.clear();
        if (count > 0) {
            out.write(data, 0, count);
        }
    }

    void flush() throws IOException {
        out.flush();
    }

    /** How long {@link #receive} waits for a reply before it throws SocketTimeoutException (0: for ever). */
    void timeout(int millis) throws IOException {
        socket.setSoTimeout(millis);
    }

    /** Reads one reply record; returns its length (its bytes are in {@link #reply()}). */
    int receive() throws IOException {
        int len = 0;
        while (true) { // RFC 5531 §11: fragments until the last one
            int mark = in.readInt();
            int frag = mark & 0x7fffffff;
            if (len + frag > reply.length) {
                throw new IOException("reply over " + reply.length + " bytes");
            }
            in.readFully(reply, len, frag);
            len += frag;
            if (mark < 0) {
                return len;
            }
        }
    }

    ByteBuffer reply() {
        return replyView;
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
