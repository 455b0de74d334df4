package io.rdmagate.rdma;

import io.rdmagate.vfs.memory.MemoryRegistrar;
import java.lang.foreign.MemorySegment;
import java.util.EnumSet;
import java.util.Set;

/**
 * A protection domain (ibv_pd): memory registered here is reachable only by queue pairs of the
 * same domain. It is the {@link MemoryRegistrar} of the I/O memory pool that feeds its queue
 * pairs: every slab is registered once, for local write and remote read and write.
 */
public interface ProtectionDomain extends MemoryRegistrar, AutoCloseable {

    MemoryRegion register(MemorySegment segment, Set<Access> access) throws RdmaException;

    @Override
    default MemoryRegion register(MemorySegment slab) throws RdmaException {
        return register(slab, EnumSet.allOf(Access.class));
    }

    @Override
    void close();
}
