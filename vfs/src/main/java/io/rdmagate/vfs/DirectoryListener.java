package io.rdmagate.vfs;

/**
 * Receives the changes of a watched directory, on a thread of the vfs, one at a time. It must
 * not block or call back into the vfs; protocols hand the change on and return.
 */
@FunctionalInterface
public interface DirectoryListener {
    /** {@code name} is the entry's name in the directory ("" for {@link DirectoryChange#OVERFLOW}). */
    void changed(DirectoryChange change, String name);
}
