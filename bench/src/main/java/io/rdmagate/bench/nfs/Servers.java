package io.rdmagate.bench.nfs;

import io.rdmagate.bench.ChildProcess;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Starts the servers the NFS benchmark compares, each as a child process exporting the same
 * directory on 127.0.0.1 with a configuration written here: rdmagate (its real program,
 * {@code io.rdmagate.gateway.Main serve}, on this JVM's class path) and nfs-ganesha with its
 * VFS backend. Ganesha cannot serve NFSv3 without an rpcbind to register with, so the harness
 * runs in a network namespace of its own ({@code bench/run nfs} makes it) and starts one there.
 */
final class Servers {
    private Servers() {
    }

    static int freePort() throws IOException {
        return ChildProcess.freePort();
    }

    static Process rpcbind(Path work) throws IOException, InterruptedException {
        String exe = System.getenv().getOrDefault("RPCBIND", "/sbin/rpcbind");
        Path log = work.resolve("rpcbind.log");
        Process p = new ProcessBuilder(exe, "-w", "-f").redirectErrorStream(true).redirectOutput(log.toFile()).start();
        ChildProcess.awaitPort(p, log, 111, "rpcbind");
        return p;
    }

    static ServerProcess rdmagate(Path work, Path export) throws IOException, InterruptedException {
        return rdmagate(work, export, null);
    }

    /** rdmagate; with {@code kerberos}, its export also takes sec=krb5, krb5i and krb5p with the realm's keytab. */
    static ServerProcess rdmagate(Path work, Path export, Kerberos kerberos) throws IOException, InterruptedException {
        Path dir = Files.createDirectories(work.resolve("rdmagate"));
        int nfs = freePort();
        int mount = freePort();
        int rdma = freePort();
        Path config = dir.resolve("rdmagate.yaml");
        Files.writeString(config, """
                stateDir: %s
                http: {address: 127.0.0.1, port: 0}
                exports:
                  - name: bench
                    path: %s
                    nfsPath: /bench
                    # RDMAGATE_BENCH_SYNC=false measures what the default sync costs
                    sync: %s
                    # insecure: the bench's clients call from unreserved ports
                    clients: [{match: "*", rootSquash: false, secure: false%s}]
                transports:
                  nfs: {port: %d, mountPort: %d, rdmaPort: %d, nlmPort: %d, nsmPort: %d, versions: ["3", "4.0", "4.1"]}
                  rpcbind: {mode: off}
                  smb: {enabled: false}
                """.formatted(dir.resolve("state"), export,
                !"false".equals(System.getenv("RDMAGATE_BENCH_SYNC")), kerberos == null ? "" : ", sec: [sys, krb5, krb5i, krb5p]",
                nfs, mount, rdma, freePort(), freePort())
                + (kerberos == null ? "" : """
                security:
                  kerberos: {keytab: %s, realm: %s, krb5Conf: %s, nfsPrincipal: "%s"}
                """.formatted(kerberos.keytab(), io.rdmagate.gateway.spi.security.MitKdc.REALM, kerberos.krb5Conf(),
                        Kerberos.SERVICE)));
        Path log = dir.resolve("rdmagate.log");
        Process p = ChildProcess.rdmagate(config, log);
        ChildProcess.awaitPort(p, log, nfs, "rdmagate");
        ChildProcess.awaitPort(p, log, mount, "rdmagate");
        ChildProcess.awaitPort(p, log, rdma, "rdmagate");
        return new ServerProcess("rdmagate", p, log, address(nfs), address(mount), "/bench", address(rdma));
    }

    static ServerProcess ganesha(Path work, Path export) throws IOException, InterruptedException {
        return ganesha(work, export, false, null);
    }

    /**
     * Ganesha serving NFSv3, or NFSv4.1 only: no grace period at start, so the first OPEN is served, and
     * no delegations, which it would hand out to a client without a back channel and rdmagate does not.
     * With {@code kerberos}, its GSS acceptor takes the realm's keytab and the export also takes
     * sec=krb5, krb5i and krb5p.
     */
    static ServerProcess ganesha(Path work, Path export, boolean v41, Kerberos kerberos)
            throws IOException, InterruptedException {
        Path dir = Files.createDirectories(work.resolve("ganesha"));
        int nfs = freePort();
        int mount = freePort();
        Path config = dir.resolve("ganesha.conf");
        Files.writeString(config, """
                NFS_CORE_PARAM {
                  Protocols = %s;
                  NFS_Port = %d;
                  MNT_Port = %d;
                  Enable_NLM = false;
                  Enable_RQUOTA = false;
                }
                %s
                NFSV4 { Minor_Versions = 1; Graceless = true; Delegations = false;%s }
                EXPORT {
                  Export_Id = 1;
                  Path = %s;
                  Pseudo = /bench;
                  Access_Type = RW;
                  Squash = No_Root_Squash;
                  Protocols = %s;
                  Transports = TCP;
                  Delegations = None;
                  SecType = %s;
                  MaxRead = 1048576;
                  MaxWrite = 1048576;
                  FSAL { Name = VFS; }
                }
                """.formatted(v41 ? "4" : "3", nfs, mount, kerberos == null ? "NFS_KRB5 { Active_krb5 = false; }"
                        : "NFS_KRB5 { Active_krb5 = true; PrincipalName = \"nfs@%s\"; KeytabPath = \"%s\"; }"
                                .formatted(Kerberos.HOST, kerberos.keytab()),
                kerberos == null ? "" : " IdmapConf = \"" + idmapConf(dir) + "\";",
                export, v41 ? "4" : "3", kerberos == null ? "sys" : "sys, krb5, krb5i, krb5p"));
        Path log = dir.resolve("ganesha.log");
        String exe = System.getenv().getOrDefault("GANESHA", "ganesha.nfsd");
        ProcessBuilder pb = new ProcessBuilder(List.of(exe, "-F", "-f", config.toString(), "-L", log.toString(), "-p",
                dir.resolve("ganesha.pid").toString(), "-N", "NIV_EVENT")).redirectErrorStream(true)
                .redirectOutput(dir.resolve("stdout").toFile());
        if (kerberos != null) {
            pb.environment().put("KRB5_CONFIG", kerberos.krb5Conf().toString());
        }
        Process p = pb.start();
        ChildProcess.awaitPort(p, log, nfs, "ganesha");
        if (v41) {
            return new ServerProcess("ganesha", p, log, address(nfs), address(mount), "/bench", null);
        }
        ChildProcess.awaitPort(p, log, mount, "ganesha");
        // NFSv3 clients mount the export's Path, not its pseudo path
        return new ServerProcess("ganesha", p, log, address(nfs), address(mount), export.toString(), null);
    }

    /**
     * libnfsidmap's configuration for ganesha: principals of the realm are the host's accounts of
     * their name (root@EXAMPLE.TEST is root), as rdmagate maps them.
     */
    private static Path idmapConf(Path dir) throws IOException {
        Path conf = dir.resolve("idmapd.conf");
        Files.writeString(conf, """
                [General]
                Domain = example.test
                Local-Realms = %s
                [Translation]
                Method = nsswitch
                """.formatted(io.rdmagate.gateway.spi.security.MitKdc.REALM));
        return conf;
    }

    private static InetSocketAddress address(int port) {
        return new InetSocketAddress("127.0.0.1", port);
    }
}
