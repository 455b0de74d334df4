package io.rdmagate.smb.server;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rdmagate.gateway.spi.config.KerberosConfig;
import io.rdmagate.gateway.spi.security.KerberosAcceptor;
import io.rdmagate.gateway.spi.security.KerberosIdentities;
import io.rdmagate.gateway.spi.security.MitKdc;
import io.rdmagate.gateway.spi.security.Passwd;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Kerberos logons through SPNEGO with Samba's smbclient ({@code --use-kerberos=required}) and a
 * real MIT KDC on 127.0.0.1 (Debian's krb5-kdc, krb5-admin-server and krb5-user, which
 * run-tests installs): files written and read back under signing and encryption on each
 * dialect, the identity a principal maps to, and the refusals (no ticket, a ticket the keytab
 * has no key for, a principal with no local user, NTLM on a Kerberos-only share).
 */
class KerberosLogonTest {
    static final String HOST = "gw.example.test";
    static final String PRINCIPAL = "cifs/" + HOST + "@" + MitKdc.REALM;

    @TempDir
    static Path tmp;
    static MitKdc kdc;
    static TestServer server;
    static Path export;
    static Path local;
    static Path testerTickets;
    static Path carolTickets;
    static Path strangerTickets;

    @BeforeAll
    static void start() throws Exception {
        Path realm = Files.createDirectories(tmp.resolve("realm"));
        kdc = MitKdc.start(realm);
        kdc.addUser(TestServer.USER, "Tester-krb-1");
        kdc.addUser("carol", "Carol-krb-1");
        kdc.addUser("stranger", "Stranger-krb-1");
        Path keytab = realm.resolve("gateway.keytab");
        kdc.addService("cifs/" + HOST, keytab);
        testerTickets = realm.resolve("cc-tester");
        kdc.kinit(TestServer.USER, "Tester-krb-1", testerTickets);
        carolTickets = realm.resolve("cc-carol");
        kdc.kinit("carol", "Carol-krb-1", carolTickets);
        strangerTickets = realm.resolve("cc-stranger");
        kdc.kinit("stranger", "Stranger-krb-1", strangerTickets);

        export = Files.createDirectories(tmp.resolve("export"));
        Files.setPosixFilePermissions(export, java.nio.file.attribute.PosixFilePermissions.fromString("rwxrwxrwx"));
        local = Files.createDirectories(tmp.resolve("local"));
        KerberosConfig config = new KerberosConfig(keytab, MitKdc.REALM, kdc.krb5Conf(), PRINCIPAL, null,
                Map.of("carol@" + MitKdc.REALM, "4321:4322"));
        server = TestServer.kerberized(export, Files.createDirectories(tmp.resolve("state")), kerberos(config));
    }

    /** Kerberos for the test server: its one SMB user is "tester", as TestServer makes it. */
    static SmbKerberos kerberos(KerberosConfig config) throws Exception {
        int uid = (Integer) Files.getAttribute(export, "unix:uid");
        int gid = (Integer) Files.getAttribute(export, "unix:gid");
        return new SmbKerberos(KerberosAcceptor.open(config, config.smbPrincipal()), new KerberosIdentities(config,
                name -> name.equals(TestServer.USER) ? Optional.of(new Passwd.Account(name, uid, gid)) : Optional.empty()));
    }

    @AfterAll
    static void stop() {
        if (server != null) {
            server.close();
        }
        if (kdc != null) {
            kdc.close();
        }
    }

    record Result(int exit, String out) {
    }

    /** smbclient to //gw.example.test/SHARE on 127.0.0.1 with the tickets in {@code ccache} and nothing else. */
    static Result kerberosClient(TestServer s, Path ccache, String share, String... args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of("smbclient", "//" + HOST + "/" + share, "-I", "127.0.0.1",
                "-p", String.valueOf(s.port()), "--use-kerberos=required", "-N"));
        cmd.addAll(List.of(args));
        return run(cmd, ccache);
    }

    static Result run(List<String> cmd, Path ccache) throws Exception {
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true).directory(local.toFile());
        pb.environment().putAll(kdc.env());
        pb.environment().put("KRB5CCNAME", "FILE:" + ccache);
        Process p = pb.start();
        p.getOutputStream().close();
        boolean done = p.waitFor(60, TimeUnit.SECONDS);
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!done) {
            p.destroyForcibly();
            throw new AssertionError("smbclient timed out: " + out);
        }
        return new Result(p.exitValue(), out);
    }

    /**
     * Every key the session derives from the Kerberos key: HMAC-SHA256 signing (2.x), AES-CMAC
     * and AES-GMAC, AES-128 ciphers from the key's first 16 bytes, AES-256 from all 32 of it.
     */
    @ParameterizedTest(name = "{0} {1} {2}")
    @CsvSource({
        "SMB2_10, sign, -",
        "SMB3_00, sign, -",
        "SMB3_00, encrypt, -",
        "SMB3_11, sign, client smb3 signing algorithms=AES-128-GMAC",
        "SMB3_11, sign, client smb3 signing algorithms=AES-128-CMAC",
        "SMB3_11, encrypt, client smb3 encryption algorithms=AES-128-GCM",
        "SMB3_11, encrypt, client smb3 encryption algorithms=AES-256-GCM",
        "SMB3_11, encrypt, client smb3 encryption algorithms=AES-256-CCM",
    })
    void aKerberosUserWritesAndReadsBackAFile(String protocol, String protection, String option) throws Exception {
        String name = "k-" + protocol + "-" + protection + "-" + option.replaceAll("[^A-Za-z0-9]", "") + ".bin";
        byte[] data = new byte[300_000];
        new Random(name.hashCode()).nextBytes(data);
        Files.write(local.resolve(name), data);
        List<String> args = new ArrayList<>(List.of("-m", protocol, "--client-protection=" + protection));
        if (!option.equals("-")) {
            args.add("--option=" + option);
        }
        args.addAll(List.of("-c", "put " + name + "; get " + name + " back-" + name));
        Result r = kerberosClient(server, testerTickets, "data", args.toArray(new String[0]));
        assertEquals(0, r.exit(), r.out());
        assertArrayEquals(data, Files.readAllBytes(export.resolve(name)), "the file on the export");
        assertArrayEquals(data, Files.readAllBytes(local.resolve("back-" + name)), "the file read back");
        assertEquals(Files.getAttribute(export, "unix:uid"), Files.getAttribute(export.resolve(name), "unix:uid"),
                "tester@REALM writes as the SMB user tester");
    }

    @Test
    void aPrincipalInTheIdmapWritesAsItsUidAndGid() throws Exception {
        Files.writeString(local.resolve("carol.txt"), "from carol\n");
        Result r = kerberosClient(server, carolTickets, "data", "-c", "put carol.txt");
        assertEquals(0, r.exit(), r.out());
        assertEquals(4321, Files.getAttribute(export.resolve("carol.txt"), "unix:uid"));
        assertEquals(4322, Files.getAttribute(export.resolve("carol.txt"), "unix:gid"));
    }

    @Test
    void aPrincipalWithNoLocalUserIsRefused() throws Exception {
        Result r = kerberosClient(server, strangerTickets, "data", "-c", "ls");
        assertNotEquals(0, r.exit(), r.out());
        assertTrue(r.out().contains("NT_STATUS_LOGON_FAILURE"), r.out());
    }

    @Test
    void withoutATicketThereIsNoKerberosLogon() throws Exception {
        Result r = kerberosClient(server, tmp.resolve("no-such-ccache"), "data", "-c", "ls");
        assertNotEquals(0, r.exit(), r.out());
        assertTrue(r.out().toLowerCase().contains("kerberos") || r.out().contains("NT_STATUS"), r.out());
        Result ok = kerberosClient(server, testerTickets, "data", "-c", "ls");
        assertEquals(0, ok.exit(), "the server goes on serving: " + ok.out());
    }

    @Test
    void aTicketForAKeyTheKeytabDoesNotHoldIsRefused() throws Exception {
        // the keytab holds the principal's first key; the KDC then gives it a new one, which tickets are made with
        Path stale = tmp.resolve("realm").resolve("stale.keytab");
        kdc.addService("cifs/old.example.test", stale);
        kdc.rekey("cifs/old.example.test");
        KerberosConfig config = new KerberosConfig(stale, MitKdc.REALM, kdc.krb5Conf(),
                "cifs/old.example.test@" + MitKdc.REALM, null, Map.of());
        try (TestServer old = TestServer.kerberized(Files.createDirectories(tmp.resolve("old-export")),
                Files.createDirectories(tmp.resolve("old-state")), kerberos(config))) {
            List<String> cmd = new ArrayList<>(List.of("smbclient", "//old.example.test/data", "-I", "127.0.0.1",
                    "-p", String.valueOf(old.port()), "--use-kerberos=required", "-N", "-c", "ls"));
            Result r = run(cmd, testerTickets);
            assertNotEquals(0, r.exit(), r.out());
            assertTrue(r.out().contains("NT_STATUS_LOGON_FAILURE"), r.out());
        }
    }

    /**
     * Samba's own tests of Kerberos session expiry (smb2.session.expire*), with tickets of 4 s:
     * once the ticket ends every request but LOGOFF, CLOSE and unlocking answers
     * NETWORK_SESSION_EXPIRED, signed or encrypted as the session is, and a re-authentication
     * with a new ticket carries on with the same session and its open files. smbtorture has no
     * {@code -I}: it runs in a mount namespace of its own whose /etc/hosts names the server.
     */
    @Test
    void aSessionEndsWithItsTicketAndReauthenticationRenewsIt() throws Exception {
        Path hosts = tmp.resolve("hosts");
        Files.writeString(hosts, "127.0.0.1 localhost " + HOST + "\n");
        List<String> tests = List.of("expire1n", "expire1s", "expire1e", "expire2s", "expire2e", "expire_disconnect");
        List<String> cmd = new ArrayList<>(List.of("unshare", "--mount", "--propagation", "private", "sh", "-c",
                "mount --bind \"$0\" /etc/hosts && exec \"$@\"", hosts.toString(), "smbtorture", "//" + HOST + "/data",
                "-p", String.valueOf(server.port()), "-U", TestServer.USER + "@" + MitKdc.REALM + "%Tester-krb-1",
                "--realm=" + MitKdc.REALM, "--use-kerberos=required"));
        tests.forEach(t -> cmd.add("smb2.session." + t));
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
        pb.environment().putAll(kdc.env());
        Path log = tmp.resolve("smbtorture-expire.log");
        Process p = pb.redirectOutput(log.toFile()).start();
        boolean done = p.waitFor(300, TimeUnit.SECONDS);
        if (!done) {
            p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
        String out = Files.readString(log, StandardCharsets.UTF_8);
        assertTrue(done, "smbtorture did not finish within 300 s:\n" + out);
        assertEquals(List.of(), out.lines().filter(l -> l.startsWith("failure: ") || l.startsWith("error: ")
                || l.startsWith("skip: ")).toList(), out);
        assertEquals(tests.size(), out.lines().filter(l -> l.startsWith("success: ")).count(), out);
    }

    @Test
    void sharesChooseWhichLogonsTheyTake() throws Exception {
        Result krbOnKrbOnly = kerberosClient(server, testerTickets, "krbonly", "-c", "ls");
        assertEquals(0, krbOnKrbOnly.exit(), krbOnKrbOnly.out());
        Result krbOnNtlmOnly = kerberosClient(server, testerTickets, "ntlmonly", "-c", "ls");
        assertTrue(krbOnNtlmOnly.out().contains("NT_STATUS_ACCESS_DENIED"), krbOnNtlmOnly.out());

        List<String> ntlm = List.of("smbclient", "-p", String.valueOf(server.port()), "-U",
                TestServer.USER + "%" + TestServer.PASSWORD, "--use-kerberos=off");
        List<String> onKrbOnly = new ArrayList<>(ntlm);
        onKrbOnly.addAll(List.of("//127.0.0.1/krbonly", "-c", "ls"));
        Result ntlmOnKrbOnly = run(onKrbOnly, tmp.resolve("no-such-ccache"));
        assertTrue(ntlmOnKrbOnly.out().contains("NT_STATUS_ACCESS_DENIED"), ntlmOnKrbOnly.out());
        List<String> onData = new ArrayList<>(ntlm);
        onData.addAll(List.of("//127.0.0.1/data", "-c", "ls"));
        Result ntlmOnData = run(onData, tmp.resolve("no-such-ccache"));
        assertEquals(0, ntlmOnData.exit(), "NTLM goes on beside Kerberos: " + ntlmOnData.out());
    }
}
