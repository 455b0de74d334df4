package io.rdmagate.gateway.spi.security;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import javax.security.auth.Subject;
import javax.security.auth.login.AppConfigurationEntry;
import javax.security.auth.login.Configuration;
import javax.security.auth.login.LoginContext;
import javax.security.auth.login.LoginException;

/**
 * A throwaway MIT Kerberos realm on 127.0.0.1 for tests: {@code krb5kdc} from Debian's krb5-kdc
 * over a database made in a temporary directory, with principals and keytabs made by
 * {@code kadmin.local} (krb5-admin-server) and tickets by {@code kinit} (krb5-user). Nothing
 * outside the directory is touched: every command gets {@code KRB5_CONFIG} and
 * {@code KRB5_KDC_PROFILE} pointing into it.
 *
 * <p>run-tests unpacks krb5-kdc and krb5-admin-server rather than installing them (no system KDC
 * is set up): {@code $KRB5_SBIN} names where their programs are and {@code $KRB5_KDB_MODULES}
 * where the database module is; without them the programs are looked up on the PATH.
 */
public final class MitKdc implements AutoCloseable {
    public static final String REALM = "EXAMPLE.TEST";

    private final Path dir;
    private final int port;
    private final Process kdc;

    private MitKdc(Path dir, int port, Process kdc) {
        this.dir = dir;
        this.port = port;
        this.kdc = kdc;
    }

    /** Makes the realm's database in {@code dir} and starts its KDC; returns once it accepts connections. */
    public static MitKdc start(Path dir) throws IOException, InterruptedException {
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        Files.writeString(dir.resolve("krb5.conf"), clientConf("127.0.0.1:" + port));
        Files.writeString(dir.resolve("kdc.conf"), """
                [kdcdefaults]
                    kdc_ports = %2$d
                    kdc_tcp_ports = %2$d
                [realms]
                    %1$s = {
                        database_name = %3$s/principal
                        key_stash_file = %3$s/stash
                        acl_file = %3$s/kadm5.acl
                        max_life = 1h
                        supported_enctypes = aes256-cts-hmac-sha1-96:normal aes128-cts-hmac-sha1-96:normal
                    }
                [logging]
                    kdc = FILE:%3$s/kdc.log
                """.formatted(REALM, port, dir) + (System.getenv("KRB5_KDB_MODULES") == null ? "" : """
                [dbmodules]
                    db_module_dir = %s
                """.formatted(System.getenv("KRB5_KDB_MODULES"))));
        Files.writeString(dir.resolve("kadm5.acl"), "");
        run(dir, null, sbin("kdb5_util"), "create", "-s", "-r", REALM, "-P", "master-" + ProcessHandle.current().pid());
        ProcessBuilder pb = new ProcessBuilder(sbin("krb5kdc"), "-n", "-r", REALM)
                .redirectErrorStream(true).redirectOutput(dir.resolve("krb5kdc.out").toFile());
        pb.environment().putAll(env(dir));
        Process kdc = pb.start();
        MitKdc k = new MitKdc(dir, port, kdc);
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (true) {
            try (Socket s = new Socket()) {
                s.connect(new InetSocketAddress("127.0.0.1", port), 1000);
                return k;
            } catch (IOException notYet) {
                if (!kdc.isAlive() || System.nanoTime() > deadline) {
                    k.close();
                    throw new IOException("krb5kdc did not start: " + Files.readString(dir.resolve("krb5kdc.out"))
                            + readIfThere(dir.resolve("kdc.log")));
                }
                kdc.waitFor(50, TimeUnit.MILLISECONDS); // wakes at once if it exits
            }
        }
    }

    /** An MIT server program: from $KRB5_SBIN when run-tests unpacked them there, else from the PATH. */
    private static String sbin(String program) {
        String dir = System.getenv("KRB5_SBIN");
        return dir == null ? program : Path.of(dir, program).toString();
    }

    private static String readIfThere(Path p) throws IOException {
        return Files.exists(p) ? Files.readString(p) : "";
    }

    /**
     * A krb5.conf for a client of this realm that reaches its KDC at {@code kdc} (HOST:PORT, over
     * TCP), with no DNS: the names under example.test are the realm's.
     */
    public static String clientConf(String kdc) {
        return """
                [libdefaults]
                    default_realm = %1$s
                    dns_lookup_kdc = false
                    dns_lookup_realm = false
                    dns_canonicalize_hostname = false
                    rdns = false
                    udp_preference_limit = 1
                    ticket_lifetime = 1h
                [realms]
                    %1$s = {
                        kdc = %2$s
                    }
                [domain_realm]
                    .example.test = %1$s
                    example.test = %1$s
                """.formatted(REALM, kdc);
    }

    /** The KDC's port on 127.0.0.1 (TCP, and UDP). */
    public int port() {
        return port;
    }

    /** The realm's client configuration, for the MIT tools and the JDK ({@code java.security.krb5.conf}). */
    public Path krb5Conf() {
        return dir.resolve("krb5.conf");
    }

    /** The environment the MIT tools need to use this realm and no other. */
    public Map<String, String> env() {
        return env(dir);
    }

    private static Map<String, String> env(Path dir) {
        Map<String, String> e = new HashMap<>();
        e.put("KRB5_CONFIG", dir.resolve("krb5.conf").toString());
        e.put("KRB5_KDC_PROFILE", dir.resolve("kdc.conf").toString());
        return e;
    }

    /** A user principal with a password. */
    public void addUser(String name, String password) throws IOException, InterruptedException {
        kadmin("addprinc -pw " + password + " " + name);
    }

    /** A service principal with a random key, written to {@code keytab} (appended when it exists). */
    public void addService(String principal, Path keytab) throws IOException, InterruptedException {
        kadmin("addprinc -randkey " + principal);
        kadmin("ktadd -k " + keytab + " " + principal);
    }

    /** Changes a principal's attributes ({@code kadmin modprinc}), e.g. {@code -maxlife "5 seconds"}. */
    public void modify(String principal, String options) throws IOException, InterruptedException {
        kadmin("modprinc " + options + " " + principal);
    }

    /**
     * Logs {@code principal} in from its {@code keytab} through the JDK's Krb5LoginModule, as an
     * initiator (a client with a keytab needs no password prompt); the JDK must already use this
     * realm's {@link #krb5Conf()} ({@code java.security.krb5.conf}).
     */
    public static Subject login(String principal, Path keytab) throws LoginException {
        Configuration c = new Configuration() {
            @Override
            public AppConfigurationEntry[] getAppConfigurationEntry(String name) {
                return new AppConfigurationEntry[] {new AppConfigurationEntry("com.sun.security.auth.module.Krb5LoginModule",
                        AppConfigurationEntry.LoginModuleControlFlag.REQUIRED, Map.of("useKeyTab", "true", "keyTab",
                                keytab.toString(), "principal", principal, "doNotPrompt", "true", "storeKey", "false",
                                "isInitiator", "true", "refreshKrb5Config", "true"))};
            }
        };
        LoginContext lc = new LoginContext("client", new Subject(), null, c);
        lc.login();
        return lc.getSubject();
    }

    /** Gives the principal new keys (a new kvno), so keytabs made before no longer hold its key. */
    public void rekey(String principal) throws IOException, InterruptedException {
        kadmin("cpw -randkey " + principal);
    }

    /** Gets a ticket-granting ticket for {@code user} into the credentials cache file {@code ccache}. */
    public void kinit(String user, String password, Path ccache) throws IOException, InterruptedException {
        Map<String, String> e = new HashMap<>(env());
        e.put("KRB5CCNAME", "FILE:" + ccache);
        feed(dir, e, password + "\n", "kinit", user + "@" + REALM);
    }

    /** Adds the ticket for {@code service} to the credentials cache {@code ccache} (kvno), which holds a TGT. */
    public void serviceTicket(String service, Path ccache) throws IOException, InterruptedException {
        Map<String, String> e = new HashMap<>(env());
        e.put("KRB5CCNAME", "FILE:" + ccache);
        run(dir, e, "kvno", service);
    }

    private void kadmin(String query) throws IOException, InterruptedException {
        run(dir, null, sbin("kadmin.local"), "-r", REALM, "-q", query);
    }

    private static void run(Path dir, Map<String, String> extra, String... cmd) throws IOException, InterruptedException {
        feed(dir, extra, null, cmd);
    }

    private static void feed(Path dir, Map<String, String> extra, String input, String... cmd)
            throws IOException, InterruptedException {
        ProcessBuilder pb = new ProcessBuilder(new ArrayList<>(List.of(cmd))).redirectErrorStream(true);
        pb.environment().putAll(extra != null ? extra : env(dir));
        Process p = pb.start();
        if (input != null) {
            p.getOutputStream().write(input.getBytes(StandardCharsets.UTF_8));
        }
        p.getOutputStream().close();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
            p.destroyForcibly();
            throw new IOException(String.join(" ", cmd) + " failed: " + out);
        }
    }

    @Override
    public void close() {
        kdc.destroy();
        try {
            if (!kdc.waitFor(10, TimeUnit.SECONDS)) {
                kdc.destroyForcibly();
            }
        } catch (InterruptedException e) {
            kdc.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }
}
