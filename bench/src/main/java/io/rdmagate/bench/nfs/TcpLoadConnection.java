package io.rdmagate.bench.nfs;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;

/**
 * One TCP connection of the NFSv3 load generator, lean so that the client costs the same for
 * every server and little: each call is one record of a {@link RecordStream}.
 */
final class TcpLoadConnection implements LoadConnection {
    private final RecordStream stream;
    private final ByteBuffer call = ByteBuffer.allocate(1024);
    private int lastLength;

    TcpLoadConnection(InetSocketAddress server) throws IOException {
        stream = new RecordStream(server);
    }

    @Override
    public void sendGetattr(int xid, byte[] fh) throws IOException {
        NfsCalls.getattr(call, xid, fh);
        stream.send(call, null, 0);
    }

    @Override
    public void sendRead(int xid, byte[] fh, long offset, int count) throws IOException {
        NfsCalls.read(call, xid, fh, offset, count);
        stream.send(call, null, 0);
    }

    @Override
    public void sendWrite(int xid, byte[] fh, long offset, byte[] data, int count, int stable) throws IOException {
        NfsCalls.write(call, xid, fh, offset, count, stable);
        stream.send(call, data, count);
    }

    @Override
    public void sendCommit(int xid, byte[] fh) throws IOException {
        NfsCalls.commit(call, xid, fh);
        stream.send(call, null, 0);
    }

    @Override
    public void sendCreate(int xid, byte[] dir, String name) throws IOException {
        NfsCalls.create(call, xid, dir, name);
        stream.send(call, null, 0);
    }

    @Override
    public void sendRemove(int xid, byte[] dir, String name) throws IOException {
        NfsCalls.remove(call, xid, dir, name);
        stream.send(call, null, 0);
    }

    @Override
    public void flush() throws IOException {
        stream.flush();
    }

    @Override
    public int receive() throws IOException {
        lastLength = stream.receive();
        return NfsCalls.check(stream.reply(), lastLength);
    }

    @Override
    public int lastLength() {
        return lastLength;
    }

    @Override
    public void close() throws IOException {
        stream.close();
    }
}
