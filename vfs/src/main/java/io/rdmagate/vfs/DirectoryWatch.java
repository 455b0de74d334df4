package io.rdmagate.vfs;

/** A registration of a {@link DirectoryListener}; closing it ends the feed. */
public interface DirectoryWatch extends AutoCloseable {
    @Override
    void close();

    /**
     * Returns once the listener has been handed every change made before the call (by this
     * process or any other), so that a protocol answering "what changed" after an operation of
     * its own sees that operation's change. Blocks the caller briefly; never call it from a listener.
     */
    default void settle() {
    }
}
