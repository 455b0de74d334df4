package io.rdmagate.gateway;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.rdmagate.gateway.spi.security.MitKdc;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The program with {@code security.kerberos} in its configuration, as a child process: it names
 * the principal it accepts tickets for, Samba's smbclient logs on with a ticket from a real MIT
 * KDC and writes a file as the account the principal maps to; with no key for the principal in
 * the keytab it does not start and says what to fix.
 */
class ServeKerberosTest {
    @TempDir
    Path dir;

    @Test
    void smbclientLogsOnWithATicketAndAKeytabWithoutThePrincipalStopsTheStart() throws Exception {
        Path realm = Files.createDirectories(dir.resolve("realm"));
        try (MitKdc kdc = MitKdc.start(realm)) {
            kdc.addUser("alice", "Alice-krb-1");
            Path keytab = realm.resolve("rdmagate.keytab");
            kdc.addService("cifs/gw.example.test", keytab);
            Path tickets = realm.resolve("cc-alice");
            kdc.kinit("alice", "Alice-krb-1", tickets);
            Path export = Files.createDirectories(dir.resolve("export"));
            Files.setPosixFilePermissions(export, java.nio.file.attribute.PosixFilePermissions.fromString("rwxrwxrwx"));
            int port;
            try (ServerSocket s = new ServerSocket(0)) {
                port = s.getLocalPort();
            }
            Path config = writeConfig(kdc, export, keytab, "cifs/gw.example.test", port);
            Path out = dir.resolve("out.log");
            Process p = serve(config, out);
            try {
                String smb = "listening: smb/tcp on 127.0.0.1:" + port;
                awaitLine(p, out, smb);
                String log = Files.readString(out);
                assertTrue(log.contains("SMB Kerberos: accepting tickets for cifs/gw.example.test@" + MitKdc.REALM
                        + " with the keys of " + keytab), log);

                Path local = Files.createDirectories(dir.resolve("local"));
                Files.writeString(local.resolve("hello.txt"), "written with a Kerberos ticket\n");
                ProcessBuilder pb = new ProcessBuilder("smbclient", "//gw.example.test/data", "-I", "127.0.0.1",
                        "-p", String.valueOf(port), "--use-kerberos=required", "-N", "-c", "put hello.txt")
                        .directory(local.toFile()).redirectErrorStream(true);
                pb.environment().putAll(kdc.env());
                pb.environment().put("KRB5CCNAME", "FILE:" + tickets);
                Process c = pb.start();
                c.getOutputStream().close();
                String said = new String(c.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                assertTrue(c.waitFor(60, TimeUnit.SECONDS), said);
                assertEquals(0, c.exitValue(), said);
                assertEquals("written with a Kerberos ticket\n", Files.readString(export.resolve("hello.txt")));
                assertEquals(4242, Files.getAttribute(export.resolve("hello.txt"), "unix:uid"), "alice is idmapped to 4242");
            } finally {
                p.destroy();
                p.waitFor(30, TimeUnit.SECONDS);
                p.destroyForcibly();
            }

            Path wrong = writeConfig(kdc, export, keytab, "cifs/other.example.test", port);
            Path out2 = dir.resolve("out2.log");
            Process q = serve(wrong, out2);
            assertTrue(q.waitFor(60, TimeUnit.SECONDS), "it must not start: " + Files.readString(out2));
            String log = Files.readString(out2);
            assertNotEquals(0, q.exitValue(), log);
            assertTrue(log.contains("holds no key for cifs/other.example.test@" + MitKdc.REALM), log);
            assertTrue(log.contains("klist -k"), log);
        }
    }

    private Path writeConfig(MitKdc kdc, Path export, Path keytab, String principal, int port) throws Exception {
        Path config = dir.resolve(principal.replace('/', '_') + ".yaml");
        Files.writeString(config, """
                stateDir: %s
                http: {address: 127.0.0.1, port: 0}
                exports:
                  - name: data
                    path: %s
                    clients: [{match: 127.0.0.0/8}]
                shares:
                  - {name: data, export: data, sec: [krb5]}
                transports:
                  nfs: {enabled: false}
                  smb: {address: 127.0.0.1, port: %d}
                security:
                  kerberos:
                    keytab: %s
                    realm: %s
                    krb5Conf: %s
                    smbPrincipal: %s
                    idmap: {"alice@%s": "4242:4242"}
                """.formatted(dir.resolve("state"), export, port, keytab, MitKdc.REALM, kdc.krb5Conf(), principal,
                MitKdc.REALM));
        return config;
    }

    private static Process serve(Path config, Path out) throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<String> cmd = new ArrayList<>(List.of(java, "--enable-native-access=ALL-UNNAMED"));
        cmd.addAll(io.rdmagate.gateway.spi.security.TicketEnd.JVM_OPTIONS); // what the jar's manifest gives
        cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), "io.rdmagate.gateway.Main", "serve",
                "--config", config.toString()));
        return new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(out.toFile()).start();
    }

    private static void awaitLine(Process p, Path out, String line) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (System.nanoTime() < deadline) {
            if (Files.readString(out).contains(line)) {
                return;
            }
            if (!p.isAlive()) {
                fail("rdmagate exited with " + p.exitValue() + ":\n" + Files.readString(out));
            }
            p.waitFor(50, TimeUnit.MILLISECONDS); // returns at once if it exits
        }
        fail("rdmagate did not print '" + line + "':\n" + Files.readString(out));
    }
}
