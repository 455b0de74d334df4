package io.rdmagate.vfs.local;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * An open descriptor for the data of one file generation, shared by concurrent reads and writes
 * (pread/pwrite need no shared position) and closed when the cache drops it and the last user
 * releases it.
 */
final class DataFd {
    final int fd;
    final long generation;
    final boolean writable;
    private final AtomicInteger refs = new AtomicInteger(1);

    DataFd(int fd, long generation, boolean writable) {
        this.fd = fd;
        this.generation = generation;
        this.writable = writable;
    }

    boolean acquire() {
        int r;
        do {
            r = refs.get();
            if (r <= 0) {
                return false;
            }
        } while (!refs.compareAndSet(r, r + 1));
        return true;
    }

    void release() {
        if (refs.decrementAndGet() == 0) {
            Libc.close(fd);
        }
    }
}
