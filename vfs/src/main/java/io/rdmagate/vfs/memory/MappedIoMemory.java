package io.rdmagate.vfs.memory;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/** A mapped region of a file; the last release unmaps it. */
public final class MappedIoMemory extends RefCountedIoMemory {
    private final Arena arena;

    public MappedIoMemory(Arena arena, MemorySegment mapping) {
        super(mapping, mapping.byteSize());
        this.arena = arena;
    }

    @Override
    public Kind kind() {
        return Kind.MAPPED;
    }

    @Override
    public MemoryRegistrar.Registration registration() {
        return null;
    }

    @Override
    public long offsetInRegistration() {
        return 0;
    }

    @Override
    void deallocate() {
        arena.close();
    }
}
