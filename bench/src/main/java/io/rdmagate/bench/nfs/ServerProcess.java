package io.rdmagate.bench.nfs;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * An NFSv3 server the harness started as a child process: where its NFS and MOUNT programs
 * listen, the path a client mounts, where it takes RPC-over-RDMA (soft iWARP; null when not), and the process's CPU time (all its threads) from
 * {@code /proc}.
 */
record ServerProcess(String name, Process process, Path log, InetSocketAddress nfs, InetSocketAddress mount,
        String mountPath, InetSocketAddress rdma) implements AutoCloseable {
    /** Linux's USER_HZ, the unit of utime and stime in /proc/PID/stat. */
    private static final double TICKS_PER_SECOND = 100;

    /** User + system CPU seconds the server has used so far. */
    double cpuSeconds() throws IOException {
        String stat = Files.readString(Path.of("/proc", Long.toString(process.pid()), "stat"));
        // fields after the parenthesised command name: state is field 3, utime 14, stime 15
        String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        return (Long.parseLong(f[11]) + Long.parseLong(f[12])) / TICKS_PER_SECOND;
    }

    /** Waits until {@code port} accepts connections, or fails with the server's log. */
    static void awaitPort(Process p, Path log, int port, String name) throws IOException, InterruptedException {
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

    static String tail(Path log) throws IOException {
        if (!Files.exists(log)) {
            return "(no log)";
        }
        String s = Files.readString(log);
        return s.length() > 4000 ? s.substring(s.length() - 4000) : s;
    }

    @Override
    public void close() throws InterruptedException {
        process.destroy();
        if (!process.waitFor(30, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            process.waitFor();
        }
    }
}
