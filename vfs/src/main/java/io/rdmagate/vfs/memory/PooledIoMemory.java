package io.rdmagate.vfs.memory;

/** A buffer leased from an {@link IoMemoryPool}; the last release gives it back. */
final class PooledIoMemory extends RefCountedIoMemory {
    private final IoMemoryPool pool;
    private final IoMemoryPool.Account account;
    private final IoMemoryPool.Buffer buffer;

    PooledIoMemory(IoMemoryPool pool, IoMemoryPool.Account account, IoMemoryPool.Buffer buffer, int length) {
        super(buffer.slab().segment.asSlice(buffer.offset(), buffer.slab().sizeClass.bufferBytes), length);
        this.pool = pool;
        this.account = account;
        this.buffer = buffer;
    }

    @Override
    public Kind kind() {
        return Kind.POOLED;
    }

    @Override
    public MemoryRegistrar.Registration registration() {
        return buffer.slab().registration;
    }

    @Override
    public long offsetInRegistration() {
        return buffer.offset();
    }

    IoMemoryPool.Account account() {
        return account;
    }

    IoMemoryPool.Buffer buffer() {
        return buffer;
    }

    @Override
    void deallocate() {
        pool.giveBack(this);
    }
}
