package io.rdmagate.nfs;

import io.rdmagate.vfs.ExportOptions;
import io.rdmagate.vfs.VirtualFileSystem;
import io.rdmagate.vfs.inmemory.InMemoryFileSystem;

/** The NFSv3 protocol tests over the in-memory vfs backend. */
class InMemoryNfs3Test extends AbstractNfs3Test {
    @Override
    VirtualFileSystem open(String name, int volumeId) {
        return InMemoryFileSystem.create(volumeId, ExportOptions.DEFAULT);
    }
}
