package io.rdmagate.rdma;

import io.rdmagate.vfs.memory.MemoryRegistrar;
import java.lang.foreign.MemorySegment;
import java.util.Set;

/**
 * Registered memory (ibv_mr). Local work requests name it by {@link #lkey()}; a peer names it by
 * {@link #rkey()} (the iWARP STag) and a virtual address inside [{@link #address()},
 * address + length).
 */
public interface MemoryRegion extends MemoryRegistrar.Registration {
    int lkey();

    int rkey();

    /** The address peers use; for these providers the segment's native address. */
    long address();

    long length();

    MemorySegment segment();

    Set<Access> access();

    /** False once invalidated or deregistered: every access with its keys then fails. */
    boolean isValid();

    /** Invalidates the keys locally (as a Local Invalidate work request would). */
    void invalidate();

    /** Deregisters; the keys become invalid. */
    @Override
    void close();

    /** An entry of a scatter/gather list over this region. */
    default Sge sge(long offset, int length) {
        return new Sge(address() + offset, length, lkey());
    }
}
