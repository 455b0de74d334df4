package io.rdmagate.bench.nfs;

import java.io.IOException;

/**
 * One connection of the NFSv3 load generator, over TCP ({@link TcpLoadConnection}) or
 * RPC-over-RDMA ({@link RdmaLoadConnection}). Not thread-safe beyond this: one thread sends
 * (and flushes), one receives.
 */
interface LoadConnection extends AutoCloseable {
    void sendGetattr(int xid, byte[] fh) throws IOException;

    void sendRead(int xid, byte[] fh, long offset, int count) throws IOException;

    /** {@code data[0, count)} is the payload; {@code count} a multiple of 4. */
    void sendWrite(int xid, byte[] fh, long offset, byte[] data, int count, int stable) throws IOException;

    void sendCommit(int xid, byte[] fh) throws IOException;

    /** An open of the file for reading and its close, one round trip where the protocol has opens (NFSv4.1). */
    default void sendOpenClose(int xid, byte[] fh) throws IOException {
        throw new UnsupportedOperationException("no opens in this protocol");
    }

    /** An NFSv3 CREATE (UNCHECKED, mode 0644) of {@code name} in directory {@code dir}. */
    default void sendCreate(int xid, byte[] dir, String name) throws IOException {
        throw new UnsupportedOperationException("no CREATE over this connection");
    }

    /** An NFSv3 REMOVE of {@code name} in directory {@code dir}. */
    default void sendRemove(int xid, byte[] dir, String name) throws IOException {
        throw new UnsupportedOperationException("no REMOVE over this connection");
    }

    /** Sends what the calls above buffered. */
    void flush() throws IOException;

    /** Waits for one reply, checks it (NFS3_OK) and returns its xid. */
    int receive() throws IOException;

    /** Bytes of the last reply, its payload included wherever it was placed. */
    int lastLength();

    @Override
    void close() throws IOException;
}
