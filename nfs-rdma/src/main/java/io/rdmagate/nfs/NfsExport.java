package io.rdmagate.nfs;

import io.rdmagate.gateway.spi.config.ClientRule;
import io.rdmagate.gateway.spi.config.ExportConfig;
import io.rdmagate.vfs.VirtualFileSystem;
import java.net.InetAddress;
import java.util.Optional;

/**
 * One export as the NFS server sees it: its configuration (nfsPath, client rules), its filesystem,
 * and the small id that its wire handles carry so that several exports are told apart.
 *
 * @param id 0..255, the position of the export in the configuration
 */
public record NfsExport(int id, ExportConfig config, VirtualFileSystem fs) {
    public NfsExport {
        if (id < 0 || id > 255) {
            throw new IllegalArgumentException("export id " + id + " is not in 0..255");
        }
    }

    public String nfsPath() {
        return config.nfsPath();
    }

    /** The first client rule that matches {@code client}; empty when the client is refused. */
    public Optional<ClientRule> ruleFor(InetAddress client) {
        return config.ruleFor(client);
    }
}
