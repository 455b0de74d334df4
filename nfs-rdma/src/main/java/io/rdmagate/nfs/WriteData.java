package io.rdmagate.nfs;

import io.netty.buffer.ByteBuf;
import io.rdmagate.nfs.NfsExports.Target;
import io.rdmagate.vfs.Caller;
import io.rdmagate.vfs.Stability;
import io.rdmagate.vfs.VfsError;
import io.rdmagate.vfs.VfsException;
import io.rdmagate.vfs.VirtualFileSystem;
import io.rdmagate.vfs.WriteResult;
import io.rdmagate.vfs.memory.IoMemory;
import io.rdmagate.vfs.memory.IoMemoryPool;
import io.rdmagate.vfs.memory.PayloadCopies;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;

/**
 * Where the bytes of an NFS WRITE (v3 and v4) travel: the data stays in the receive buffers it
 * arrived in. A payload in one direct buffer is lent to the vfs as it lies and {@code pwrite} takes
 * it from there; a payload split across several direct receive buffers (a large record read in
 * pieces, or the inline parts and read chunk of an RPC-over-RDMA call) is lent as a list of segments
 * and written with one {@code pwritev}. Only a payload on the Java heap is copied, once, into pool
 * memory, and counted in {@link PayloadCopies} under "tcp".
 */
public final class WriteData {
    private static final MemorySegment EMPTY = Arena.global().allocate(8).asSlice(0, 0);

    private WriteData() {
    }

    /**
     * Like knfsd, the owner may write its file whatever the mode bits say (the client checked them
     * at open): the superuser writes for an owner who lacks write permission.
     */
    public static Caller ownerOverride(Target t, Caller c, int ownerUid) throws VfsException {
        if (ownerUid != c.uid() || c.isSuperuser()) {
            return c;
        }
        int ok = t.fs().access(c, t.handle(), VirtualFileSystem.ACCESS_MODIFY);
        return ok != 0 ? c : Caller.ROOT;
    }

    /** Writes all of {@code data} at {@code offset}; a short write is an I/O error. */
    public static WriteResult write(Target t, Caller c, long offset, Stability stability, ByteBuf data,
            IoMemoryPool.Account memory, PayloadCopies copies) throws VfsException {
        int n = data.readableBytes();
        if (n == 0) {
            return t.fs().write(c, t.handle(), offset, IoMemory.lend(EMPTY), stability);
        }
        if (data.isDirect() && data.nioBufferCount() == 1) {
            IoMemory m = IoMemory.lend(MemorySegment.ofBuffer(data.nioBuffer()));
            try {
                return t.fs().write(c, t.handle(), offset, m, stability);
            } finally {
                m.release();
            }
        }
        ByteBuffer[] parts = data.nioBuffers();
        boolean allDirect = true;
        for (ByteBuffer p : parts) {
            allDirect &= p.isDirect();
        }
        if (!allDirect) {
            IoMemory m = memory.lease(n);
            try {
                MemorySegment dst = m.segment();
                long at = 0;
                for (ByteBuffer p : parts) {
                    MemorySegment src = MemorySegment.ofBuffer(p);
                    MemorySegment.copy(src, 0, dst, at, src.byteSize());
                    at += src.byteSize();
                }
                copies.add("tcp", n);
                return t.fs().write(c, t.handle(), offset, m, stability);
            } finally {
                m.release();
            }
        }
        MemorySegment[] segments = new MemorySegment[parts.length];
        for (int i = 0; i < parts.length; i++) {
            segments[i] = MemorySegment.ofBuffer(parts[i]);
        }
        WriteResult w = t.fs().write(c, t.handle(), offset, segments, stability); // one pwritev
        if (w.count() != n) {
            throw new VfsException(VfsError.IO, "short write of " + w.count() + " of " + n);
        }
        return w;
    }
}
