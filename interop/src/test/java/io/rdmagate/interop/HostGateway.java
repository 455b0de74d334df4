package io.rdmagate.interop;

import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The real rdmagate ({@code io.rdmagate.gateway.Main serve}) as a child process on the host,
 * on a temporary configuration: one export in a temporary directory, state in another, HTTP
 * on 127.0.0.1 at a free port. Guests reach it through a forward of {@link #httpPort()}.
 */
public final class HostGateway implements AutoCloseable {
    private static final Pattern HTTP_LINE = Pattern.compile("listening: http/tcp on 127\\.0\\.0\\.1:(\\d+)");

    private final Process process;
    private final Path log;
    private final int httpPort;

    private HostGateway(Process process, Path log, int httpPort) {
        this.process = process;
        this.log = log;
        this.httpPort = httpPort;
    }

    public static HostGateway start(Path dir) throws IOException, InterruptedException {
        return start(dir, """
                  nfs: {enabled: false}
                  smb: {enabled: false}
                """);
    }

    /**
     * With the given {@code transports:} body (indented two spaces). The export lets root in
     * unsquashed: the guest's workloads run as root.
     */
    public static HostGateway start(Path dir, String transports) throws IOException, InterruptedException {
        return start(dir, "", transports);
    }

    /** With further top-level keys ({@code users:} ...) written before {@code transports:}. */
    public static HostGateway start(Path dir, String extra, String transports)
            throws IOException, InterruptedException {
        return start(dir, extra, transports, null);
    }

    /**
     * As {@link #start(Path, String, String)}, the export a tmpfs of {@code size} (say "4m") mounted in
     * a mount namespace of the gateway's own: only the gateway sees it, and it goes when the gateway
     * ends. Its state directory stays on the real disk.
     */
    public static HostGateway startOnTmpfs(Path dir, String size, String extra, String transports)
            throws IOException, InterruptedException {
        return start(dir, extra, transports, size);
    }

    /** With the export's {@code clients:} rules given (a YAML flow list), e.g. to allow sec krb5. */
    public static HostGateway startWithClients(Path dir, String clients, String extra, String transports)
            throws IOException, InterruptedException {
        return start(dir, clients, extra, transports, null);
    }

    private static HostGateway start(Path dir, String extra, String transports, String tmpfsSize)
            throws IOException, InterruptedException {
        return start(dir, "[{match: \"*\", rootSquash: false}]", extra, transports, tmpfsSize);
    }

    private static HostGateway start(Path dir, String clients, String extra, String transports, String tmpfsSize)
            throws IOException, InterruptedException {
        Path export = Files.createDirectories(dir.resolve("export"));
        Path state = dir.resolve("state");
        Path config = dir.resolve("rdmagate.yaml");
        Files.writeString(config, """
                stateDir: %s
                http: {address: 127.0.0.1, port: 0}
                exports:
                  - name: data
                    path: %s
                    # secure (the default): the guest's kernel clients arrive through run-guest.sh's
                    # relay, which connects from a reserved port as they do; nfs-cp runs as root
                    clients: %s
                shares:
                  - {name: data, export: data}
                """.formatted(state, export, clients) + extra + "transports:\n" + transports);
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Path log = dir.resolve("rdmagate.log");
        List<String> cmd = new ArrayList<>();
        if (tmpfsSize != null) {
            // unshare and sh exec: the gateway keeps the child's pid, so stop() signals it directly
            cmd.addAll(List.of("unshare", "--mount", "--propagation", "private", "sh", "-c",
                    "mount -t tmpfs -o size=\"$1\" tmpfs \"$2\" && shift 2 && exec \"$@\"", "sh", tmpfsSize,
                    export.toString()));
        }
        cmd.addAll(List.of(java, "--enable-native-access=ALL-UNNAMED"));
        cmd.addAll(io.rdmagate.gateway.spi.security.TicketEnd.JVM_OPTIONS); // what the jar's manifest gives
        cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), "io.rdmagate.gateway.Main", "serve", "--config",
                config.toString()));
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile());
        // -Drdmagate.interop.gatewayLogLevel=DEBUG: the gateway's own level, for a failing lab job
        String level = System.getProperty("rdmagate.interop.gatewayLogLevel");
        if (level != null) {
            pb.environment().put("RDMAGATE_LOG_LEVEL", level);
        }
        Process p = pb.start();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (System.nanoTime() < deadline) {
            Matcher m = HTTP_LINE.matcher(Files.readString(log));
            if (m.find()) {
                return new HostGateway(p, log, Integer.parseInt(m.group(1)));
            }
            if (!p.isAlive()) {
                fail("rdmagate exited with " + p.exitValue() + ":\n" + Files.readString(log));
            }
            Thread.sleep(50);
        }
        p.destroyForcibly();
        fail("rdmagate did not report its http port:\n" + Files.readString(log));
        return null;
    }

    /** NFS (with MOUNT, NLM, NSM and RDMA) and SMB on free ports of 127.0.0.1, rpcbind off. */
    public record NfsAndSmb(int nfs, int mount, int smb, String transports) {
        public static NfsAndSmb onFreePorts() throws IOException {
            int nfs = freePort();
            int mount = freePort();
            int smb = freePort();
            return new NfsAndSmb(nfs, mount, smb, """
                      nfs: {port: %d, mountPort: %d, rdmaPort: %d, nlmPort: %d, nsmPort: %d}
                      rpcbind: {mode: off}
                      smb: {port: %d}
                    """.formatted(nfs, mount, freePort(), freePort(), freePort(), smb));
        }

        /** libnfs's URL of {@code name} in export "data", NFSv3 on these ports (no rpcbind). */
        public String nfsUrl(String name) {
            return "nfs://127.0.0.1/data/" + name + "?version=3&nfsport=" + nfs + "&mountport=" + mount;
        }
    }

    /** A {@code users:} section with one SMB user mapped to root, who may do anything in the export. */
    public static String rootSmbUser(String name, String password) {
        return """
                users:
                  - {name: %s, uid: 0, gid: 0, ntHash: %s}
                """.formatted(name, io.rdmagate.gateway.users.NtHash.of(password.toCharArray()));
    }

    /** Ports {@link #freePort} has handed out in this run: the kernel may offer a closed one again. */
    private static final java.util.Set<Integer> HANDED_OUT = java.util.concurrent.ConcurrentHashMap.newKeySet();

    /**
     * A TCP port on 127.0.0.1 that nothing listens on now, for a listener or a forward, and that no
     * earlier call of this run returned (two listeners of one configuration once got the same port).
     */
    public static int freePort() throws IOException {
        for (int tries = 0; tries < 1000; tries++) {
            // on every address and without SO_REUSEADDR, as a listener of the gateway's binds it: the kernel
            // then picks no port that another socket, a client's in TIME_WAIT among them, still holds
            try (java.net.ServerSocket s = new java.net.ServerSocket()) {
                s.setReuseAddress(false);
                s.bind(new java.net.InetSocketAddress(0), 1);
                if (HANDED_OUT.add(s.getLocalPort())) {
                    return s.getLocalPort();
                }
            }
        }
        throw new IOException("no free port that was not handed out already");
    }

    public int httpPort() {
        return httpPort;
    }

    /** The gateway's process id. */
    public long pid() {
        return process.pid();
    }

    /** The gateway's /metrics page, as Prometheus reads it. */
    public String metrics() throws IOException, InterruptedException {
        return java.net.http.HttpClient.newHttpClient().send(java.net.http.HttpRequest.newBuilder(
                java.net.URI.create("http://127.0.0.1:" + httpPort + "/metrics")).build(),
                java.net.http.HttpResponse.BodyHandlers.ofString()).body();
    }

    /** The value of one series (name and labels as printed) on a /metrics page, or -1 when absent. */
    public static double counter(String page, String series) {
        for (String line : page.split("\n")) {
            if (line.startsWith(series + " ")) {
                return Double.parseDouble(line.substring(series.length() + 1).strip());
            }
        }
        return -1;
    }

    public String log() throws IOException {
        return Files.readString(log);
    }

    /** SIGTERM, then the orderly stop; returns the exit status. */
    public int stop() throws InterruptedException {
        process.destroy();
        if (!process.waitFor(30, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            process.waitFor();
        }
        return process.exitValue();
    }

    /** SIGKILL, as a crash or the OOM killer ends it: no orderly stop; returns the exit status. */
    public int kill() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor();
        return process.exitValue();
    }

    @Override
    public void close() throws InterruptedException {
        if (process.isAlive()) {
            stop();
        }
    }
}
