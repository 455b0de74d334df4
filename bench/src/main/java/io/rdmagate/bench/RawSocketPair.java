package io.rdmagate.bench;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;

/** The baseline: a plain Java socket pair on loopback moving the same bytes in the same messages. */
final class RawSocketPair {
    private RawSocketPair() {
    }

    static Measurement run(int messageBytes, long totalBytes) throws Exception {
        try (ServerSocketChannel server = ServerSocketChannel.open()) {
            server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            SocketChannel client = SocketChannel.open(server.getLocalAddress());
            client.setOption(StandardSocketOptions.TCP_NODELAY, true);
            SocketChannel peer = server.accept();
            Thread reader = Thread.ofPlatform().start(() -> drain(peer, messageBytes, totalBytes));
            ByteBuffer buf = ByteBuffer.allocateDirect(messageBytes);
            Measurement m = Measurement.of("raw socket " + BenchMain.size(messageBytes), totalBytes, () -> {
                for (long sent = 0; sent < totalBytes; sent += messageBytes) {
                    buf.clear();
                    while (buf.hasRemaining()) {
                        client.write(buf);
                    }
                }
                reader.join();
            });
            client.close();
            peer.close();
            return m;
        }
    }

    private static void drain(SocketChannel ch, int messageBytes, long total) {
        ByteBuffer buf = ByteBuffer.allocateDirect(messageBytes);
        long got = 0;
        try {
            while (got < total) {
                buf.clear();
                int n = ch.read(buf);
                if (n < 0) {
                    return;
                }
                got += n;
            }
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }
}
