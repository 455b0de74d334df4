package io.rdmagate.interop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rdmagate.gateway.spi.security.MitKdc;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Linux kernel NFS client against rdmagate: rdmagate runs on the HOST (the real program,
 * as a child process); the guest mounts it through qemu forwards, NFSv3 over TCP and NFSv3
 * over RDMA (the guest's siw on its NIC talking to rdmagate's built-in soft iWARP), and runs
 * the same workload that PeerWorkloadTest proves against knfsd. Mounted without {@code nolock}:
 * the flock and fcntl checks go through rdmagate's NLM, found through its embedded rpcbind.
 * With Kerberos (a real MIT KDC on the host, reached by the guest through a forward of port 88):
 * rpc.gssd in the guest gets tickets with the guest's machine keytab and the client mounts with
 * sec=krb5, krb5i and krb5p (RPCSEC_GSS) over TCP and RDMA, NFSv3 and NFSv4.2, writing as the
 * identity the machine principal maps to.
 */
@Tag("interop")
class RdmagateNfsKernelClientTest {
    private static final List<String> CHECKS = List.of("mount", "small-tree", "large-file", "namespace", "symlink",
            "hardlink", "attributes", "flock", "fcntl-lock", "concurrent-writers", "unmount");

    /** The gateway's name in its principal nfs/KRB5_HOST; the guest resolves it to 10.0.2.100. */
    private static final String KRB5_HOST = "gw.example.test";
    /** The guest's machine principal, whose key the guest's keytab holds (rpc.gssd uses it for root). */
    private static final String MACHINE = "host/client.example.test";
    private static final int KRB5_UID = 4244;
    private static final List<String> KRB5_LABELS = List.of("rdmagate-krb5-v3-tcp", "rdmagate-krb5i-v3-tcp",
            "rdmagate-krb5-v42-tcp", "rdmagate-krb5p-v42-tcp", "rdmagate-krb5-v3-rdma", "rdmagate-krb5i-v3-rdma",
            "rdmagate-krb5p-v3-rdma");

    @RegisterExtension
    final GuestLab lab = new GuestLab();

    @TempDir
    Path dir;

    @Test
    void kernelClientMountsOverTcpAndOverRdmaAndRunsTheWorkload() throws Exception {
        int nfs = HostGateway.freePort();
        int mount = HostGateway.freePort();
        int rdma = HostGateway.freePort();
        int nlm = HostGateway.freePort();
        int nsm = HostGateway.freePort();
        int rpcbind = HostGateway.freePort();
        String transports = """
                  nfs: {port: %d, mountPort: %d, rdmaPort: %d, nlmPort: %d, nsmPort: %d}
                  rpcbind: {mode: embedded, port: %d}
                  smb: {enabled: false}
                """.formatted(nfs, mount, rdma, nlm, nsm, rpcbind);
        MitKdc kdc = MitKdc.start(Files.createDirectories(dir.resolve("realm")));
        Path keytab = dir.resolve("realm").resolve("rdmagate.keytab");
        kdc.addService("nfs/" + KRB5_HOST, keytab);
        Path guestKeytab = dir.resolve("realm").resolve("client.keytab");
        kdc.addService(MACHINE, guestKeytab);
        String security = """
                security:
                  kerberos:
                    keytab: %s
                    realm: %s
                    krb5Conf: %s
                    nfsPrincipal: nfs/%s
                    idmap: {"%s@%s": "%d:%d"}
                """.formatted(keytab, MitKdc.REALM, kdc.krb5Conf(), KRB5_HOST, MACHINE, MitKdc.REALM, KRB5_UID, KRB5_UID);
        String clients = "[{match: \"*\", rootSquash: false, sec: [sys, krb5, krb5i, krb5p]}]";
        try (kdc; HostGateway gateway = HostGateway.startWithClients(dir, clients, security, transports)) {
            Path krb5Dir = Files.createDirectories(dir.resolve("export").resolve("krb5"));
            Files.setPosixFilePermissions(krb5Dir, java.nio.file.attribute.PosixFilePermissions.fromString("rwxrwxrwx"));
            List<String> expected = new ArrayList<>(List.of("nic-up", "statd", "siw-nic", "rdma-no-version",
                    "kernel-clean"));
            for (String label : KRB5_LABELS) {
                for (String c : List.of("mount", "sec", "io", "unmount")) {
                    expected.add(label + "/" + c);
                }
            }
            for (String proto : List.of("tcp", "rdma")) {
                for (String c : CHECKS) {
                    expected.add("rdmagate-v3-" + proto + "/" + c);
                }
            }
            for (String c : List.of("big-directory", "long-symlink", "concurrent-dd")) {
                expected.add("rdmagate-v3-rdma-chunks/" + c);
            }
            GuestRun run = lab.job("rdmagate-nfs")
                    .labScript("rdmagate-nfs.sh")
                    .env("NFS_PORT", nfs)
                    .env("MOUNT_PORT", mount)
                    .env("RDMA_PORT", rdma)
                    .env("WORKLOAD_BIG_MIB", GuestLab.bigMiB())
                    .env("RDMA_BIG_MIB", GuestLab.rdmaBigMiB())
                    .forward(nfs)
                    .forward(mount)
                    .forward(rdma)
                    .forward(nlm)
                    .forward(nsm)
                    .forward(111, rpcbind)
                    .forward(88, kdc.port())
                    // rpc.gssd makes the context of an RDMA mount over TCP to port 2049, where NFS listens by default
                    .forward(2049, nfs)
                    .file("krb5.conf", MitKdc.clientConf("10.0.2.100:88").getBytes(java.nio.charset.StandardCharsets.UTF_8))
                    .file("krb5.keytab", Files.readAllBytes(guestKeytab))
                    .timeout(Duration.ofMinutes(25))
                    .run();
            run.assertPassed(expected);
            for (String label : KRB5_LABELS) {
                assertEquals(KRB5_UID, Files.getAttribute(krb5Dir.resolve(label + ".bin"), "unix:uid"),
                        label + ": written as the uid " + MACHINE + " maps to, not the AUTH_SYS uid 0");
            }
            assertTrue(gateway.log().contains("NFS Kerberos (RPCSEC_GSS): accepting tickets for nfs/" + KRB5_HOST),
                    gateway.log());
            assertEquals(0, gateway.stop(), gateway.log());
        }
    }

    /**
     * The gateway killed (SIGKILL, as a crash or the OOM killer ends it) in the middle of a copy
     * over NFS/RDMA: the host watches the file grow in the export and, once a quarter of it has
     * arrived, kills rdmagate and starts it again (same ports, same handle store). The guest's
     * copy must finish and read back intact: the client's unstable writes the crash lost are sent
     * again when COMMIT's verifier changes, and what was committed before is on disk.
     */
    @Test
    void copyOverRdmaSurvivesAGatewayKilledMidCopy() throws Exception {
        int mib = 128;
        String transports = """
                  nfs: {port: %d, mountPort: %d, rdmaPort: %d, nlmPort: %d, nsmPort: %d}
                  rpcbind: {mode: off}
                  smb: {enabled: false}
                """.formatted(HostGateway.freePort(), HostGateway.freePort(), HostGateway.freePort(), HostGateway.freePort(),
                        HostGateway.freePort());
        int mount = port(transports, "mountPort");
        int rdma = port(transports, "rdmaPort");
        HostGateway[] gateway = {HostGateway.start(dir, transports)};
        long[] sizeAtRestart = {-1};
        Thread restarter = restartAtAQuarter(gateway, transports, mib, sizeAtRestart, true);
        try {
            GuestRun run = lab.job("rdmagate-nfs-restart")
                    .labScript("rdmagate-nfs-restart.sh")
                    .env("MOUNT_PORT", mount)
                    .env("RDMA_PORT", rdma)
                    .env("RESTART_MIB", mib)
                    .forward(mount)
                    .forward(rdma)
                    .timeout(Duration.ofMinutes(15))
                    .run();
            restarter.join(Duration.ofSeconds(5));
            assertTrue(sizeAtRestart[0] > 0 && sizeAtRestart[0] < ((long) mib << 20),
                    "the gateway restarted while the copy was under way (size then " + sizeAtRestart[0] + ")");
            run.assertPassed(List.of("nic-up", "siw-nic", "mount", "copy", "remount", "intact", "kernel-clean"));
            assertEquals(0, gateway[0].stop(), gateway[0].log());
        } finally {
            restarter.interrupt();
            gateway[0].close();
        }
    }

    /**
     * The same over NFSv4.1 on RDMA, with a process holding an fcntl lock on another file of the
     * mount: the restarted gateway finds the client in its record, grants the grace period, the
     * client reclaims its opens and the lock, and the copy finishes intact while the lock still
     * refuses a third process.
     */
    @Test
    void nfs41CopyAndLockOverRdmaSurviveAGatewayRestart() throws Exception {
        int mib = 96;
        int nfs = HostGateway.freePort();
        int rdma = HostGateway.freePort();
        String transports = """
                  nfs: {port: %d, mountPort: %d, rdmaPort: %d, nlmPort: %d, nsmPort: %d, versions: ["3", "4.1"]}
                  rpcbind: {mode: off}
                  smb: {enabled: false}
                """.formatted(nfs, HostGateway.freePort(), rdma, HostGateway.freePort(), HostGateway.freePort());
        HostGateway[] gateway = {HostGateway.start(dir, transports)};
        long[] sizeAtRestart = {-1};
        Thread restarter = restartAtAQuarter(gateway, transports, mib, sizeAtRestart, false);
        try {
            GuestRun run = lab.job("rdmagate-nfs41-restart")
                    .labScript("rdmagate-nfs-restart.sh")
                    .env("RESTART_OPTS", "vers=4.1,proto=rdma,port=" + rdma)
                    .env("RESTART_LOCK", 1)
                    .env("RESTART_MIB", mib)
                    .forward(nfs)
                    .forward(rdma)
                    .timeout(Duration.ofMinutes(15))
                    .run();
            restarter.join(Duration.ofSeconds(5));
            assertTrue(sizeAtRestart[0] > 0 && sizeAtRestart[0] < ((long) mib << 20),
                    "the gateway restarted while the copy was under way (size then " + sizeAtRestart[0] + ")");
            run.assertPassed(List.of("nic-up", "siw-nic", "mount", "lock-held", "copy", "lock-survives", "lock-released",
                    "remount", "intact", "kernel-clean"));
            String log = gateway[0].log();
            assertTrue(log.contains("NFSv4.1 grace period: 1 clients of the previous run may reclaim"), log);
            assertTrue(log.contains("NFSv4.1 grace period ended: every client reclaimed"), log);
            assertEquals(0, gateway[0].stop(), gateway[0].log());
        } finally {
            restarter.interrupt();
            gateway[0].close();
        }
    }

    /**
     * Watches restart.bin grow in the export and, once a quarter of {@code mib} has arrived, stops the
     * gateway (SIGTERM, or SIGKILL with {@code kill}) and starts it again with the same configuration
     * and state; the size it had then goes to {@code sizeAtRestart[0]}. Gives up after 10 minutes
     * without that much.
     */
    private Thread restartAtAQuarter(HostGateway[] gateway, String transports, int mib, long[] sizeAtRestart,
            boolean kill) {
        Path file = dir.resolve("export").resolve("restart.bin");
        return Thread.ofVirtual().start(() -> {
            try {
                long deadline = System.nanoTime() + Duration.ofMinutes(10).toNanos();
                while (!Files.exists(file) || Files.size(file) < (mib << 20) / 4) {
                    if (System.nanoTime() > deadline) {
                        return;
                    }
                    Thread.sleep(20); // polling the file's size: the guest's copy gives no other signal
                }
                sizeAtRestart[0] = Files.size(file);
                if (kill) {
                    assertEquals(137, gateway[0].kill(), "killed by SIGKILL: " + gateway[0].log());
                } else {
                    assertEquals(0, gateway[0].stop(), gateway[0].log());
                }
                gateway[0] = HostGateway.start(dir, transports);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (Exception e) {
                throw new RuntimeException(e);
            }
        });
    }

    private static int port(String transports, String key) {
        java.util.regex.Matcher m = java.util.regex.Pattern.compile(key + ": (\\d+)").matcher(transports);
        assertTrue(m.find(), key);
        return Integer.parseInt(m.group(1));
    }

}
