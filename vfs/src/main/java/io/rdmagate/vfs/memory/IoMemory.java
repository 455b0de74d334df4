package io.rdmagate.vfs.memory;

import java.lang.foreign.MemorySegment;

/**
 * Payload memory that moves between a file and a client without a copy in the gateway: a
 * leased buffer from an {@link IoMemoryPool} (registered with the transport's device), a mapped
 * region of a file, or memory a transport owns and lends for one call.
 *
 * <p>Reference counted: whoever holds it releases it exactly once; the last release returns the
 * buffer to its pool or unmaps the region. Not thread-safe for {@link #shrink}, which only the
 * first owner calls before handing the memory on.
 */
public interface IoMemory extends AutoCloseable {

    enum Kind {
        /** A buffer leased from a pool slab; {@link #registration()} tells the device keys. */
        POOLED,
        /** A mapped region of a file; not registered, so a transport registers or copies it. */
        MAPPED,
        /** Memory owned by someone else and lent for the duration of a call. */
        LENT
    }

    /** The payload, exactly {@link #length()} bytes. */
    MemorySegment segment();

    long length();

    Kind kind();

    /** The registration of the slab this buffer lies in, or null when not registered. */
    MemoryRegistrar.Registration registration();

    /** Offset of {@link #segment()} from the start of the registered slab. */
    long offsetInRegistration();

    /** Makes the visible payload shorter (after a short read); never longer. */
    void shrink(long newLength);

    IoMemory retain();

    /** Drops one reference; returns true when this was the last. */
    boolean release();

    int refCount();

    @Override
    default void close() {
        release();
    }

    /** Lends a segment its owner keeps alive for the duration of the call. */
    static IoMemory lend(MemorySegment segment) {
        return new LentIoMemory(segment);
    }
}
