package io.rdmagate.nfs;

import io.rdmagate.vfs.ExportOptions;
import io.rdmagate.vfs.VirtualFileSystem;
import io.rdmagate.vfs.local.LocalFileSystem;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;

/** The NFSv3 protocol tests over the local POSIX directory backend (real files in a temporary directory). */
class LocalNfs3Test extends AbstractNfs3Test {
    @TempDir
    Path dir;

    @Override
    VirtualFileSystem open(String name, int volumeId) throws Exception {
        Path root = Files.createDirectories(dir.resolve(name));
        Files.setPosixFilePermissions(root, java.nio.file.attribute.PosixFilePermissions.fromString("rwxr-xr-x"));
        return LocalFileSystem.open(root, dir.resolve("state-" + name), ExportOptions.DEFAULT);
    }
}
