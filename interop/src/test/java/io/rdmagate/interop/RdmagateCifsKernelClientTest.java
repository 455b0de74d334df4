package io.rdmagate.interop;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.rdmagate.gateway.spi.security.MitKdc;
import io.rdmagate.gateway.users.NtHash;
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
 * The Linux kernel cifs client against rdmagate: rdmagate runs on the HOST (the real program,
 * as a child process, with one SMB user stored as an NT hash); the guest mounts its share with
 * SMB 3.1.1 over TCP through a qemu forward, then sealed, then over SMB Direct (siw in the guest,
 * rdmagate's soft iWARP on the host), and runs the workload that PeerWorkloadTest proves against
 * ksmbd. Over SMB Direct the file data moves by RDMA (the READ and WRITE RDMA channel), which the
 * gateway's metrics show. Over TCP, cifs-utils' setcifsacl and getcifsacl set and read a file's
 * DACL: a DACL that allows only reading refuses the client's write, and a new file inherits its
 * directory's inheritable entry. With Kerberos (a real MIT KDC on the host, its ticket cache
 * handed to the guest), cifs mounts with sec=krb5, signed and sealed, and writes as the uid the
 * principal maps to.
 */
@Tag("interop")
class RdmagateCifsKernelClientTest {
    private static final List<String> CHECKS = List.of("mount", "small-tree", "large-file", "namespace", "symlink",
            "hardlink", "attributes", "flock", "fcntl-lock", "concurrent-writers", "unmount");
    private static final String USER = "lab";
    private static final String PASSWORD = "Lab-pass-1";
    /** The gateway's name in its Kerberos principal; the guest mounts //KRB5_HOST/data with ip=. */
    private static final String KRB5_HOST = "gw.example.test";
    private static final int KRB5_UID = 4243;

    @RegisterExtension
    final GuestLab lab = new GuestLab();

    @TempDir
    Path dir;

    @Test
    void kernelClientMountsSmb311AndRunsTheWorkload() throws Exception {
        int smb = HostGateway.freePort();
        int direct = HostGateway.freePort();
        String transports = """
                  nfs: {enabled: false}
                  smb: {port: %d, directPort: %d}
                """.formatted(smb, direct);
        // the guest reaches the gateway at 10.0.2.100: the interface extra channels go to, listed
        // with and without RDMA (Linux binds only channels of the primary's kind to an interface)
        MitKdc kdc = MitKdc.start(Files.createDirectories(dir.resolve("realm")));
        Path keytab = dir.resolve("realm").resolve("rdmagate.keytab");
        kdc.addService("cifs/" + KRB5_HOST, keytab);
        kdc.addUser(USER, "Lab-krb-1");
        Path job = Files.createDirectories(dir.resolve("krb5-for-guest"));
        kdc.kinit(USER, "Lab-krb-1", job.resolve("krb5cc"));
        kdc.serviceTicket("cifs/" + KRB5_HOST, job.resolve("krb5cc")); // the guest reaches no KDC
        kdc.close();
        String users = """
                users:
                  - {name: %s, uid: 0, gid: 0, ntHash: %s}
                smb:
                  interfaces: [{address: 10.0.2.100, rdma: true}, {address: 10.0.2.100, rdma: false}]
                security:
                  kerberos:
                    keytab: %s
                    realm: %s
                    krb5Conf: %s
                    smbPrincipal: cifs/%s
                    idmap: {"%s@%s": "%d:%d"}
                """.formatted(USER, NtHash.of(PASSWORD.toCharArray()), keytab, MitKdc.REALM, kdc.krb5Conf(), KRB5_HOST,
                USER, MitKdc.REALM, KRB5_UID, KRB5_UID);
        try (HostGateway gateway = HostGateway.start(dir, users, transports)) {
            Path krb = Files.createDirectories(dir.resolve("export").resolve("krb"));
            Files.setPosixFilePermissions(krb, java.nio.file.attribute.PosixFilePermissions.fromString("rwxrwxrwx"));
            List<String> expected = new ArrayList<>(List.of("nic-up", "siw-nic", "kernel-clean"));
            for (String kind : List.of("tcp", "rdma")) {
                for (String c : List.of("channels", "io", "unmount")) {
                    expected.add("multichannel-" + kind + "/" + c);
                }
            }
            for (String c : List.of("mount", "getcifsacl", "set-read-only", "reads-back", "write-refused", "read-allowed",
                    "full-control-back", "write-allowed", "set-inheritable", "inherited", "unmount")) {
                expected.add("rdmagate-acl/" + c);
            }
            for (String mode : List.of("sign", "seal")) {
                for (String c : List.of("mount", "sec-type", "io", "unmount")) {
                    expected.add("rdmagate-krb5/" + mode + "-" + c);
                }
            }
            for (String mode : List.of("tcp", "seal", "rdma")) {
                for (String c : CHECKS) {
                    expected.add("rdmagate-3.1.1-" + mode + "/" + c);
                }
            }
            GuestRun run = lab.job("rdmagate-cifs")
                    .labScript("rdmagate-cifs.sh")
                    .env("SMB_PORT", smb)
                    .env("SMB_USER", USER)
                    .env("SMB_PASSWORD", PASSWORD)
                    .env("WORKLOAD_BIG_MIB", GuestLab.bigMiB())
                    .file("krb5cc", Files.readAllBytes(job.resolve("krb5cc")))
                    .file("krb5.conf", MitKdc.clientConf("10.0.2.100:88").getBytes(java.nio.charset.StandardCharsets.UTF_8))
                    .forward(smb)
                    .forward(5445, direct)
                    .forward(445, smb) // Linux opens extra channels on 445, whatever port= says
                    .timeout(Duration.ofMinutes(35))
                    .run();
            try {
                run.assertPassed(expected);
            } catch (AssertionError e) {
                // what the gateway said about SMB Direct and sessions, beside the guest's view
                String said = gateway.log().lines()
                        .filter(l -> l.contains("smbd") || l.contains("SMB Direct") || l.contains("SESSION_SETUP")
                                || l.contains("closing") || l.contains("WARN") || l.contains("ERROR"))
                        .limit(200).collect(java.util.stream.Collectors.joining("\n"));
                throw new AssertionError(e.getMessage() + "\ngateway:\n" + said, e);
            }
            for (String mode : List.of("sign", "seal")) {
                assertEquals(KRB5_UID, Files.getAttribute(krb.resolve(mode + ".bin"), "unix:uid"),
                        "the file the Kerberos mount wrote belongs to the uid " + USER + "@" + MitKdc.REALM + " maps to");
            }
            String metrics = gateway.metrics();
            double written = HostGateway.counter(metrics, "rdmagate_smb_rdma_bytes_total{direction=\"write\"}");
            double read = HostGateway.counter(metrics, "rdmagate_smb_rdma_bytes_total{direction=\"read\"}");
            long big = GuestLab.bigMiB() * (1L << 20);
            // the workload writes the large file once and reads it back: its bytes crossed by RDMA
            org.junit.jupiter.api.Assertions.assertTrue(read >= big && written >= big,
                    "RDMA channel bytes: read " + read + ", written " + written + ", large file " + big);
            org.junit.jupiter.api.Assertions.assertTrue(HostGateway.counter(metrics,
                    "rdmagate_smb_connections_accepted_total{transport=\"rdma\"}") >= 3, metrics);
            assertEquals(0, gateway.stop(), gateway.log());
        }
    }


    /**
     * The gateway killed with SIGKILL (a crash, the OOM killer) while the kernel's cifs client has a
     * session on it over SMB Direct: the guest writes 64 MiB and fsyncs them (SMB2 FLUSH answered),
     * then writes kill-now; the host kills rdmagate once it sees that file and starts it again on
     * the same ports and state. The mount reconnects by itself, and the flushed file reads back
     * intact through it and through a fresh mount.
     */
    @Test
    void aFileFlushedOverSmbDirectSurvivesAGatewayKilledUnderTheMount() throws Exception {
        int smb = HostGateway.freePort();
        int direct = HostGateway.freePort();
        String transports = """
                  nfs: {enabled: false}
                  smb: {port: %d, directPort: %d}
                """.formatted(smb, direct);
        String users = HostGateway.rootSmbUser(USER, PASSWORD);
        HostGateway[] gateway = {HostGateway.start(dir, users, transports)};
        Path export = dir.resolve("export");
        String[] before = new String[1];
        Thread killer = Thread.ofVirtual().start(() -> {
            try {
                long deadline = System.nanoTime() + Duration.ofMinutes(15).toNanos();
                while (!Files.exists(export.resolve("kill-now")) || Files.size(export.resolve("kill-now")) == 0) {
                    if (System.nanoTime() > deadline) {
                        return;
                    }
                    Thread.sleep(20); // polling the export: the guest gives no other signal
                }
                before[0] = gateway[0].metrics();
                assertEquals(137, gateway[0].kill(), "killed by SIGKILL");
                gateway[0] = HostGateway.start(dir, users, transports);
                Files.writeString(export.resolve("restarted"), "yes");
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (Exception e) {
                throw new RuntimeException(e);
            }
        });
        try {
            GuestRun run = lab.job("rdmagate-cifs-kill")
                    .labScript("rdmagate-cifs-kill.sh")
                    .env("SMB_USER", USER)
                    .env("SMB_PASSWORD", PASSWORD)
                    .env("KILL_MIB", 64)
                    .forward(5445, direct)
                    .forward(445, smb)
                    .timeout(Duration.ofMinutes(15))
                    .run();
            killer.join(Duration.ofSeconds(5));
            org.junit.jupiter.api.Assertions.assertNotNull(before[0], "the gateway was killed under the mount");
            org.junit.jupiter.api.Assertions.assertTrue(HostGateway.counter(before[0],
                    "rdmagate_smb_connections_accepted_total{transport=\"rdma\"}") >= 1,
                    "the session the kill cut was an SMB Direct one: " + before[0]);
            run.assertPassed(List.of("nic-up", "siw-nic", "mount", "flushed", "kill-now", "reconnect", "intact", "remount",
                    "intact-fresh-mount", "unmount", "kernel-clean"));
            assertEquals(0, gateway[0].stop(), gateway[0].log());
        } finally {
            killer.interrupt();
            gateway[0].close();
        }
    }
}
