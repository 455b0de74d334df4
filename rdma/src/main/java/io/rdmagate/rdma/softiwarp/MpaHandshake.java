package io.rdmagate.rdma.softiwarp;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.ReadableByteChannel;
import java.nio.channels.SocketChannel;

/**
 * Blocking reads and writes of the MPA Request/Reply exchange (RFC 5044 §7.1, RFC 6581). The
 * caller bounds the whole exchange with a deadline that closes the socket.
 */
final class MpaHandshake {
    private MpaHandshake() {
    }

    /**
     * Reads one frame; null when it is not a well-formed frame of the expected kind (private data
     * over {@link MpaFrame#MAX_PRIVATE_DATA} is not read). An end of stream before the frame is
     * whole is an {@link EOFException}.
     */
    static MpaFrame read(ReadableByteChannel ch, boolean expectRequest) throws IOException {
        ByteBuffer header = ByteBuffer.allocateDirect(MpaFrame.HEADER);
        readFully(ch, header);
        header.flip();
        int pdLen = MpaFrame.declaredLength(header);
        if (pdLen > MpaFrame.MAX_PRIVATE_DATA) {
            return null;
        }
        ByteBuffer pd = ByteBuffer.allocateDirect(pdLen);
        readFully(ch, pd);
        return MpaFrame.parse(header, pd.flip(), expectRequest);
    }

    static void write(SocketChannel ch, ByteBuffer frame) throws IOException {
        while (frame.hasRemaining()) {
            ch.write(frame);
        }
    }

    private static void readFully(ReadableByteChannel ch, ByteBuffer b) throws IOException {
        while (b.hasRemaining()) {
            if (ch.read(b) < 0) {
                throw new EOFException("connection closed during the MPA exchange");
            }
        }
    }
}
