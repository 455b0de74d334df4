package io.rdmagate.smb.server;

import io.rdmagate.smb.mssmb2.Smb2Header;
import io.rdmagate.vfs.memory.IoMemory;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * One response being built: a heap buffer whose index 0 is the header (filled by the dispatcher),
 * the body a handler writes from index 64, and optionally a payload (READ data) sent after it as
 * its own buffer.
 */
public final class Reply {
    int status;
    ByteBuffer buf;
    int bodyLength;
    IoMemory payload;
    /** Overrides of what the header echoes (SESSION_SETUP assigns the id, TREE_CONNECT the tree). */
    long sessionId = -1;
    int treeId = -1;
    /** No response at all (CANCEL, a request answered later). */
    public boolean none;
    /** Close the connection instead of answering (MS-SMB2 names the cases). */
    public boolean disconnect;
    /** Sign with this session even if the request was not signed (final SESSION_SETUP). */
    public SmbSession signWith;

    /** Async form: the interim STATUS_PENDING response goes out now, the final one later. */
    long asyncId;
    SmbConnection.AsyncOp async;
    /**
     * The client memory token the response invalidates at the client (SMB Direct Send with
     * Invalidate, asked by SMB2_CHANNEL_RDMA_V1_INVALIDATE), or -1.
     */
    public long invalidateToken = -1;
    /** Called with the finished message (header written, signed) before it is sent: preauth hashing. */
    public java.util.function.Consumer<ByteBuffer> afterBuild;

    /** A body buffer with room for {@code capacity} bytes after the header. */
    public ByteBuffer body(int capacity) {
        buf = ByteBuffer.allocate(Smb2Header.SIZE + Math.max(capacity, 9)).order(ByteOrder.LITTLE_ENDIAN);
        return buf;
    }

    public void length(int bodyLength) {
        this.bodyLength = bodyLength;
    }

    public void status(int status) {
        this.status = status;
    }

    public int status() {
        return status;
    }

    public void payload(IoMemory m) {
        this.payload = m;
    }

    public void sessionIdOverride(long id) {
        this.sessionId = id;
    }

    public void treeIdOverride(int id) {
        this.treeId = id;
    }

    /** Takes over the status and body another reply was built with (a response finished off the request's thread). */
    public void copyOf(Reply other) {
        this.status = other.status;
        this.buf = other.buf;
        this.bodyLength = other.bodyLength;
    }

    void releasePayload() {
        if (payload != null) {
            payload.release();
            payload = null;
        }
    }
}
