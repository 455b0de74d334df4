package io.rdmagate.vfs.memory;

import io.rdmagate.vfs.VfsError;
import io.rdmagate.vfs.VfsException;

/** No I/O memory could be leased within the pool's wait time; the caller may retry later. */
public final class PoolExhaustedException extends VfsException {
    private static final long serialVersionUID = 1L;

    public PoolExhaustedException(String message) {
        super(VfsError.NO_RESOURCES, message);
    }
}
