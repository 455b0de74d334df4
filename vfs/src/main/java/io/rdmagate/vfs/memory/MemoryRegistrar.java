package io.rdmagate.vfs.memory;

import java.lang.foreign.MemorySegment;

/**
 * Registers memory with a device so that it can be the source or target of DMA (an RDMA
 * protection domain implements this). The {@link IoMemoryPool} calls it once per slab when the
 * slab is created and closes the registration when the slab is freed, never per I/O.
 */
@FunctionalInterface
public interface MemoryRegistrar {
    /** No device: memory needs no registration. */
    MemoryRegistrar NONE = slab -> () -> { };

    Registration register(MemorySegment slab) throws Exception;

    /** A registered slab; closing it deregisters. Providers add their keys (lkey, rkey) to it. */
    interface Registration extends AutoCloseable {
        @Override
        void close();
    }
}
