package io.rdmagate.vfs.memory;

import java.lang.foreign.MemorySegment;

/** A segment whose owner keeps it alive; releasing it frees nothing. */
final class LentIoMemory extends RefCountedIoMemory {
    LentIoMemory(MemorySegment segment) {
        super(segment, segment.byteSize());
    }

    @Override
    public Kind kind() {
        return Kind.LENT;
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
    }
}
