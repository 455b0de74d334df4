package io.rdmagate.vfs.memory;

import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.AtomicInteger;

/** Reference counting shared by the kinds of {@link IoMemory}. */
abstract class RefCountedIoMemory implements IoMemory {
    private final AtomicInteger refs = new AtomicInteger(1);
    private final MemorySegment full;
    private long length;

    RefCountedIoMemory(MemorySegment full, long length) {
        this.full = full;
        this.length = length;
    }

    @Override
    public MemorySegment segment() {
        ensureLive();
        return full.asSlice(0, length);
    }

    @Override
    public long length() {
        return length;
    }

    @Override
    public void shrink(long newLength) {
        if (newLength < 0 || newLength > length) {
            throw new IllegalArgumentException("shrink " + length + " to " + newLength);
        }
        length = newLength;
    }

    @Override
    public IoMemory retain() {
        int r;
        do {
            r = refs.get();
            if (r <= 0) {
                throw new IllegalStateException("retain of released I/O memory");
            }
        } while (!refs.compareAndSet(r, r + 1));
        return this;
    }

    @Override
    public boolean release() {
        int r = refs.decrementAndGet();
        if (r < 0) {
            refs.incrementAndGet();
            throw new IllegalStateException("I/O memory released more often than retained");
        }
        if (r == 0) {
            deallocate();
            return true;
        }
        return false;
    }

    @Override
    public int refCount() {
        return refs.get();
    }

    /** The buffer as leased, before any shrink. */
    MemorySegment fullSegment() {
        return full;
    }

    private void ensureLive() {
        if (refs.get() <= 0) {
            throw new IllegalStateException("use of released I/O memory");
        }
    }

    abstract void deallocate();
}
