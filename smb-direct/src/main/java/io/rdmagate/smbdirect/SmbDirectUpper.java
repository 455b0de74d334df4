package io.rdmagate.smbdirect;

import java.nio.ByteBuffer;

/** The SMB2 layer above one SMB Direct connection (MS-SMBD 3.1.4: what the transport tells its upper layer). */
public interface SmbDirectUpper {
    /** The negotiation succeeded: messages may flow. Called once, before any {@link #received}. */
    void opened(SmbDirectConnection connection);

    /**
     * One whole SMB2 message (reassembled when the client sent it in fragments), little-endian,
     * index 0 its first byte. {@code release} hands the bytes back (a receive buffer is posted
     * again, granting the client a credit): call it once, when done.
     */
    void received(ByteBuffer message, Runnable release);

    /** The connection ended; called once, only after {@link #opened}. */
    void closed();
}
