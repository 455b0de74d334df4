package io.rdmagate.gateway.spi.config;

import io.rdmagate.vfs.ExportOptions;
import java.net.InetAddress;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * One exported directory tree.
 *
 * @param nfsPath the path NFS clients mount ("/" + name unless set)
 * @param sync    NFS replies to a change of the namespace or of attributes only once it is on stable
 *                storage, as the protocols ask (knfsd's {@code sync}); false answers before (its {@code async})
 * @param clients rules in order; the first that matches a client decides, none means refused
 */
public record ExportConfig(String name, Path path, String nfsPath, boolean readOnly, boolean caseInsensitive,
        int mapReadThreshold, boolean sync, List<ClientRule> clients) {

    public ExportConfig {
        clients = List.copyOf(clients);
    }

    /** The rule that applies to a client, or empty if the client is refused. */
    public Optional<ClientRule> ruleFor(InetAddress client) {
        for (ClientRule r : clients) {
            if (r.match().matches(client)) {
                return Optional.of(r);
            }
        }
        return Optional.empty();
    }

    public ExportOptions options() {
        return new ExportOptions(readOnly, caseInsensitive, mapReadThreshold);
    }

    public ExportConfig withPath(Path newPath) {
        return new ExportConfig(name, newPath, nfsPath, readOnly, caseInsensitive, mapReadThreshold, sync, clients);
    }
}
