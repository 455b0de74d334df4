package io.rdmagate.bench;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** What every harness needs of the servers it starts as child processes: ports, readiness, CPU time. */
public final class ChildProcess {
    /** Linux's USER_HZ, the unit of utime and stime in /proc/PID/stat. */
    private static final double TICKS_PER_SECOND = 100;

    private ChildProcess() {
    }

    /** A port that was free a moment ago on this host. */
    public static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    /** User + system CPU seconds that process {@code pid} has used so far (all its threads). */
    public static double cpuSeconds(long pid) throws IOException {
        String stat;
        try {
            stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
        } catch (NoSuchFileException gone) {
            return 0;
        }
        // fields after the parenthesised command name: state is field 3, utime 14, stime 15
        String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        return (Long.parseLong(f[11]) + Long.parseLong(f[12])) / TICKS_PER_SECOND;
    }

    /**
     * CPU seconds of {@code p} and of its living descendants: a server that forks a process per
     * client (smbd) does its work in the children.
     */
    public static double treeCpuSeconds(Process p) throws IOException {
        double sum = cpuSeconds(p.pid());
        for (ProcessHandle h : p.descendants().toList()) {
            sum += cpuSeconds(h.pid());
        }
        return sum;
    }

    /**
     * Starts rdmagate's real program ({@code io.rdmagate.gateway.Main serve}) on this JVM's class
     * path with {@code config}, its output in {@code log}; {@code RDMAGATE_BENCH_JAVA_OPTS} adds JVM
     * options (e.g. a flight recording).
     */
    public static Process rdmagate(Path config, Path log) throws IOException {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<String> cmd = new ArrayList<>(List.of(java, "--enable-native-access=ALL-UNNAMED"));
        cmd.addAll(io.rdmagate.gateway.spi.security.TicketEnd.JVM_OPTIONS); // what the jar's manifest gives
        String opts = System.getenv("RDMAGATE_BENCH_JAVA_OPTS");
        if (opts != null && !opts.isBlank()) {
            cmd.addAll(List.of(opts.trim().split("\\s+")));
        }
        cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), "io.rdmagate.gateway.Main", "serve",
                "--config", config.toString()));
        return new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    }

    /** Waits until {@code port} on 127.0.0.1 accepts connections, or fails with the server's log. */
    public static void awaitPort(Process p, Path log, int port, String name) throws IOException, InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
        while (System.nanoTime() < deadline) {
            if (!p.isAlive()) {
                throw new IOException(name + " exited with " + p.exitValue() + ":\n" + tail(log));
            }
            try (Socket s = new Socket()) {
                s.connect(new InetSocketAddress("127.0.0.1", port), 500);
                return;
            } catch (IOException notYet) {
                Thread.sleep(100);
            }
        }
        p.destroyForcibly();
        throw new IOException(name + " did not listen on " + port + " within 90 s:\n" + tail(log));
    }

    /** The last 4 000 characters of a log, for an error message. */
    public static String tail(Path log) throws IOException {
        if (!Files.exists(log)) {
            return "(no log)";
        }
        String s = Files.readString(log);
        return s.length() > 4000 ? s.substring(s.length() - 4000) : s;
    }

    /** Ends {@code p}: SIGTERM, then SIGKILL after 30 s. */
    public static void stop(Process p) throws InterruptedException {
        p.destroy();
        if (!p.waitFor(30, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            p.waitFor();
        }
    }
}
