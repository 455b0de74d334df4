package io.rdmagate.bench.smb;

import io.rdmagate.bench.ChildProcess;
import io.rdmagate.gateway.users.NtHash;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Starts the servers the SMB benchmark compares, each as a child process serving the same
 * directory as share {@code bench} (and {@code bench-enc}, encryption required) on 127.0.0.1 with a configuration written here: rdmagate (its
 * real program, {@code io.rdmagate.gateway.Main serve}, SMB only) and Samba's smbd (as root, all
 * its state under the harness's work directory).
 */
final class SmbServers {
    static final String SHARE = "bench";
    /** The same directory as a share that takes only encrypted requests (SMB 3 encryption). */
    static final String ENCRYPTED_SHARE = "bench-enc";

    private SmbServers() {
    }

    static SmbServerProcess rdmagate(Path work, Path export, String password) throws IOException, InterruptedException {
        Path dir = Files.createDirectories(work.resolve("rdmagate"));
        int port = ChildProcess.freePort();
        Path config = dir.resolve("rdmagate.yaml");
        Files.writeString(config, """
                stateDir: %s
                http: {address: 127.0.0.1, port: 0}
                exports:
                  - name: bench
                    path: %s
                    clients: [{match: "*", rootSquash: false, secure: false}]
                shares:
                  - {name: %s, export: bench}
                  - {name: %s, export: bench, encrypt: true}
                users:
                  - {name: bench, uid: 0, gid: 0, ntHash: %s}
                transports:
                  nfs: {enabled: false}
                  rpcbind: {mode: off}
                  smb: {port: %d, directPort: %d}
                """.formatted(dir.resolve("state"), export, SHARE, ENCRYPTED_SHARE, NtHash.of(password.toCharArray()), port,
                ChildProcess.freePort()));
        Path log = dir.resolve("rdmagate.log");
        Process p = ChildProcess.rdmagate(config, log);
        ChildProcess.awaitPort(p, log, port, "rdmagate");
        return new SmbServerProcess("rdmagate", p, log, port, "bench", SHARE);
    }

    static SmbServerProcess smbd(Path work, Path export, String password) throws IOException, InterruptedException {
        Path dir = Files.createDirectories(work.resolve("samba"));
        for (String d : List.of("priv", "lock", "state", "cache", "pid", "log")) {
            Files.createDirectories(dir.resolve(d));
        }
        int port = ChildProcess.freePort();
        Path config = dir.resolve("smb.conf");
        Files.writeString(config, """
                [global]
                  server role = standalone server
                  workgroup = WORKGROUP
                  interfaces = 127.0.0.1
                  bind interfaces only = yes
                  smb ports = %d
                  disable netbios = yes
                  private dir = %s
                  lock directory = %s
                  state directory = %s
                  cache directory = %s
                  pid directory = %s
                  log file = %s
                  passdb backend = tdbsam:%s
                  server min protocol = SMB2_02
                [%s]
                  path = %s
                  read only = no
                [%s]
                  path = %s
                  read only = no
                  server smb encrypt = required
                """.formatted(port, dir.resolve("priv"), dir.resolve("lock"), dir.resolve("state"),
                dir.resolve("cache"), dir.resolve("pid"), dir.resolve("log/smbd.log"), dir.resolve("priv/passdb.tdb"),
                SHARE, export, ENCRYPTED_SHARE, export));
        String smbd = System.getenv().getOrDefault("SMBD", "/usr/sbin/smbd");
        String smbpasswd = System.getenv().getOrDefault("SMBPASSWD", "/usr/bin/smbpasswd");
        Process pw = new ProcessBuilder(smbpasswd, "-c", config.toString(), "-a", "-s", "root")
                .redirectErrorStream(true).redirectOutput(dir.resolve("log/smbpasswd").toFile()).start();
        pw.getOutputStream().write((password + "\n" + password + "\n").getBytes(StandardCharsets.UTF_8));
        pw.getOutputStream().close();
        if (!pw.waitFor(60, TimeUnit.SECONDS) || pw.exitValue() != 0) {
            throw new IOException("smbpasswd failed:\n" + ChildProcess.tail(dir.resolve("log/smbpasswd")));
        }
        Path log = dir.resolve("log/smbd.log");
        // a session of its own: smbd ends its process group when it stops, which would otherwise be the harness's
        Process p = new ProcessBuilder("setsid", smbd, "-s", config.toString(), "-F", "--no-process-group")
                .redirectErrorStream(true).redirectOutput(dir.resolve("log/stdout").toFile()).start();
        ChildProcess.awaitPort(p, log, port, "smbd");
        return new SmbServerProcess("smbd", p, log, port, "root", SHARE);
    }
}
