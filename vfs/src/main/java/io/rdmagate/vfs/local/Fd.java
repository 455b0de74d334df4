package io.rdmagate.vfs.local;

/** A file descriptor this code opened (closed by {@link #close}), or one it borrows (the root). */
record Fd(int fd, boolean owned) implements AutoCloseable {
    static Fd owned(int fd) {
        return new Fd(fd, true);
    }

    static Fd borrowed(int fd) {
        return new Fd(fd, false);
    }

    @Override
    public void close() {
        if (owned) {
            Libc.close(fd);
        }
    }
}
