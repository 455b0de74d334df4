package io.rdmagate.bench.nfs;

import io.rdmagate.nfs.v3.Nfs3;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;

/**
 * One TCP connection of the NFSv3 load generator, lean so that the client costs the same for
 * every server and little: calls are encoded straight into a buffered stream (the WRITE payload
 * is written from the caller's array, never copied into a record), replies are read into one
 * reusable array. AUTH_SYS as root. Not thread-safe: one thread sends, one receives.
 *
 * <p>Only what the benchmark needs is decoded from a reply (RFC 5531 §9 reply header, then the
 * nfsstat3 that opens every NFSv3 result); anything else is a failed run, never a skipped call.
 */
final class NfsLoadConnection implements AutoCloseable {
    /** Largest reply accepted: a 1 MiB READ plus its attributes and headers. */
    static final int MAX_REPLY = (1 << 20) + 4096;
    private static final byte[] MACHINE = "bench".getBytes(java.nio.charset.StandardCharsets.US_ASCII);

    private final Socket socket;
    private final DataOutputStream out;
    private final DataInputStream in;
    private final byte[] reply = new byte[MAX_REPLY];

    NfsLoadConnection(InetSocketAddress server) throws IOException {
        socket = new Socket();
        socket.setTcpNoDelay(true);
        socket.setSendBufferSize(4 << 20);
        socket.setReceiveBufferSize(4 << 20);
        socket.connect(server, 10_000);
        out = new DataOutputStream(new BufferedOutputStream(socket.getOutputStream(), 64 << 10));
        in = new DataInputStream(new BufferedInputStream(socket.getInputStream(), 256 << 10));
    }

    // RFC 5531 §9 call header + AUTH_SYS (Appendix A) + AUTH_NONE verifier; argsLength follows it
    private void header(int xid, int procedure, int argsLength) throws IOException {
        int credBody = 4 + 4 + pad(MACHINE.length) + 4 + 4 + 4;
        int len = 24 + 8 + credBody + 8 + argsLength;
        out.writeInt(0x80000000 | len); // RFC 5531 §11: one last fragment
        out.writeInt(xid);
        out.writeInt(0); // CALL
        out.writeInt(2);
        out.writeInt(Nfs3.PROGRAM);
        out.writeInt(Nfs3.VERSION);
        out.writeInt(procedure);
        out.writeInt(1); // AUTH_SYS
        out.writeInt(credBody);
        out.writeInt(0); // stamp
        out.writeInt(MACHINE.length);
        out.write(MACHINE);
        out.write(new byte[pad(MACHINE.length) - MACHINE.length]);
        out.writeInt(0); // uid
        out.writeInt(0); // gid
        out.writeInt(0); // no supplementary gids
        out.writeInt(0); // verifier AUTH_NONE
        out.writeInt(0);
    }

    private void handle(byte[] fh) throws IOException {
        out.writeInt(fh.length);
        out.write(fh);
        out.write(new byte[pad(fh.length) - fh.length]);
    }

    private static int pad(int n) {
        return (n + 3) & ~3;
    }

    void sendGetattr(int xid, byte[] fh) throws IOException {
        header(xid, Nfs3.GETATTR, 4 + pad(fh.length));
        handle(fh);
    }

    void sendRead(int xid, byte[] fh, long offset, int count) throws IOException {
        header(xid, Nfs3.READ, 4 + pad(fh.length) + 12);
        handle(fh);
        out.writeLong(offset);
        out.writeInt(count);
    }

    /** WRITE3args (RFC 1813 §3.3.7); {@code data} is written as it is, {@code count} must be a multiple of 4. */
    void sendWrite(int xid, byte[] fh, long offset, byte[] data, int count, int stable) throws IOException {
        header(xid, Nfs3.WRITE, 4 + pad(fh.length) + 20 + count);
        handle(fh);
        out.writeLong(offset);
        out.writeInt(count);
        out.writeInt(stable);
        out.writeInt(count);
        out.write(data, 0, count);
    }

    void sendCommit(int xid, byte[] fh) throws IOException {
        header(xid, Nfs3.COMMIT, 4 + pad(fh.length) + 12);
        handle(fh);
        out.writeLong(0);
        out.writeInt(0);
    }

    void flush() throws IOException {
        out.flush();
    }

    /**
     * Reads one reply and checks that it is an accepted call whose nfsstat3 is NFS3_OK; returns
     * its xid. The reply's length (the bytes after the record mark) is {@link #lastLength()}.
     */
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
                break;
            }
        }
        lastLength = len;
        int xid = intAt(0);
        if (len < 24 || intAt(4) != 1 || intAt(8) != 0) {
            throw new IOException("xid " + xid + ": not an accepted reply");
        }
        int verfLen = intAt(16);
        int at = 20 + pad(verfLen);
        if (at + 8 > len || intAt(at) != 0) {
            throw new IOException("xid " + xid + ": accept_stat " + (at + 4 <= len ? intAt(at) : -1));
        }
        int status = intAt(at + 4);
        if (status != 0) {
            throw new IOException("xid " + xid + ": nfsstat3 " + status);
        }
        return xid;
    }

    private int lastLength;

    int lastLength() {
        return lastLength;
    }

    private int intAt(int i) {
        return (reply[i] & 0xff) << 24 | (reply[i + 1] & 0xff) << 16 | (reply[i + 2] & 0xff) << 8 | (reply[i + 3] & 0xff);
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
