package io.rdmagate.gateway;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Runs the real program as a child process: serve, answer /health, stop on SIGTERM with status 0.
 * Needs the real io.rdmagate.vfs.local.LocalFileSystem.
 */
class ServeEndToEndTest {
    private static final Pattern HTTP_LINE = Pattern.compile("listening: http/tcp on 127\\.0\\.0\\.1:(\\d+)");

    @TempDir
    Path dir;

    @Test
    void servesHealthThenStopsInOrderOnSigterm() throws Exception {
        Path export = Files.createDirectories(dir.resolve("export"));
        Path state = dir.resolve("state");
        Path config = dir.resolve("gw.yaml");
        Files.writeString(config, """
                stateDir: %s
                http: {address: 127.0.0.1, port: 0}
                exports:
                  - name: data
                    path: %s
                    clients: [{match: 127.0.0.0/8}]
                shares:
                  - {name: data, export: data}
                transports:
                  nfs: {enabled: false}
                  smb: {enabled: false}
                """.formatted(state, export));
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Path out = dir.resolve("out.log");
        Process p = new ProcessBuilder(java, "--enable-native-access=ALL-UNNAMED", "-cp",
                System.getProperty("java.class.path"), "io.rdmagate.gateway.Main", "serve", "--config",
                config.toString()).redirectErrorStream(true).redirectOutput(out.toFile()).start();
        try {
            int port = awaitHttpPort(p, out);
            HttpResponse<String> health = HttpClient.newHttpClient().send(
                    HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/health")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertEquals(200, health.statusCode());
            assertTrue(health.body().contains("\"status\":\"up\""), health.body());
            assertTrue(health.body().contains("\"name\":\"data\""), health.body());

            var probe = new java.io.StringWriter();
            var cli = Main.commandLine();
            cli.setOut(new java.io.PrintWriter(probe));
            assertEquals(0, cli.execute("health", "--http", "127.0.0.1:" + port), "rdmagate health: " + probe);
            assertTrue(probe.toString().contains("\"status\":\"up\""), probe.toString());

            p.destroy(); // SIGTERM
            assertTrue(p.waitFor(30, TimeUnit.SECONDS), "did not stop: " + Files.readString(out));
            String log = Files.readString(out);
            assertEquals(0, p.exitValue(), log);
            assertTrue(log.contains("protocol services in this build: nfs"), log);
            assertTrue(!log.contains("listening: nfs/"), "NFS is disabled in this configuration: " + log);
            assertTrue(log.contains("protocol service nfs: disabled in the configuration"), log);
            assertTrue(!log.contains("protocol service nfs stopped"), "a disabled service is not stopped: " + log);
            assertTrue(!log.contains("port plan:"), "no listener is planned: " + log);
            assertTrue(log.contains("SIGTERM received, stopping"), log);
            assertTrue(log.contains("export data closed"), log);
            assertTrue(log.contains("rdmagate stopped"), log);
            assertTrue(Files.isDirectory(state.resolve("exports").resolve("data")), "handle store directory");
            cli.setErr(new java.io.PrintWriter(new java.io.StringWriter()));
            assertEquals(1, cli.execute("health", "--http", "127.0.0.1:" + port, "--timeout", "2"),
                    "a stopped gateway is not healthy");
        } finally {
            p.destroyForcibly();
        }
    }

    private static int awaitHttpPort(Process p, Path out) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (System.nanoTime() < deadline) {
            Matcher m = HTTP_LINE.matcher(Files.readString(out));
            if (m.find()) {
                return Integer.parseInt(m.group(1));
            }
            if (!p.isAlive()) {
                fail("rdmagate exited with " + p.exitValue() + ":\n" + Files.readString(out));
            }
            Thread.sleep(50);
        }
        fail("rdmagate did not report its http port:\n" + Files.readString(out));
        return -1;
    }
}
