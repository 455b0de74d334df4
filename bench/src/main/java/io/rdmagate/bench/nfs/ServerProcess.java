package io.rdmagate.bench.nfs;

import io.rdmagate.bench.ChildProcess;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;

/**
 * An NFSv3 server the harness started as a child process: where its NFS and MOUNT programs
 * listen, the path a client mounts, where it takes RPC-over-RDMA (soft iWARP; null when not), and the process's CPU time (all its threads) from
 * {@code /proc}.
 */
record ServerProcess(String name, Process process, Path log, InetSocketAddress nfs, InetSocketAddress mount,
        String mountPath, InetSocketAddress rdma) implements AutoCloseable {
    /** User + system CPU seconds the server has used so far. */
    double cpuSeconds() throws IOException {
        return ChildProcess.cpuSeconds(process.pid());
    }

    @Override
    public void close() throws InterruptedException {
        ChildProcess.stop(process);
    }
}
