package io.rdmagate.smb.server;

import java.nio.ByteBuffer;

/**
 * A named pipe behind an IPC$ open: bytes written are DCE/RPC fragments, bytes read are the
 * replies (MS-SMB2 3.3.5.12 for READ on pipes, 3.3.5.15.1 for FSCTL_PIPE_TRANSCEIVE).
 */
public interface NamedPipe {
    /** Accepts one or more whole fragments written by the client. */
    void write(ByteBuffer data) throws SmbException;

    /** Takes up to {@code max} bytes of pending output; an empty array when there is none. */
    byte[] read(int max);

    /** Whether output remains after a read. */
    boolean hasOutput();
}
