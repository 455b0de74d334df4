package io.rdmagate.gateway.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rdmagate.gateway.spi.config.AddressMatch;
import io.rdmagate.gateway.spi.config.ClientRule;
import io.rdmagate.gateway.spi.config.ExportConfig;
import io.rdmagate.gateway.spi.config.GatewayConfig;
import io.rdmagate.gateway.spi.config.Port;
import io.rdmagate.gateway.spi.config.RdmaConfig;
import io.rdmagate.gateway.spi.config.ShareConfig;
import io.rdmagate.gateway.spi.config.SmbConfig;
import io.rdmagate.gateway.spi.config.TransportsConfig;
import io.rdmagate.gateway.spi.config.UserEntry;
import io.rdmagate.vfs.memory.PoolLimits;
import java.net.InetAddress;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class ConfigParserTest {
    private static final String MINIMAL = """
            exports:
              - name: data
                path: /srv/data
                clients:
                  - match: "*"
            """;

    @Test
    void embeddedDefaultIsTheDocumentedSetup() throws Exception {
        GatewayConfig c = ConfigParser.parseDefault();
        assertEquals(ConfigParser.DEFAULT_SOURCE, c.source());
        assertEquals(Path.of("state"), c.stateDir());
        assertEquals(InetAddress.ofLiteral("127.0.0.1"), c.http().address());
        assertEquals(9049, c.http().port());
        assertEquals(1, c.exports().size());
        ExportConfig e = c.exports().getFirst();
        assertEquals("data", e.name());
        assertEquals(Path.of("data"), e.path());
        assertEquals("/data", e.nfsPath());
        assertFalse(e.readOnly());
        assertEquals(3, e.clients().size());
        for (ClientRule local : e.clients().subList(0, 2)) {
            assertTrue(local.match().matches(InetAddress.getLoopbackAddress()) || local.match().text().equals("::1"));
            assertFalse(local.rootSquash(), "root on this host is root");
            assertTrue(local.secure(), "but only a caller that binds a reserved port, as root does");
            assertEquals(ClientRule.Access.RW, local.access());
        }
        assertTrue(e.clients().get(0).match().matches(InetAddress.ofLiteral("127.0.0.1")));
        assertTrue(e.clients().get(1).match().matches(InetAddress.ofLiteral("::1")));
        ClientRule r = e.clients().get(2);
        assertEquals(AddressMatch.ANY, r.match());
        assertEquals(ClientRule.Access.RW, r.access());
        assertTrue(r.rootSquash());
        assertFalse(r.allSquash());
        assertEquals(65534, r.anonUid());
        assertTrue(r.secure());
        assertEquals(1, c.shares().size());
        assertEquals(new ShareConfig("data", "data", "", false, false, false), c.shares().getFirst());
        assertEquals(SmbConfig.DEFAULT, c.smb());
        assertTrue(c.users().isEmpty());
        var t = c.transports();
        assertTrue(t.nfs().enabled());
        assertEquals(Port.defaulted(2049), t.nfs().port());
        assertEquals(Port.defaulted(20049), t.nfs().rdmaPort());
        assertEquals(Port.defaulted(20048), t.nfs().mountPort());
        assertEquals(Port.defaulted(32803), t.nfs().nlmPort());
        assertEquals(Port.defaulted(32765), t.nfs().nsmPort());
        assertEquals(Port.defaulted(111), t.rpcbind().port());
        assertEquals(TransportsConfig.Rpcbind.Mode.AUTO, t.rpcbind().mode());
        assertEquals(Port.defaulted(445), t.smb().port());
        assertEquals(null, t.nfs().address(), "every interface");
        assertEquals(null, t.smb().address(), "every interface");
        assertEquals(Port.defaulted(5445), t.smb().directPort());
        assertEquals(PoolLimits.DEFAULT, c.limits().pool());
        assertEquals(1024, c.limits().maxConnections());
        assertEquals(512, c.limits().maxConnectionsPerAddress());
        assertEquals(java.time.Duration.ofMinutes(2), c.limits().recordTimeout());
        assertEquals(java.time.Duration.ofMinutes(2), c.limits().sendTimeout());
        assertEquals(1 << 20, c.limits().maxIoSize());
        assertEquals((1 << 20) + (64 << 10), c.limits().maxRecordSize());
        assertEquals(Path.of("state", "exports", "data"), c.exportStateDir("data"));
    }

    @Test
    void minimalFileGetsDefaults() throws Exception {
        GatewayConfig c = ConfigParser.parse("min.yaml", MINIMAL);
        assertEquals("/data", c.exports().getFirst().nfsPath());
        assertTrue(c.exports().getFirst().sync(), "NFS replies once a change is on stable storage unless told otherwise");
        assertTrue(c.shares().isEmpty());
        assertEquals(9049, c.http().port());
        assertEquals(64, c.http().maxConnections());
        assertEquals(java.time.Duration.ofSeconds(10), c.http().requestTimeout());
        assertNull(c.smb().guestAccount());
    }

    @Test
    void fullFileIsRead() throws Exception {
        GatewayConfig c = ConfigParser.parse("full.yaml", """
                stateDir: /var/lib/rdmagate
                http: {address: "::1", port: 0, maxConnections: 4, requestTimeout: 30s}
                exports:
                  - name: proj
                    path: /srv/proj
                    nfsPath: /exports/proj
                    readOnly: true
                    caseInsensitive: true
                    mapReadThreshold: 256KiB
                    sync: false
                    clients:
                      - {match: 10.0.0.0/8, access: ro, rootSquash: false}
                      - {match: "fd00::/8", allSquash: true, anonUid: 1000, anonGid: 100, secure: false}
                shares:
                  - {name: Proj, export: proj, path: /docs/, readOnly: true, guestOk: true, encrypt: true}
                smb: {signingRequired: true, encryptAll: true, guestAccount: nobody}
                users:
                  - {name: alice, uid: 1000, gid: 100, ntHash: 8846f7eaee8fb117ad06bdd830b7586c}
                transports:
                  nfs: {enabled: true, port: 12049, rdmaPort: 12050}
                  rpcbind: {port: 1111, mode: embedded}
                  smb: {enabled: false, port: 1445}
                limits:
                  pool: {maxBytes: 64MiB, perClientBytes: 8MiB, slabBytes: 2MiB, minBufferBytes: 512,
                         maxBufferBytes: 512KiB, leaseWait: 500ms}
                  maxConnections: 10
                  maxIoSize: 512KiB
                  maxRecordSize: 600KiB
                """);
        assertEquals(Path.of("/var/lib/rdmagate"), c.stateDir());
        assertEquals(InetAddress.ofLiteral("::1"), c.http().address());
        assertEquals(4, c.http().maxConnections());
        assertEquals(java.time.Duration.ofSeconds(30), c.http().requestTimeout());
        ExportConfig e = c.exports().getFirst();
        assertEquals("/exports/proj", e.nfsPath());
        assertTrue(e.readOnly() && e.caseInsensitive());
        assertEquals(256 << 10, e.mapReadThreshold());
        assertFalse(e.sync(), "replies before the disk has the change, as knfsd's async");
        assertEquals(ClientRule.Access.RO, e.clients().get(0).access());
        assertFalse(e.clients().get(0).rootSquash());
        assertTrue(e.clients().get(0).secure(), "secure unless a rule says otherwise");
        assertEquals(1000, e.clients().get(1).anonUid());
        assertFalse(e.clients().get(1).secure());
        assertEquals(new ShareConfig("Proj", "proj", "docs", true, true, true), c.shares().getFirst());
        assertEquals(new SmbConfig(true, true, "nobody", 8192, 64, java.time.Duration.ofSeconds(35),
                java.time.Duration.ofSeconds(60), java.time.Duration.ofMinutes(5), java.time.Duration.ofSeconds(30),
                java.time.Duration.ofMinutes(15), 128 << 10), c.smb());
        assertEquals(512, c.smb().maxAsyncRequests(), "Windows' AsyncCredits unless configured");
        assertEquals(new UserEntry("alice", 1000, 100, "8846F7EAEE8FB117AD06BDD830B7586C"), c.users().getFirst());
        assertEquals(new Port(12049, true, "full.yaml:20"), c.transports().nfs().port());
        assertEquals(Port.defaulted(20048), c.transports().nfs().mountPort());
        assertEquals(TransportsConfig.Rpcbind.Mode.EMBEDDED, c.transports().rpcbind().mode());
        assertFalse(c.transports().smb().enabled());
        assertEquals(new PoolLimits(64L << 20, 8L << 20, 2 << 20, 512, 512 << 10, Duration.ofMillis(500)),
                c.limits().pool());
        assertEquals(600 << 10, c.limits().maxRecordSize());
    }

    private static void assertError(String yaml, int line, String fragment) {
        ConfigException e = assertThrows(ConfigException.class, () -> ConfigParser.parse("t.yaml", yaml));
        assertEquals(line, e.line(), e.getMessage());
        assertTrue(e.getMessage().startsWith("t.yaml:" + line + ": "), e.getMessage());
        assertTrue(e.reason().contains(fragment), e.getMessage());
    }

    @Test
    void yamlSyntaxErrorHasItsLine() {
        assertError(MINIMAL + "shares: [\n  {name: x\n", 8, "YAML syntax");
        assertError(MINIMAL + "http:\n\tport: 1\n", 7, "YAML syntax");
        assertError(MINIMAL.replace("\"*\"", "*"), 5, "YAML syntax");
    }

    @Test
    void unknownKeysAreRefusedAtTheirLine() {
        assertError(MINIMAL + "colour: blue\n", 6, "unknown key 'colour' in the top level");
        assertError(MINIMAL.replace("    path: /srv/data\n", "    path: /srv/data\n    readonly: true\n"), 4,
                "unknown key 'readonly' in an export");
        assertError(MINIMAL + "transports:\n  nfs:\n    prot: 1\n", 8, "unknown key 'prot' in transports.nfs");
    }

    @Test
    void nfsVersionsDefaultToNfs3AndEveryNfs4MinorVersionAndNfs3AloneCanBeAskedFor() throws Exception {
        var dflt = ConfigParser.parse("min.yaml", MINIMAL).transports().nfs();
        assertEquals(java.util.Set.of("3", "4.0", "4.1", "4.2"), dflt.versions());
        assertTrue(dflt.serves41() && dflt.serves42(), "a plain mount negotiates NFSv4.2");
        assertTrue(dflt.serves40(), "macOS mounts NFSv4.0");
        var v40 = ConfigParser.parse("v40.yaml", MINIMAL + "transports:\n  nfs:\n    versions: [3, 4.0]\n")
                .transports().nfs();
        assertTrue(v40.serves40() && v40.serves4());
        assertFalse(v40.serves41(), "NFSv4.0 alone");
        assertEquals(64L << 20, dflt.v4().maxCopy());
        var plain = ConfigParser.parse("v3.yaml", MINIMAL + "transports:\n  nfs:\n    versions: [3]\n").transports().nfs();
        assertFalse(plain.serves41());
        assertFalse(plain.serves4());
        var both = ConfigParser.parse("v4.yaml", MINIMAL + "transports:\n  nfs:\n    versions: [3, 4.1]\n"
                + "    v4: {leaseTime: 30s, maxSlots: 16, maxDelegations: 0, idmapDomain: example.org}\n")
                .transports().nfs();
        assertTrue(both.serves41());
        assertFalse(both.serves42(), "4.1 without 4.2 when the list says so");
        assertEquals(java.time.Duration.ofSeconds(30), both.v4().leaseTime());
        assertEquals(16, both.v4().maxSlots());
        assertEquals(0, both.v4().maxDelegations(), "delegations can be turned off");
        assertEquals("example.org", both.v4().idmapDomain());
        assertEquals("", dflt.v4().idmapDomain(), "owners are numbers unless a domain is given");
        assertEquals(64, both.v4().maxOperations(), "a limit left out keeps its default");
        assertError(MINIMAL + "transports:\n  nfs:\n    versions: [3, 4.3]\n", 8, "may hold 3, 4.0, 4.1 and 4.2, found '4.3'");
        assertError(MINIMAL + "transports:\n  nfs:\n    versions: [3, 4.2]\n", 8, "4.2 needs 4.1");
        assertError(MINIMAL + "transports:\n  nfs:\n    v4: {maxCopy: 1}\n", 8, "maxCopy");
        assertEquals(1L << 30, ConfigParser.parse("copy.yaml", MINIMAL + "transports:\n  nfs:\n    v4: {maxCopy: 1GiB}\n")
                .transports().nfs().v4().maxCopy());
        assertError(MINIMAL + "transports:\n  nfs:\n    versions: [4.1]\n", 8, "must hold 3");
        assertError(MINIMAL + "transports:\n  nfs:\n    v4: {leaseTime: 1s}\n", 8, "leaseTime");
        assertError(MINIMAL + "transports:\n  nfs:\n    v4: {idmapDomain: \"a@b\"}\n", 8, "must be a DNS domain");
    }

    @Test
    void duplicateKeysAreRefused() {
        assertError(MINIMAL + "http: {port: 1}\nhttp: {port: 2}\n", 7, "duplicate key 'http' in the top level (first at line 6)");
    }

    @Test
    void wrongTypesAreRefused() {
        assertError(MINIMAL.replace("path: /srv/data", "path: /srv/data\n    readOnly: yes"), 4,
                "readOnly must be true or false, found 'yes'");
        assertError(MINIMAL + "http: {port: nine}\n", 6, "port must be an integer");
        assertError(MINIMAL + "exports2: 1\n".replace("exports2", "shares"), 6, "shares must be a list");
        assertError("exports: {name: x}\n", 1, "exports must be a list");
        assertError(MINIMAL + "http: 9049\n", 6, "http must be a mapping");
    }

    @Test
    void badAddressesAreRefused() {
        assertError(MINIMAL.replace("\"*\"", "10.0.0.1/8"), 5, "host bits set; did you mean '10.0.0.0/8'");
        assertError(MINIMAL.replace("\"*\"", "10.0.0.0/33"), 5, "bad prefix length");
        assertError(MINIMAL.replace("\"*\"", "fileserver.example"), 5, "host names are not accepted");
        assertError(MINIMAL + "http: {address: example.org}\n", 6, "not an IP address");
        assertError(MINIMAL + "transports:\n  smb: {address: nas}\n", 7, "transports.smb.address 'nas' is not an IP address");
    }

    @Test
    void theRdmaSectionNamesTheDeviceAndBoundsItsConnections() throws Exception {
        GatewayConfig d = ConfigParser.parse("t.yaml", MINIMAL);
        assertEquals(RdmaConfig.DEFAULT, d.rdma(), "no rdma section: auto, 256 connections, 64 handshakes, 10 s");
        GatewayConfig c = ConfigParser.parse("t.yaml", MINIMAL
                + "rdma: {provider: soft, maxConnections: 8, maxPendingHandshakes: 4, handshakeTimeout: 2s}\n");
        assertEquals(new RdmaConfig(RdmaConfig.Provider.SOFT, 8, 4, Duration.ofSeconds(2)), c.rdma());
        assertError(MINIMAL + "rdma: {provider: verbs}\n", 6, "no hardware verbs provider");
        assertError(MINIMAL + "rdma: {provider: ib}\n", 6, "must be auto or soft");
        assertError(MINIMAL + "rdma: {maxConnections: 0}\n", 6, "maxConnections");
        assertError(MINIMAL + "rdma: {handshakeTimeout: 0s}\n", 6, "must be positive");
        assertError(MINIMAL + "rdma: {credits: 8}\n", 6, "credits");
    }

    @Test
    void theSecuritySectionNamesTheKeytabAndThePrincipals() throws Exception {
        assertEquals(null, ConfigParser.parse("t.yaml", MINIMAL).security().kerberos());
        GatewayConfig c = ConfigParser.parse("t.yaml", MINIMAL + """
                shares:
                  - {name: data, export: data, sec: [krb5]}
                  - {name: both, export: data}
                security:
                  kerberos:
                    keytab: /etc/rdmagate/rdmagate.keytab
                    realm: EXAMPLE.TEST
                    smbPrincipal: cifs/gw.example.test
                    idmap: {"alice@EXAMPLE.TEST": bob, "svc@OTHER.TEST": "10:20"}
                """);
        var k = c.security().kerberos();
        assertEquals(Path.of("/etc/rdmagate/rdmagate.keytab"), k.keytab());
        assertEquals(Path.of("/etc/krb5.conf"), k.krb5Conf());
        assertEquals("cifs/gw.example.test@EXAMPLE.TEST", k.smbPrincipal(), "the realm is added");
        assertEquals(null, k.nfsPrincipal());
        assertEquals("bob", k.idmap().get("alice@EXAMPLE.TEST"));
        assertEquals("10:20", k.idmap().get("svc@OTHER.TEST"));
        assertEquals(false, c.shares().get(0).ntlm());
        assertEquals(true, c.shares().get(0).krb5());
        assertEquals(true, c.shares().get(1).ntlm() && c.shares().get(1).krb5(), "both by default");

        String kerberos = "security:\n  kerberos:\n    keytab: /k\n    realm: EXAMPLE.TEST\n";
        assertEquals(null, ConfigParser.parse("t.yaml", MINIMAL + kerberos).security().kerberos().smbPrincipal(),
                "cifs/FQDN@REALM, resolved at start");
        assertEquals("nfs/h@EXAMPLE.TEST", ConfigParser.parse("t.yaml", MINIMAL + kerberos + "    nfsPrincipal: nfs/h\n")
                .security().kerberos().nfsPrincipal());
        assertError(MINIMAL + kerberos + "    contextIdle: 0s\n", 10, "contextIdle must be positive");
        String krb5Rule = """
                exports:
                  - name: data
                    path: /srv/data
                    clients:
                      - {match: "*", sec: [krb5, sys]}
                """;
        assertEquals(java.util.List.of(io.rdmagate.gateway.spi.config.ClientRule.Sec.KRB5,
                io.rdmagate.gateway.spi.config.ClientRule.Sec.SYS),
                ConfigParser.parse("t.yaml", krb5Rule + kerberos).exports().get(0).clients().get(0).sec(),
                "in the order given, which MOUNT and SECINFO offer");
        assertEquals(java.util.List.of(io.rdmagate.gateway.spi.config.ClientRule.Sec.SYS),
                ConfigParser.parse("t.yaml", MINIMAL).exports().get(0).clients().get(0).sec(), "sys by default");
        assertError(krb5Rule, 1, "NFS has no Kerberos");
        assertEquals(java.util.List.of(io.rdmagate.gateway.spi.config.ClientRule.Sec.KRB5I,
                io.rdmagate.gateway.spi.config.ClientRule.Sec.KRB5P),
                ConfigParser.parse("t.yaml", krb5Rule.replace("krb5, sys", "krb5i, krb5p") + kerberos).exports().get(0)
                        .clients().get(0).sec());
        assertError(krb5Rule.replace("krb5, sys", "krb5x"), 5, "sys, krb5, krb5i and krb5p");
        assertError(MINIMAL + kerberos + "    smbPrincipal: nfs/h\n", 10, "must be cifs/HOST");
        assertError(MINIMAL + kerberos + "    smbPrincipal: cifs/h\n    idmap: {alice: bob}\n", 11, "user@REALM");
        assertError(MINIMAL + kerberos + "    smbPrincipal: cifs/h\n    idmap: {\"a@R\": \"1:99999999999\"}\n", 11,
                "uid:gid");
        assertError(MINIMAL + "security:\n  kerberos:\n    realm: EXAMPLE.TEST\n    smbPrincipal: cifs/h\n", 8, "keytab");
        assertError(MINIMAL + "shares:\n  - {name: s, export: data, sec: [krb5]}\n", 6, "security.kerberos is not set");
        assertError(MINIMAL + "shares:\n  - {name: s, export: data, sec: [kerberos]}\n", 7, "ntlm and krb5");
    }

    @Test
    void theKerberosExampleIsAValidConfiguration() throws Exception {
        Path example = Path.of("../docs/examples/kerberos.yaml");
        GatewayConfig c = ConfigParser.parse(example.toString(), java.nio.file.Files.readString(example));
        assertEquals("EXAMPLE.TEST", c.security().kerberos().realm());
        assertEquals(null, c.security().kerberos().smbPrincipal(), "cifs/FQDN@EXAMPLE.TEST of the host it runs on");
        assertEquals(false, c.shares().get(0).ntlm());
    }

    @Test
    void eachProtocolListensWhereItsAddressSays() throws Exception {
        GatewayConfig c = ConfigParser.parse("t.yaml", MINIMAL
                + "transports:\n  nfs: {address: 127.0.0.2}\n  smb: {address: \"::1\"}\n");
        InetAddress any = InetAddress.ofLiteral("0.0.0.0");
        var t = c.transports();
        assertEquals(InetAddress.ofLiteral("127.0.0.2"), io.rdmagate.gateway.spi.GatewayContext.bindAddress(t,
                io.rdmagate.gateway.spi.ListenerKind.MOUNT, any));
        assertEquals(InetAddress.ofLiteral("127.0.0.2"), io.rdmagate.gateway.spi.GatewayContext.bindAddress(t,
                io.rdmagate.gateway.spi.ListenerKind.RPCBIND, any));
        assertEquals(InetAddress.ofLiteral("::1"), io.rdmagate.gateway.spi.GatewayContext.bindAddress(t,
                io.rdmagate.gateway.spi.ListenerKind.SMB, any));
        GatewayConfig d = ConfigParser.parse("t.yaml", MINIMAL);
        assertEquals(any, io.rdmagate.gateway.spi.GatewayContext.bindAddress(d.transports(),
                io.rdmagate.gateway.spi.ListenerKind.SMB, any), "no address: the gateway's default");
    }

    @Test
    void badSizesAndDurationsAreRefused() {
        assertError(MINIMAL + "limits:\n  maxIoSize: 1 MegaByte\n", 7, "maxIoSize");
        assertError(MINIMAL + "limits:\n  pool:\n    maxBytes: 12XiB\n", 8, "unknown size unit 'XiB'");
        assertError(MINIMAL + "limits:\n  pool:\n    leaseWait: 5\n", 8, "not a duration");
        assertError(MINIMAL + "limits:\n  pool:\n    slabBytes: 4GiB\n", 8, "out of range");
    }

    @Test
    void poolLimitsRefusedByThePoolAreLocated() {
        assertError(MINIMAL + "limits:\n  pool:\n    minBufferBytes: 3000\n", 7,
                "limits.pool: buffer sizes must be powers of two");
        assertError(MINIMAL + "limits:\n  maxIoSize: 2MiB\n", 7, "larger than limits.pool.maxBufferBytes");
        assertError(MINIMAL + "limits:\n  maxRecordSize: 1MiB\n", 7, "must be larger than maxIoSize");
    }

    @Test
    void portsOutOfRangeAreRefused() {
        assertError(MINIMAL + "transports:\n  smb:\n    port: 70000\n", 8, "port 70000 is out of range [1, 65535]");
        assertError(MINIMAL + "transports:\n  nfs:\n    rdmaPort: 0\n", 8, "rdmaPort 0 is out of range");
        assertError(MINIMAL + "http:\n  port: -1\n", 7, "out of range [0, 65535]");
        assertError(MINIMAL + "transports:\n  rpcbind: {mode: maybe}\n", 7, "rpcbind.mode must be auto, embedded");
    }

    @Test
    void duplicateNamesAreRefused() {
        String two = MINIMAL + """
                  - name: data
                    path: /srv/other
                    nfsPath: /other
                    clients: [{match: "*"}]
                """;
        assertError(two, 6, "duplicate export name 'data' (first at line 2)");
        String shares = MINIMAL + "shares:\n  - {name: Docs, export: data}\n  - {name: docs, export: data}\n";
        assertError(shares, 8, "duplicate share name 'docs'");
        String users = MINIMAL + "users:\n  - {name: a, uid: 1, gid: 1, ntHash: 8846F7EAEE8FB117AD06BDD830B7586C}\n"
                + "  - {name: a, uid: 2, gid: 2, ntHash: 8846F7EAEE8FB117AD06BDD830B7586C}\n";
        assertError(users, 8, "duplicate user name 'a'");
        String nfsPaths = MINIMAL + """
                  - name: other
                    path: /srv/other
                    nfsPath: /data
                    clients: [{match: "*"}]
                """;
        assertError(nfsPaths, 8, "duplicate nfsPath '/data'");
    }

    @Test
    void shareOnUnknownExportIsRefused() {
        assertError(MINIMAL + "shares:\n  - name: docs\n    export: nosuch\n", 8,
                "share 'docs' refers to export 'nosuch', which is not defined");
        assertError(MINIMAL + "shares:\n  - {name: docs, export: data, path: ../etc}\n", 7, "no '.', '..'");
    }

    @Test
    void missingPiecesAreRefused() {
        assertError("", 1, "no exports");
        assertError("exports:\n  - name: data\n    clients: [{match: \"*\"}]\n", 2, "an export needs 'path'");
        assertError("exports:\n  - name: data\n    path: /x\n", 2, "export needs 'clients:' rules");
        assertError(MINIMAL + "users:\n  - {name: a, uid: 1, gid: 1, ntHash: secret}\n", 7, "must be 32 hex digits");
        assertError(MINIMAL + "users:\n  - {name: a, uid: 1, ntHash: 8846F7EAEE8FB117AD06BDD830B7586C}\n", 7,
                "needs 'uid' and 'gid'");
        assertError("exports:\n  - name: ../x\n    path: /x\n    clients: [{match: \"*\"}]\n", 2, "export name '../x'");
    }

    @Test
    void firstMatchingClientRuleDecides() throws Exception {
        GatewayConfig c = ConfigParser.parse("t.yaml", """
                exports:
                  - name: d
                    path: /d
                    clients:
                      - {match: 192.168.1.7, access: rw, rootSquash: false}
                      - {match: 192.168.1.0/24, access: ro}
                      - {match: "2001:db8::/32"}
                """);
        ExportConfig e = c.exports().getFirst();
        assertEquals(ClientRule.Access.RW, e.ruleFor(InetAddress.ofLiteral("192.168.1.7")).orElseThrow().access());
        assertEquals(ClientRule.Access.RO, e.ruleFor(InetAddress.ofLiteral("192.168.1.8")).orElseThrow().access());
        assertTrue(e.ruleFor(InetAddress.ofLiteral("2001:db8::1")).isPresent());
        assertTrue(e.ruleFor(InetAddress.ofLiteral("10.1.1.1")).isEmpty(), "no rule matches: refused");
        assertTrue(e.ruleFor(InetAddress.ofLiteral("2001:db9::1")).isEmpty());
    }
}
