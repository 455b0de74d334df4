package io.rdmagate.smb.server.transport;

import io.rdmagate.vfs.memory.IoMemory;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.util.List;

/**
 * What the request processor ({@code SmbConnection}) needs from the wire under it, as ksmbd's
 * {@code ksmbd_transport_ops}: send, stop and resume taking requests, disconnect, and on SMB
 * Direct the RDMA channel. A transport hands each received SMB2 message (or transform message) to
 * {@code SmbConnection.received}, tells it when it opens and ends, and never blocks a caller of
 * {@link #send} on the peer.
 *
 * <p>Implementations: {@link TcpTransport} (Direct TCP, MS-SMB2 2.1) and {@link SmbDirectTransport}
 * (MS-SMBD).
 */
public interface SmbTransport {
    /** "tcp" or "rdma": the label of this transport's meters and payload copy counts. */
    String kind();

    InetSocketAddress remoteAddress();

    InetSocketAddress localAddress();

    /** Whether the transport is still up (its loss may not have been handled yet). */
    boolean isOpen();

    /**
     * Sends one message: {@code parts} (headers and bodies, built on the heap) and then
     * {@code payload} (a READ's data, or null), which the transport releases once it is sent or the
     * connection is gone. {@code payloadInParts} says how many payload bytes {@code parts} carry
     * already (a sealed message, a READ that was not last in its compound): their gathering is a
     * payload copy, counted under {@link #kind()}.
     */
    void send(List<ByteBuffer> parts, IoMemory payload, long payloadInParts);

    /**
     * Sends like {@link #send(List, IoMemory, long)}, and on SMB Direct invalidates {@code token} at
     * the client with the same message (Send with Invalidate, for SMB2_CHANNEL_RDMA_V1_INVALIDATE).
     * {@code token} -1: none.
     */
    default void send(List<ByteBuffer> parts, IoMemory payload, long payloadInParts, long invalidateToken) {
        send(parts, payload, payloadInParts);
    }

    /** Stops (true) or resumes taking requests from the peer: the bound of requests in progress. */
    void pauseReceiving(boolean pause);

    /** Closes the connection; {@code SmbConnection.closed} follows once. */
    void disconnect();

    /**
     * The RDMA channel of MS-SMB2 2.2.19/2.2.21 (SMB2_CHANNEL_RDMA_V1): null when the transport
     * cannot move data with RDMA (TCP).
     */
    default RdmaChannel rdma() {
        return null;
    }

    /**
     * The largest READ or WRITE this transport carries (MS-SMB2 3.3.5.4: MaxReadSize and
     * MaxWriteSize may depend on the connection's transport).
     */
    default int maxReadWriteSize(int configured) {
        return configured;
    }
}
