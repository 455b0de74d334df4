package io.rdmagate.smb.server.transport;

import java.nio.ByteBuffer;

/** The request processor above a transport: told of the connection's start, its messages and its end. */
public interface Receiver {
    /** The connection is up; called once, before any message. */
    void opened();

    /**
     * One SMB2 message, compound or transform message, little-endian, index 0 its first byte. The
     * receiver calls {@code release} once it is done with the bytes (the transport reuses them).
     */
    void received(ByteBuffer message, Runnable release);

    /** The connection is gone; called once, after the last message. */
    void closed();

    /** Whether a session of the connection has authenticated (transports bound handshake sizes by it). */
    boolean authenticated();
}
