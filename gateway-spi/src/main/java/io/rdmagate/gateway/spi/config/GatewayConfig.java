package io.rdmagate.gateway.spi.config;

import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * The whole configuration, as read from one YAML file by {@link ConfigParser}.
 *
 * @param source   the file it was read from (for messages)
 * @param stateDir where handle stores live, one directory per export: stateDir/exports/NAME
 * @param security how clients authenticate beyond AUTH_SYS and NTLMv2 (Kerberos)
 */
public record GatewayConfig(String source, Path stateDir, HttpConfig http, List<ExportConfig> exports,
        List<ShareConfig> shares, SmbConfig smb, List<UserEntry> users, TransportsConfig transports,
        LimitsConfig limits, RdmaConfig rdma, SecurityConfig security) {

    public GatewayConfig {
        exports = List.copyOf(exports);
        shares = List.copyOf(shares);
        users = List.copyOf(users);
    }

    public Optional<ExportConfig> export(String name) {
        return exports.stream().filter(e -> e.name().equals(name)).findFirst();
    }

    public Path exportStateDir(String exportName) {
        return stateDir.resolve("exports").resolve(exportName);
    }

    /** The same configuration with the first export's path replaced (the {@code --export} option). */
    public GatewayConfig withFirstExportPath(Path path) {
        List<ExportConfig> e = new java.util.ArrayList<>(exports);
        e.set(0, e.get(0).withPath(path));
        return new GatewayConfig(source, stateDir, http, e, shares, smb, users, transports, limits, rdma, security);
    }

    public GatewayConfig withStateDir(Path dir) {
        return new GatewayConfig(source, dir, http, exports, shares, smb, users, transports, limits, rdma, security);
    }

    public GatewayConfig withUsers(List<UserEntry> u) {
        return new GatewayConfig(source, stateDir, http, exports, shares, smb, u, transports, limits, rdma, security);
    }

    public GatewayConfig withHttp(HttpConfig h) {
        return new GatewayConfig(source, stateDir, h, exports, shares, smb, users, transports, limits, rdma, security);
    }
}
