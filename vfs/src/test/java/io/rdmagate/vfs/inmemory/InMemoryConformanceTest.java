package io.rdmagate.vfs.inmemory;

import io.rdmagate.vfs.AbstractVfsConformanceTest;
import io.rdmagate.vfs.ExportOptions;
import io.rdmagate.vfs.VirtualFileSystem;

/** The in-memory backend against the full vfs contract; "restart" reopens the same in-memory data. */
class InMemoryConformanceTest extends AbstractVfsConformanceTest {
    private static final int VOLUME = 0x1d_4e_55;

    @Override
    protected VirtualFileSystem open(ExportOptions options) {
        return InMemoryFileSystem.create(VOLUME, options);
    }

    @Override
    protected VirtualFileSystem restart(VirtualFileSystem old) {
        return ((InMemoryFileSystem) old).reopen();
    }
}
