package io.rdmagate.vfs;

/** A registration of a {@link DirectoryListener}; closing it ends the feed. */
public interface DirectoryWatch extends AutoCloseable {
    @Override
    void close();
}
