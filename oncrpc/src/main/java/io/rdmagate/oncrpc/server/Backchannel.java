package io.rdmagate.oncrpc.server;

import io.netty.buffer.ByteBuf;
import java.util.concurrent.CompletableFuture;

/**
 * RPC calls from the server to the client over the connection the client opened (the NFSv4.1
 * backchannel, RFC 8881 §2.10.3.1; over RPC-over-RDMA, RFC 8167). The upper layer encodes the
 * whole call message, xid first; the transport frames it, matches the client's reply by xid and
 * completes the future with the reply message (call header included), which the caller releases.
 */
public interface Backchannel {
    /** No backchannel on this connection (UDP, or a transport that does not offer one). */
    Backchannel NONE = new Backchannel() {
        @Override
        public CompletableFuture<ByteBuf> call(ByteBuf message) {
            message.release();
            return CompletableFuture.failedFuture(new UnsupportedOperationException("no backchannel on this connection"));
        }

        @Override
        public boolean isOpen() {
            return false;
        }
    };

    /**
     * Sends one call; takes over {@code message}. The future fails when the call cannot be sent
     * (too long for the transport, the connection gone, no credit within the transport's wait) or
     * the connection closes before the reply. May wait, within the transport's limit, for the
     * transport's flow control before it returns: call it from a virtual thread.
     */
    CompletableFuture<ByteBuf> call(ByteBuf message);

    /** Whether calls can be sent now. */
    boolean isOpen();
}
