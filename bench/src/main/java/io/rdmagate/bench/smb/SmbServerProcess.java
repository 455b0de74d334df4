package io.rdmagate.bench.smb;

import io.rdmagate.bench.ChildProcess;
import java.io.IOException;
import java.nio.file.Path;

/**
 * An SMB server the harness started as a child process: its port on 127.0.0.1, the user and share
 * a client logs on to, and the CPU time of the server and of any process it forked for a client.
 */
record SmbServerProcess(String name, Process process, Path log, int port, String user, String share)
        implements AutoCloseable {
    double cpuSeconds() throws IOException {
        return ChildProcess.treeCpuSeconds(process);
    }

    @Override
    public void close() throws InterruptedException {
        ChildProcess.stop(process);
    }
}
