package io.rdmagate.interop;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** The host's client programs (libnfs's nfs-*, smbclient) as the host-side tests run them. */
final class HostClients {
    private HostClients() {
    }

    /** A finished command: its exit status and its output (stdout and stderr). */
    record Run(int exit, String output) {
    }

    /** Runs {@code cmd} in {@code cwd}; fails the test if it takes more than two minutes. */
    static Run run(Path cwd, String... cmd) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(cmd).directory(cwd.toFile()).redirectErrorStream(true).start();
        byte[] out = p.getInputStream().readAllBytes();
        assertTrue(p.waitFor(120, TimeUnit.SECONDS), String.join(" ", cmd));
        return new Run(p.exitValue(), new String(out, StandardCharsets.UTF_8));
    }

    /** smbclient on share "data" of 127.0.0.1:{@code port}, SMB 3, with {@code auth} ("-U", "u%p" or "-N"). */
    static Run smbclient(Path cwd, int port, List<String> auth, String commands)
            throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of("smbclient", "//127.0.0.1/data", "-p", String.valueOf(port),
                "-m", "SMB3"));
        cmd.addAll(auth);
        cmd.addAll(List.of("-c", commands));
        return run(cwd, cmd.toArray(String[]::new));
    }

    /** smbclient as {@code user} with {@code password}. */
    static Run smbclient(Path cwd, int port, String user, String password, String commands)
            throws IOException, InterruptedException {
        return smbclient(cwd, port, List.of("-U", user + "%" + password), commands);
    }
}
