package io.rdmagate.smb.server.transport;

import io.rdmagate.smbdirect.message.BufferDescriptor;
import io.rdmagate.vfs.memory.IoMemory;
import io.rdmagate.vfs.memory.IoMemoryPool;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Data moved with RDMA on behalf of an SMB2 READ or WRITE (MS-SMB2 3.3.5.12, 3.3.5.13): the
 * client names its registered buffers in SMB_DIRECT_BUFFER_DESCRIPTOR_V1 entries; the server
 * writes a READ's data into them and reads a WRITE's data from them.
 */
public interface RdmaChannel {
    /** The most descriptors one READ or WRITE may name. */
    int maxDescriptors();

    /**
     * RDMA-Writes {@code data} into the descriptors, in order, ahead of the next message sent on
     * the connection, so the client has the data when the response arrives. Releases {@code data}
     * once the writes are done or the connection is gone. The caller has checked that the
     * descriptors hold the data ({@link BufferDescriptor#total}).
     */
    void write(List<BufferDescriptor> into, IoMemory data);

    /**
     * RDMA-Reads {@code length} bytes from the descriptors into memory leased from {@code account}
     * (the caller may wait for it: a worker); completes with that memory (the caller releases it),
     * or exceptionally when a read fails or the connection ends.
     */
    CompletableFuture<IoMemory> read(List<BufferDescriptor> from, int length, IoMemoryPool.Account account);
}
