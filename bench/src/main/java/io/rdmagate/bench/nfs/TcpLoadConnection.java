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
 * One TCP connection of the NFSv3 load generator, lean so that the client costs the same for
 * every server and little: each call is one record (RFC 5531 §11) written into a buffered
 * stream, the WRITE payload straight from the caller's array, never copied into a record;
 * replies are read into one reusable array.
 */
final class TcpLoadConnection implements LoadConnection {
    /** Largest reply accepted: a 1 MiB READ plus its attributes and headers. */
    static final int MAX_REPLY = (1 << 20) + 4096;

    private final Socket socket;
    private final DataOutputStream out;
    private final DataInputStream in;
    private final byte[] reply = new byte[MAX_REPLY];
    private final ByteBuffer replyView = ByteBuffer.wrap(reply);
    private final ByteBuffer call = ByteBuffer.allocate(1024);
    private int lastLength;

    TcpLoadConnection(InetSocketAddress server) throws IOException {
        socket = new Socket();
        socket.setTcpNoDelay(true);
        socket.setSendBufferSize(4 << 20);
        socket.setReceiveBufferSize(4 << 20);
        socket.connect(server, 10_000);
        out = new DataOutputStream(new BufferedOutputStream(socket.getOutputStream(), 64 << 10));
        in = new DataInputStream(new BufferedInputStream(socket.getInputStream(), 256 << 10));
    }

    /** Writes the encoded call as one last fragment whose record also carries {@code more} bytes. */
    private void record(int more) throws IOException {
        out.writeInt(0x80000000 | (call.position() + more));
        out.write(call.array(), 0, call.position());
        call.clear();
    }

    @Override
    public void sendGetattr(int xid, byte[] fh) throws IOException {
        NfsCalls.getattr(call, xid, fh);
        record(0);
    }

    @Override
    public void sendRead(int xid, byte[] fh, long offset, int count) throws IOException {
        NfsCalls.read(call, xid, fh, offset, count);
        record(0);
    }

    @Override
    public void sendWrite(int xid, byte[] fh, long offset, byte[] data, int count, int stable) throws IOException {
        NfsCalls.write(call, xid, fh, offset, count, stable);
        record(count);
        out.write(data, 0, count);
    }

    @Override
    public void sendCommit(int xid, byte[] fh) throws IOException {
        NfsCalls.commit(call, xid, fh);
        record(0);
    }

    @Override
    public void flush() throws IOException {
        out.flush();
    }

    @Override
    public int receive() throws IOException {
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
                break;
            }
        }
        lastLength = len;
        return NfsCalls.check(replyView, len);
    }

    @Override
    public int lastLength() {
        return lastLength;
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
