package io.rdmagate.gateway.config;

import io.rdmagate.gateway.spi.config.AddressMatch;
import io.rdmagate.gateway.spi.config.ClientRule;
import io.rdmagate.gateway.spi.config.ExportConfig;
import io.rdmagate.gateway.spi.config.GatewayConfig;
import io.rdmagate.gateway.spi.config.HttpConfig;
import io.rdmagate.gateway.spi.config.KerberosConfig;
import io.rdmagate.gateway.spi.config.LimitsConfig;
import io.rdmagate.gateway.spi.config.Port;
import io.rdmagate.gateway.spi.config.RdmaConfig;
import io.rdmagate.gateway.spi.config.SecurityConfig;
import io.rdmagate.gateway.spi.config.ShareConfig;
import io.rdmagate.gateway.spi.config.SmbConfig;
import io.rdmagate.gateway.spi.config.TransportsConfig;
import io.rdmagate.gateway.spi.config.UserEntry;
import io.rdmagate.vfs.memory.PoolLimits;
import java.io.IOException;
import java.io.InputStream;
import java.io.StringReader;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.error.MarkedYAMLException;
import org.yaml.snakeyaml.error.YAMLException;
import org.yaml.snakeyaml.nodes.Node;

/**
 * Reads the one configuration file. SnakeYAML only composes the node tree (no object binding);
 * this class walks it, so every refusal names the file and the line: YAML syntax, unknown or
 * duplicate keys, wrong types, bad addresses, sizes, durations and ports, duplicate names, a
 * share on an unknown export, pool limits that {@link PoolLimits} refuses.
 */
public final class ConfigParser {
    /** The embedded default configuration, also the reference example. */
    public static final String DEFAULT_RESOURCE = "rdmagate-default.yaml";
    public static final String DEFAULT_SOURCE = "embedded:" + DEFAULT_RESOURCE;

    private static final Pattern EXPORT_NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,63}");
    private static final Pattern SHARE_NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._$-]{0,79}");
    private static final Pattern USER_NAME = Pattern.compile("[A-Za-z0-9_][A-Za-z0-9._-]{0,63}");
    private static final Pattern NT_HASH = Pattern.compile("[0-9A-Fa-f]{32}");
    private static final long MAX_INT = Integer.MAX_VALUE;

    private ConfigParser() {
    }

    public static boolean isValidUserName(String name) {
        return USER_NAME.matcher(name).matches();
    }

    public static GatewayConfig parse(Path file) throws ConfigException, IOException {
        return parse(file.toString(), Files.readString(file, StandardCharsets.UTF_8));
    }

    public static GatewayConfig parseDefault() throws ConfigException {
        return parse(DEFAULT_SOURCE, defaultText());
    }

    public static String defaultText() {
        try (InputStream in = ConfigParser.class.getClassLoader().getResourceAsStream(DEFAULT_RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException(DEFAULT_RESOURCE + " is missing from the class path");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new IllegalStateException("cannot read " + DEFAULT_RESOURCE, e);
        }
    }

    /** @param source the name used in messages (a file path) */
    public static GatewayConfig parse(String source, String text) throws ConfigException {
        Node root;
        try {
            root = new Yaml(new LoaderOptions()).compose(new StringReader(text));
        } catch (MarkedYAMLException e) {
            var mark = e.getProblemMark() != null ? e.getProblemMark() : e.getContextMark();
            throw new ConfigException(source, mark == null ? 1 : mark.getLine() + 1,
                    "YAML syntax: " + (e.getProblem() != null ? e.getProblem() : e.getContext()));
        } catch (YAMLException e) {
            throw new ConfigException(source, 1, "YAML: " + e.getMessage());
        }
        return new ConfigParser.Walk(YamlMap.of(source, root, "the top level")).config();
    }

    /** One pass over one document. */
    private record Walk(YamlMap top) {
        GatewayConfig config() throws ConfigException {
            Path stateDir = path(top, "stateDir", "./state");
            HttpConfig http = http(top.map("http"));
            List<ExportConfig> exports = exports();
            List<ShareConfig> shares = shares(exports);
            SmbConfig smb = smb(top.map("smb"));
            List<UserEntry> users = users();
            TransportsConfig transports = transports(top.map("transports"));
            LimitsConfig limits = limits(top.map("limits"));
            RdmaConfig rdma = rdma(top.map("rdma"));
            SecurityConfig security = security(top.map("security"));
            top.finish("stateDir", "http", "exports", "shares", "smb", "users", "transports", "limits", "rdma", "security");
            if (security.kerberos() == null) {
                for (ExportConfig e : exports) {
                    for (ClientRule r : e.clients()) {
                        if (r.sec().stream().anyMatch(ClientRule.Sec::kerberos)) {
                            throw top.error(top.lineOf("exports"), "export '" + e.name() + "' allows Kerberos, but"
                                    + " security.kerberos is not set: NFS has no Kerberos");
                        }
                    }
                }
                for (ShareConfig s : shares) {
                    if (!s.ntlm()) {
                        throw top.error(top.lineOf("shares"), "share '" + s.name() + "' allows only krb5 logons, but"
                                + " security.kerberos is not set: SMB has no Kerberos");
                    }
                }
            }
            return new GatewayConfig(top.file(), stateDir, http, exports, shares, smb, users, transports, limits, rdma,
                    security);
        }

        private Path path(YamlMap m, String key, String def) throws ConfigException {
            int line = m.lineOf(key);
            String s = def == null ? m.requiredString(key) : m.string(key, def);
            if (s.isBlank()) {
                throw m.error(line, key + " must not be empty");
            }
            try {
                return Path.of(s).normalize();
            } catch (InvalidPathException e) {
                throw m.error(line, key + " '" + s + "' is not a valid path: " + e.getReason());
            }
        }

        private HttpConfig http(YamlMap m) throws ConfigException {
            InetAddress address = address(m, "http", "127.0.0.1");
            int port = (int) m.integer("port", HttpConfig.DEFAULT_PORT, 0, 65535);
            int maxConnections = (int) m.integer("maxConnections", HttpConfig.DEFAULT_MAX_CONNECTIONS, 1, 65_536);
            Duration requestTimeout = bounded(m, "requestTimeout", HttpConfig.DEFAULT_REQUEST_TIMEOUT,
                    Duration.ofSeconds(1), Duration.ofHours(1));
            m.finish("address", "port", "maxConnections", "requestTimeout");
            return new HttpConfig(address, port, maxConnections, requestTimeout);
        }

        /** An IP address literal (or "localhost"); {@code dflt} null: absent means null (every interface). */
        private static InetAddress address(YamlMap m, String where, String dflt) throws ConfigException {
            String a = m.string("address", dflt);
            if (a == null) {
                return null;
            }
            int line = m.lineOf("address");
            try {
                return a.equals("localhost") ? InetAddress.getLoopbackAddress() : InetAddress.ofLiteral(a);
            } catch (IllegalArgumentException e) {
                throw m.error(line, where + ".address '" + a + "' is not an IP address");
            }
        }

        private List<ExportConfig> exports() throws ConfigException {
            int line = top.lineOf("exports");
            List<Node> nodes = top.list("exports");
            if (nodes.isEmpty()) {
                throw top.error(line, "no exports: the gateway needs at least one under 'exports:'");
            }
            List<ExportConfig> out = new ArrayList<>();
            Map<String, Integer> names = new HashMap<>();
            Map<String, Integer> nfsPaths = new HashMap<>();
            for (Node n : nodes) {
                YamlMap m = YamlMap.of(top.file(), n, "an export");
                String name = name(m, EXPORT_NAME, "export", names, false);
                Path path = path(m, "path", null);
                int nfsLine = m.lineOf("nfsPath");
                String nfsPath = m.string("nfsPath", "/" + name);
                if (!nfsPath.startsWith("/") || !Path.of(nfsPath).normalize().toString().equals(nfsPath)
                        || nfsPath.contains("..")) {
                    throw m.error(nfsLine, "nfsPath '" + nfsPath + "' must be an absolute, normalized path like /"
                            + name);
                }
                unique(m, nfsLine, nfsPaths, nfsPath, "nfsPath");
                boolean readOnly = m.bool("readOnly", false);
                boolean caseInsensitive = m.bool("caseInsensitive", false);
                int mapRead = (int) m.size("mapReadThreshold", 0, 0, MAX_INT);
                boolean sync = m.bool("sync", true);
                List<ClientRule> clients = clients(m);
                m.finish("name", "path", "nfsPath", "readOnly", "caseInsensitive", "mapReadThreshold", "sync",
                        "clients");
                out.add(new ExportConfig(name, path, nfsPath, readOnly, caseInsensitive, mapRead, sync, clients));
            }
            return out;
        }

        private List<ClientRule> clients(YamlMap export) throws ConfigException {
            int line = export.lineOf("clients");
            List<Node> nodes = export.list("clients");
            if (nodes.isEmpty()) {
                throw export.error(line, "export needs 'clients:' rules; for everyone write"
                        + " clients: [{match: \"*\"}]");
            }
            List<ClientRule> out = new ArrayList<>();
            for (Node n : nodes) {
                YamlMap m = YamlMap.of(top.file(), n, "a client rule");
                int matchLine = m.lineOf("match");
                AddressMatch match;
                try {
                    match = AddressMatch.parse(m.requiredString("match"));
                } catch (IllegalArgumentException e) {
                    throw m.error(matchLine, "match: " + e.getMessage());
                }
                int accessLine = m.lineOf("access");
                String access = m.string("access", "rw").toLowerCase(Locale.ROOT);
                if (!access.equals("rw") && !access.equals("ro")) {
                    throw m.error(accessLine, "access must be rw or ro, found '" + access + "'");
                }
                boolean rootSquash = m.bool("rootSquash", true);
                boolean allSquash = m.bool("allSquash", false);
                int anonUid = (int) m.integer("anonUid", 65534, 0, MAX_INT);
                int anonGid = (int) m.integer("anonGid", 65534, 0, MAX_INT);
                boolean secure = m.bool("secure", true);
                int secLine = m.lineOf("sec");
                List<ClientRule.Sec> sec = new ArrayList<>();
                for (Node s : m.list("sec")) {
                    String v = m.scalar(s, "sec");
                    ClientRule.Sec f = switch (v) {
                        case "sys" -> ClientRule.Sec.SYS;
                        case "krb5" -> ClientRule.Sec.KRB5;
                        case "krb5i" -> ClientRule.Sec.KRB5I;
                        case "krb5p" -> ClientRule.Sec.KRB5P;
                        default -> throw m.error(secLine, "a client rule's sec may hold sys, krb5, krb5i and krb5p,"
                                + " found '" + v + "'");
                    };
                    if (!sec.contains(f)) {
                        sec.add(f);
                    }
                }
                if (sec.isEmpty()) {
                    sec.add(ClientRule.Sec.SYS);
                }
                m.finish("match", "access", "rootSquash", "allSquash", "anonUid", "anonGid", "secure", "sec");
                out.add(new ClientRule(match, access.equals("rw") ? ClientRule.Access.RW : ClientRule.Access.RO,
                        rootSquash, allSquash, anonUid, anonGid, secure, sec));
            }
            return out;
        }

        private List<ShareConfig> shares(List<ExportConfig> exports) throws ConfigException {
            List<ShareConfig> out = new ArrayList<>();
            Map<String, Integer> names = new HashMap<>();
            for (Node n : top.list("shares")) {
                YamlMap m = YamlMap.of(top.file(), n, "a share");
                String name = name(m, SHARE_NAME, "share", names, true);
                int exportLine = m.lineOf("export");
                String export = m.requiredString("export");
                if (exports.stream().noneMatch(e -> e.name().equals(export))) {
                    throw m.error(exportLine, "share '" + name + "' refers to export '" + export
                            + "', which is not defined under 'exports:'");
                }
                int pathLine = m.lineOf("path");
                String path = m.string("path", "");
                String trimmed = path.replaceAll("^/+|/+$", "");
                for (String part : trimmed.split("/")) {
                    if (part.equals("..") || part.equals(".") || (part.isEmpty() && !trimmed.isEmpty())) {
                        throw m.error(pathLine, "share path '" + path + "' must be a plain directory path inside"
                                + " the export (no '.', '..' or empty parts)");
                    }
                }
                boolean readOnly = m.bool("readOnly", false);
                boolean guestOk = m.bool("guestOk", false);
                boolean encrypt = m.bool("encrypt", false);
                int secLine = m.lineOf("sec");
                java.util.Set<String> sec = new java.util.HashSet<>();
                for (Node s : m.list("sec")) {
                    String v = m.scalar(s, "sec");
                    if (!v.equals("ntlm") && !v.equals("krb5")) {
                        throw m.error(secLine, "a share's sec may hold ntlm and krb5, found '" + v + "'");
                    }
                    sec.add(v);
                }
                if (sec.isEmpty()) {
                    sec = java.util.Set.of("ntlm", "krb5");
                }
                m.finish("name", "export", "path", "readOnly", "guestOk", "encrypt", "sec");
                out.add(new ShareConfig(name, export, trimmed, readOnly, guestOk, encrypt, sec.contains("ntlm"),
                        sec.contains("krb5")));
            }
            return out;
        }

        private SmbConfig smb(YamlMap m) throws ConfigException {
            boolean signing = m.bool("signingRequired", false);
            boolean encrypt = m.bool("encryptAll", false);
            int guestLine = m.lineOf("guestAccount");
            String guest = m.string("guestAccount", null);
            if (guest != null && !USER_NAME.matcher(guest).matches()) {
                throw m.error(guestLine, "guestAccount '" + guest + "' is not a valid user name");
            }
            SmbConfig d = SmbConfig.DEFAULT;
            int credits = (int) m.integer("maxCredits", d.maxCredits(), 16, 65535);
            int inFlight = (int) m.integer("maxInFlight", d.maxInFlight(), 1, 4096);
            int async = (int) m.integer("maxAsyncRequests", d.maxAsyncRequests(), 1, 65535);
            Duration breakTimeout = bounded(m, "oplockBreakTimeout", d.oplockBreakTimeout(), Duration.ofMillis(1),
                    Duration.ofMinutes(10));
            Duration durable = bounded(m, "durableTimeout", d.durableTimeout(), Duration.ofSeconds(1), Duration.ofHours(1));
            Duration durableMax = bounded(m, "durableMaxTimeout", d.durableMaxTimeout(), durable, Duration.ofHours(24));
            Duration handshake = bounded(m, "handshakeTimeout", d.handshakeTimeout(), Duration.ofSeconds(1),
                    Duration.ofMinutes(10));
            int idleLine = m.lineOf("idleTimeout");
            Duration idle = m.duration("idleTimeout", d.idleTimeout());
            if (idle.isNegative() || !idle.isZero() && idle.compareTo(Duration.ofSeconds(1)) < 0) {
                throw m.error(idleLine, "smb.idleTimeout must be 0 (never) or at least 1s");
            }
            int handshakeMessage = (int) m.size("maxHandshakeMessageSize", d.maxHandshakeMessageSize(), 4096, 16 << 20);
            boolean multichannel = m.bool("multichannel", d.multichannel().enabled());
            int maxChannels = (int) m.integer("maxChannelsPerSession", d.multichannel().maxChannels(), 1, 1024);
            List<SmbConfig.Interface> interfaces = new ArrayList<>();
            for (Node n : m.list("interfaces")) {
                YamlMap i = YamlMap.of(top.file(), n, "an SMB interface");
                InetAddress a = address(i, "smb.interfaces[]", null);
                if (a == null) {
                    throw i.error(i.lineOf("address"), "an SMB interface needs an address");
                }
                long speed = i.integer("linkSpeedMbps", 10_000, 1, 10_000_000) * 1_000_000L;
                boolean rdma = i.bool("rdma", false);
                i.finish("address", "linkSpeedMbps", "rdma");
                interfaces.add(new SmbConfig.Interface(a, speed, rdma));
            }
            m.finish("signingRequired", "encryptAll", "guestAccount", "maxCredits", "maxInFlight", "maxAsyncRequests",
                    "oplockBreakTimeout",
                    "durableTimeout", "durableMaxTimeout", "handshakeTimeout", "idleTimeout", "maxHandshakeMessageSize",
                    "multichannel", "maxChannelsPerSession", "interfaces");
            return new SmbConfig(signing, encrypt, guest, credits, inFlight, breakTimeout, durable, durableMax,
                    handshake, idle, handshakeMessage, new SmbConfig.Multichannel(multichannel, maxChannels, interfaces),
                    async);
        }

        /**
         * transports.nfs.versions: "3", "4.0", "4.1" and "4.2", all by default (a Linux client's plain
         * mount negotiates NFSv4.2, macOS speaks NFSv4.0); NFSv3 cannot be left out (MOUNT and NLM serve
         * it), and NFSv4.2 builds on NFSv4.1's sessions and state, so it comes with 4.1.
         */
        private static java.util.Set<String> nfsVersions(YamlMap nfs) throws ConfigException {
            int line = nfs.lineOf("versions");
            java.util.Set<String> out = new java.util.LinkedHashSet<>();
            List<Node> nodes = nfs.list("versions");
            if (nodes.isEmpty()) {
                return java.util.Set.of("3", "4.0", "4.1", "4.2");
            }
            for (Node n : nodes) {
                String v = nfs.scalar(n, "versions");
                if (!v.equals("3") && !v.equals("4.0") && !v.equals("4.1") && !v.equals("4.2")) {
                    throw nfs.error(line, "transports.nfs.versions may hold 3, 4.0, 4.1 and 4.2, found '" + v + "'");
                }
                out.add(v);
            }
            if (!out.contains("3")) {
                throw nfs.error(line, "transports.nfs.versions must hold 3 (MOUNT and NLM serve NFSv3 clients)");
            }
            if (out.contains("4.2") && !out.contains("4.1")) {
                throw nfs.error(line, "transports.nfs.versions: 4.2 needs 4.1 (NFSv4.2 is NFSv4.1's sessions and state"
                        + " with more operations)");
            }
            return java.util.Set.copyOf(out);
        }

        private static TransportsConfig.Nfs4 nfs4(YamlMap m) throws ConfigException {
            TransportsConfig.Nfs4 d = TransportsConfig.Nfs4.DEFAULT;
            Duration lease = bounded(m, "leaseTime", d.leaseTime(), Duration.ofSeconds(10), Duration.ofHours(1));
            int clients = (int) m.integer("maxClients", d.maxClients(), 1, 1 << 20);
            int sessions = (int) m.integer("maxSessions", d.maxSessions(), 1, 1 << 20);
            int slots = (int) m.integer("maxSlots", d.maxSlots(), 1, 1024);
            int ops = (int) m.integer("maxOperations", d.maxOperations(), 8, 1024);
            int cached = (int) m.size("maxCachedReply", d.maxCachedReply(), 512, 1 << 20);
            Duration grace = bounded(m, "graceTime", d.graceTime(), Duration.ZERO, Duration.ofHours(1));
            int delegations = (int) m.integer("maxDelegations", d.maxDelegations(), 0, 1 << 24);
            String domain = m.string("idmapDomain", d.idmapDomain());
            if (!domain.isEmpty() && !domain.matches("[A-Za-z0-9]([A-Za-z0-9.-]{0,252}[A-Za-z0-9])?")) {
                throw m.error(m.lineOf("idmapDomain"), "transports.nfs.v4.idmapDomain must be a DNS domain, found '"
                        + domain + "'");
            }
            long copy = m.size("maxCopy", d.maxCopy(), 4096, 1L << 40);
            m.finish("leaseTime", "maxClients", "maxSessions", "maxSlots", "maxOperations", "maxCachedReply", "graceTime",
                    "maxDelegations", "idmapDomain", "maxCopy");
            return new TransportsConfig.Nfs4(lease, clients, sessions, slots, ops, cached, grace, delegations, domain,
                    copy);
        }

        private static TransportsConfig.SmbDirect smbDirect(YamlMap m) throws ConfigException {
            TransportsConfig.SmbDirect d = TransportsConfig.SmbDirect.DEFAULT;
            boolean enabled = m.bool("enabled", d.enabled());
            int receive = (int) m.integer("receiveCredits", d.receiveCredits(), 2, 1024);
            int send = (int) m.integer("sendCredits", d.sendCredits(), 2, 1024);
            int fragmented = (int) m.size("maxFragmentedSize", d.maxFragmentedSize(), 131072, 16 << 20);
            int readWrite = (int) m.size("maxReadWriteSize", d.maxReadWriteSize(), 65536, 16 << 20);
            Duration negotiate = bounded(m, "negotiateTimeout", d.negotiateTimeout(), Duration.ofMillis(100),
                    Duration.ofMinutes(2));
            Duration keepalive = bounded(m, "keepaliveInterval", d.keepaliveInterval(), Duration.ofSeconds(1),
                    Duration.ofHours(1));
            m.finish("enabled", "receiveCredits", "sendCredits", "maxFragmentedSize", "maxReadWriteSize",
                    "negotiateTimeout", "keepaliveInterval");
            return new TransportsConfig.SmbDirect(enabled, receive, send, fragmented, readWrite, negotiate, keepalive);
        }

        private static Duration bounded(YamlMap m, String key, Duration dflt, Duration min, Duration max)
                throws ConfigException {
            int line = m.lineOf(key);
            Duration v = m.duration(key, dflt);
            if (v.compareTo(min) < 0 || v.compareTo(max) > 0) {
                throw m.error(line, key + " " + v + " outside " + min + ".." + max);
            }
            return v;
        }

        private List<UserEntry> users() throws ConfigException {
            List<UserEntry> out = new ArrayList<>();
            Map<String, Integer> names = new HashMap<>();
            for (Node n : top.list("users")) {
                YamlMap m = YamlMap.of(top.file(), n, "a user");
                String name = name(m, USER_NAME, "user", names, true);
                int uid = (int) m.integer("uid", -1, 0, MAX_INT);
                int gid = (int) m.integer("gid", -1, 0, MAX_INT);
                if (uid < 0 || gid < 0) {
                    throw m.error(m.line(), "user '" + name + "' needs 'uid' and 'gid'");
                }
                int hashLine = m.lineOf("ntHash");
                String hash = m.requiredString("ntHash");
                if (!NT_HASH.matcher(hash).matches()) {
                    throw m.error(hashLine, "ntHash of user '" + name + "' must be 32 hex digits"
                            + " (use 'rdmagate user add' to set it; passwords are never stored)");
                }
                m.finish("name", "uid", "gid", "ntHash");
                out.add(new UserEntry(name, uid, gid, hash.toUpperCase(Locale.ROOT)));
            }
            return out;
        }

        private TransportsConfig transports(YamlMap m) throws ConfigException {
            YamlMap nfs = m.map("nfs");
            var nfsT = new TransportsConfig.Nfs(nfs.bool("enabled", true), address(nfs, "transports.nfs", null),
                    nfs.port("port", 2049), nfs.port("rdmaPort", 20049), nfs.port("mountPort", 20048),
                    nfs.port("nlmPort", 32803), nfs.port("nsmPort", 32765), nfsVersions(nfs), nfs4(nfs.map("v4")));
            nfs.finish("enabled", "address", "port", "rdmaPort", "mountPort", "nlmPort", "nsmPort", "versions", "v4");
            YamlMap rpc = m.map("rpcbind");
            Port rpcPort = rpc.port("port", 111);
            int modeLine = rpc.lineOf("mode");
            String mode = rpc.string("mode", "auto").toUpperCase(Locale.ROOT);
            TransportsConfig.Rpcbind.Mode rpcMode;
            try {
                rpcMode = TransportsConfig.Rpcbind.Mode.valueOf(mode);
            } catch (IllegalArgumentException e) {
                throw rpc.error(modeLine, "rpcbind.mode must be auto, embedded, system or off, found '"
                        + mode.toLowerCase(Locale.ROOT) + "'");
            }
            int maxMappings = (int) rpc.integer("maxMappings", TransportsConfig.Rpcbind.DEFAULT_MAX_MAPPINGS, 16, 1 << 20);
            rpc.finish("port", "mode", "maxMappings");
            YamlMap smb = m.map("smb");
            var smbT = new TransportsConfig.Smb(smb.bool("enabled", true), address(smb, "transports.smb", null),
                    smb.port("port", 445), smb.port("directPort", 5445), smbDirect(smb.map("direct")));
            smb.finish("enabled", "address", "port", "directPort", "direct");
            m.finish("nfs", "rpcbind", "smb");
            return new TransportsConfig(nfsT, new TransportsConfig.Rpcbind(rpcPort, rpcMode, maxMappings), smbT);
        }

        /**
         * security.kerberos: keytab and realm are needed; smbPrincipal and nfsPrincipal default to
         * cifs/FQDN@REALM and nfs/FQDN@REALM of this host, resolved at start.
         */
        private SecurityConfig security(YamlMap m) throws ConfigException {
            int kLine = m.lineOf("kerberos");
            YamlMap k = m.map("kerberos");
            m.finish("kerberos");
            if (k.keys().isEmpty()) {
                return SecurityConfig.DEFAULT;
            }
            Path keytab = path(k, "keytab", null);
            int realmLine = k.lineOf("realm");
            String realm = k.requiredString("realm");
            if (!realm.matches("[A-Za-z0-9._-]+")) {
                throw k.error(realmLine, "security.kerberos.realm '" + realm + "' is not a realm name (EXAMPLE.COM)");
            }
            Path krb5Conf = path(k, "krb5Conf", "/etc/krb5.conf");
            String smbPrincipal = principal(k, "smbPrincipal", "cifs", realm);
            String nfsPrincipal = principal(k, "nfsPrincipal", "nfs", realm);
            java.util.Map<String, String> idmap = new java.util.LinkedHashMap<>();
            int idLine = k.lineOf("idmap");
            YamlMap ids = k.map("idmap");
            for (String principal : ids.keys()) {
                String v = ids.string(principal, "");
                if (!principal.contains("@") || !io.rdmagate.gateway.spi.security.KerberosIdentities.validIdmapValue(v)) {
                    throw ids.error(idLine, "security.kerberos.idmap maps user@REALM to a local user name or uid:gid,"
                            + " found '" + principal + ": " + v + "'");
                }
                idmap.put(principal, v);
            }
            int maxContexts = (int) k.integer("maxContexts", KerberosConfig.DEFAULT_MAX_CONTEXTS, 1, 1 << 20);
            int idleLine = k.lineOf("contextIdle");
            Duration idle = k.duration("contextIdle", KerberosConfig.DEFAULT_CONTEXT_IDLE);
            if (idle.isZero() || idle.isNegative()) {
                throw k.error(idleLine, "security.kerberos.contextIdle must be positive");
            }
            k.finish("keytab", "realm", "krb5Conf", "smbPrincipal", "nfsPrincipal", "idmap", "maxContexts", "contextIdle");
            return new SecurityConfig(new KerberosConfig(keytab, realm, krb5Conf, smbPrincipal, nfsPrincipal, idmap,
                    maxContexts, idle));
        }

        /** A service principal SERVICE/HOST[@REALM], with the realm added when left out. */
        private static String principal(YamlMap k, String key, String service, String realm) throws ConfigException {
            int line = k.lineOf(key);
            String p = k.string(key, null);
            if (p == null) {
                return null;
            }
            if (!p.matches(service + "/[A-Za-z0-9._-]+(@[A-Za-z0-9._-]+)?")) {
                throw k.error(line, "security.kerberos." + key + " must be " + service + "/HOST or " + service
                        + "/HOST@REALM, found '" + p + "'");
            }
            return p.contains("@") ? p : p + "@" + realm;
        }

        private RdmaConfig rdma(YamlMap m) throws ConfigException {
            RdmaConfig d = RdmaConfig.DEFAULT;
            int providerLine = m.lineOf("provider");
            String p = m.string("provider", "auto");
            RdmaConfig.Provider provider = switch (p) {
                case "auto" -> RdmaConfig.Provider.AUTO;
                case "soft" -> RdmaConfig.Provider.SOFT;
                case "verbs" -> throw m.error(providerLine,
                        "rdma.provider verbs: this build has no hardware verbs provider; use auto or soft");
                default -> throw m.error(providerLine, "rdma.provider must be auto or soft, not '" + p + "'");
            };
            int maxConnections = (int) m.integer("maxConnections", d.maxConnections(), 1, 65_536);
            int maxPending = (int) m.integer("maxPendingHandshakes", d.maxPendingHandshakes(), 1, 65_536);
            int timeoutLine = m.lineOf("handshakeTimeout");
            Duration timeout = m.duration("handshakeTimeout", d.handshakeTimeout());
            if (timeout.isZero() || timeout.isNegative()) {
                throw m.error(timeoutLine, "rdma.handshakeTimeout must be positive");
            }
            m.finish("provider", "maxConnections", "maxPendingHandshakes", "handshakeTimeout");
            return new RdmaConfig(provider, maxConnections, maxPending, timeout);
        }

        private LimitsConfig limits(YamlMap m) throws ConfigException {
            int poolLine = m.lineOf("pool");
            YamlMap p = m.map("pool");
            PoolLimits d = PoolLimits.DEFAULT;
            long maxBytes = p.size("maxBytes", d.maxBytes(), 1, Long.MAX_VALUE);
            long perClient = p.size("perClientBytes", d.maxBytesPerAccount(), 1, Long.MAX_VALUE);
            int slab = (int) p.size("slabBytes", d.slabBytes(), 1, MAX_INT);
            int minBuf = (int) p.size("minBufferBytes", d.minBufferBytes(), 1, MAX_INT);
            int maxBuf = (int) p.size("maxBufferBytes", d.maxBufferBytes(), 1, MAX_INT);
            Duration wait = p.duration("leaseWait", d.leaseWait());
            p.finish("maxBytes", "perClientBytes", "slabBytes", "minBufferBytes", "maxBufferBytes", "leaseWait");
            PoolLimits pool;
            try {
                pool = new PoolLimits(maxBytes, perClient, slab, minBuf, maxBuf, wait);
            } catch (IllegalArgumentException e) {
                throw m.error(poolLine, "limits.pool: " + e.getMessage());
            }
            int maxConnections = (int) m.integer("maxConnections", 1024, 1, 1_000_000);
            int perAddress = (int) m.integer("maxConnectionsPerAddress", Math.min(512, maxConnections), 1, 1_000_000);
            int ioLine = m.lineOf("maxIoSize");
            int maxIo = (int) m.size("maxIoSize", 1 << 20, 4096, MAX_INT);
            if (maxIo > pool.maxBufferBytes()) {
                throw m.error(ioLine, "maxIoSize " + Sizes.format(maxIo) + " is larger than limits.pool.maxBufferBytes "
                        + Sizes.format(pool.maxBufferBytes()) + ", the largest I/O buffer");
            }
            int recordLine = m.lineOf("maxRecordSize");
            int maxRecord = (int) m.size("maxRecordSize", maxIo + (64 << 10), 1, MAX_INT);
            if (maxRecord <= maxIo) {
                throw m.error(recordLine, "maxRecordSize " + Sizes.format(maxRecord) + " must be larger than maxIoSize "
                        + Sizes.format(maxIo) + " (a WRITE carries headers beside its data)");
            }
            int recordTimeoutLine = m.lineOf("recordTimeout");
            Duration recordTimeout = m.duration("recordTimeout", Duration.ofMinutes(2));
            if (recordTimeout.isNegative() || !recordTimeout.isZero() && recordTimeout.compareTo(Duration.ofSeconds(1)) < 0) {
                throw m.error(recordTimeoutLine, "limits.recordTimeout must be 0 (never) or at least 1s");
            }
            int sendTimeoutLine = m.lineOf("sendTimeout");
            Duration sendTimeout = m.duration("sendTimeout", Duration.ofMinutes(2));
            if (sendTimeout.isNegative() || !sendTimeout.isZero() && sendTimeout.compareTo(Duration.ofSeconds(1)) < 0) {
                throw m.error(sendTimeoutLine, "limits.sendTimeout must be 0 (never) or at least 1s");
            }
            m.finish("pool", "maxConnections", "maxConnectionsPerAddress", "maxIoSize", "maxRecordSize", "recordTimeout",
                    "sendTimeout");
            return new LimitsConfig(pool, maxConnections, perAddress, maxIo, maxRecord, recordTimeout, sendTimeout);
        }

        /** Reads 'name', checks its form and that it is not taken (case-insensitively if asked). */
        private String name(YamlMap m, Pattern form, String what, Map<String, Integer> seen, boolean ignoreCase)
                throws ConfigException {
            int line = m.lineOf("name");
            String name = m.requiredString("name");
            if (!form.matcher(name).matches()) {
                throw m.error(line, what + " name '" + name + "' must match " + form.pattern());
            }
            unique(m, line, seen, ignoreCase ? name.toLowerCase(Locale.ROOT) : name, what + " name");
            return name;
        }

        private void unique(YamlMap m, int line, Map<String, Integer> seen, String key, String what)
                throws ConfigException {
            Integer first = seen.putIfAbsent(key, line);
            if (first != null) {
                throw m.error(line, "duplicate " + what + " '" + key + "' (first at line " + first + ")");
            }
        }
    }
}
