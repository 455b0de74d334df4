package io.rdmagate.gateway;

import io.rdmagate.gateway.spi.StartException;
import io.rdmagate.gateway.spi.config.ExportConfig;
import io.rdmagate.gateway.spi.config.GatewayConfig;
import io.rdmagate.vfs.VirtualFileSystem;
import io.rdmagate.vfs.local.LocalFileSystem;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The exports, opened on the local backend; closing them flushes their handle stores. */
final class OpenExports implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(OpenExports.class);
    /** The mode of an export directory the gateway creates: rwxrwxrwt. */
    static final int CREATED_MODE = 01777;

    private final Map<String, VirtualFileSystem> byName = new LinkedHashMap<>();
    private final Map<String, Path> paths = new LinkedHashMap<>();

    /**
     * @param createIfMissing which export directories to create when they do not exist (the
     *                        embedded default's ./data); for the others a missing directory is a
     *                        start error
     */
    static OpenExports open(GatewayConfig config, Predicate<ExportConfig> createIfMissing) throws StartException {
        OpenExports out = new OpenExports();
        try {
            for (ExportConfig e : config.exports()) {
                Path path = e.path().toAbsolutePath().normalize();
                if (!Files.exists(path) && createIfMissing.test(e)) {
                    Files.createDirectories(path);
                    // like /tmp: every user may create, each may remove or rename only their own
                    Files.setAttribute(path, "unix:mode", CREATED_MODE);
                    log.info("created export directory {} (mode {}: every user may create files; chmod it to restrict)",
                            path, Integer.toOctalString(CREATED_MODE));
                }
                if (!Files.isDirectory(path)) {
                    throw new StartException("export '" + e.name() + "': " + path
                            + (Files.exists(path) ? " is not a directory" : " does not exist"));
                }
                Path state = config.exportStateDir(e.name()).toAbsolutePath().normalize();
                VirtualFileSystem fs;
                try {
                    fs = LocalFileSystem.open(path, state, e.options());
                } catch (IOException | RuntimeException x) {
                    throw new StartException("export '" + e.name() + "' (" + path + ", state " + state
                            + ") cannot be opened: " + x.getMessage(), x);
                }
                out.byName.put(e.name(), fs);
                out.paths.put(e.name(), path);
                fs.getattr(fs.root());
                log.info("export {}: path {}, volume id {}, nfs {}, state {}", e.name(), path,
                        io.rdmagate.gateway.http.Health.Export.volumeIdText(fs.volumeId()), e.nfsPath(), state);
            }
            return out;
        } catch (StartException x) {
            out.close();
            throw x;
        } catch (IOException | io.rdmagate.vfs.VfsException | RuntimeException x) {
            out.close();
            throw new StartException("opening the exports failed: " + x.getMessage(), x);
        }
    }

    Map<String, VirtualFileSystem> byName() {
        return byName;
    }

    Path path(String name) {
        return paths.get(name);
    }

    @Override
    public void close() {
        byName.forEach((name, fs) -> {
            try {
                fs.close();
                log.info("export {} closed", name);
            } catch (RuntimeException x) {
                log.error("closing export {} failed", name, x);
            }
        });
        byName.clear();
    }
}
