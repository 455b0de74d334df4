package io.rdmagate.interop;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.rdmagate.gateway.users.NtHash;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The kernel cifs client and the kernel NFSv3 client on the same files of one rdmagate (the real
 * program on the HOST; both clients in the guest): each sees the other's writes while it holds the
 * file open, and a lock held through one protocol is refused through the other, both ways. NFS
 * over TCP and over RDMA (siw), SMB 3.1.1 with leases. A lock a process on the host holds on a file
 * of the export is refused to both, and a write a process on the host makes (this test's JVM, not
 * the gateway) breaks what cifs caches, so cifs reads the new content. The same boot mounts the
 * gateway, on its default NFS versions and without naming one (the client negotiates NFSv4.2),
 * over TCP and over RDMA: it lists and reads what cifs wrote, cifs reads what it writes, and an
 * NFSv4.2 lock and a cifs lock refuse each other; its back channel is up, files it holds open
 * under a read and under a write delegation are recalled when cifs writes them, and a process
 * blocked on a lock cifs holds is told by CB_NOTIFY_LOCK when it is released; lseek finds holes,
 * fallocate punches and reserves, copy_file_range copies inside the gateway (counted, not sent),
 * and user xattrs set on the client land on the host's file; then the common NFS workload runs over
 * NFSv4.1 on both transports.
 */
@Tag("interop")
class RdmagateCoherenceTest {
    private static final List<String> CHECKS = List.of("nfs-mount", "cifs-sees-nfs-write", "nfs-sees-cifs-write",
            "fcntl-nfs-lock-refused-to-cifs", "fcntl-nfs-unlock-frees-cifs", "fcntl-cifs-lock-refused-to-nfs",
            "fcntl-cifs-unlock-frees-nfs", "flock-nfs-lock-refused-to-cifs", "flock-nfs-unlock-frees-cifs",
            "flock-cifs-lock-refused-to-nfs", "flock-cifs-unlock-frees-nfs", "host-lock-refused-to-nfs", "nfs-unmount");
    /** The common workload's checks (workloads/fs-workload.sh), as RdmagateNfsKernelClientTest runs it for NFSv3. */
    private static final List<String> WORKLOAD = List.of("mount", "small-tree", "large-file", "namespace", "symlink",
            "hardlink", "attributes", "flock", "fcntl-lock", "concurrent-writers", "unmount");
    private static final String USER = "lab";
    private static final String PASSWORD = "Lab-pass-1";

    @RegisterExtension
    final GuestLab lab = new GuestLab();

    @TempDir
    Path dir;

    /** A process on the host (not the gateway) holding an fcntl write lock on a whole file of the export until closed. */
    private static final class HostLock implements AutoCloseable {
        private final Process p;

        HostLock(Path file) throws Exception {
            java.nio.file.Files.writeString(file, "locked by a host process\n");
            p = new ProcessBuilder("perl", "-MFcntl", "-e", "open(my $fh, '+<', $ARGV[0]) or die 'open'; "
                    + "my $lk = pack('s s x4 q q i x4', F_WRLCK, 0, 0, 0, 0); fcntl($fh, F_SETLK, $lk) or die 'refused'; "
                    + "$| = 1; print \"held\\n\"; <STDIN>;", file.toString()).redirectErrorStream(true).start();
            String line = new java.io.BufferedReader(new java.io.InputStreamReader(p.getInputStream())).readLine();
            assertEquals("held", line, "the host process took its lock");
        }

        @Override
        public void close() throws Exception {
            p.getOutputStream().close();
            p.waitFor();
        }
    }

    /**
     * Rewrites {@code host-written.txt} of the export when the guest creates {@code host-write.go}
     * there, then creates {@code host-write.done}: a write made on the host, outside the gateway.
     */
    private static Thread hostWriter(Path export) {
        return Thread.ofVirtual().start(() -> {
            try (java.nio.file.WatchService ws = export.getFileSystem().newWatchService()) {
                export.register(ws, java.nio.file.StandardWatchEventKinds.ENTRY_CREATE);
                long deadline = System.nanoTime() + Duration.ofMinutes(15).toNanos();
                while (!java.nio.file.Files.exists(export.resolve("host-write.go"))) {
                    java.nio.file.WatchKey k = ws.poll(deadline - System.nanoTime(), java.util.concurrent.TimeUnit.NANOSECONDS);
                    if (k == null) {
                        return;
                    }
                    k.pollEvents();
                    k.reset();
                }
                java.nio.file.Files.writeString(export.resolve("host-written.txt"), "new-content-from-host\n");
                java.nio.file.Files.writeString(export.resolve("host-write.done"), "");
            } catch (InterruptedException | java.io.IOException e) {
                // the job reports that the host never answered
            }
        });
    }

    @Test
    void nfsAndCifsSeeEachOthersWritesAndLocks() throws Exception {
        int nfs = HostGateway.freePort();
        int mount = HostGateway.freePort();
        int rdma = HostGateway.freePort();
        int nlm = HostGateway.freePort();
        int nsm = HostGateway.freePort();
        int rpcbind = HostGateway.freePort();
        int smb = HostGateway.freePort();
        String transports = """
                  nfs: {port: %d, mountPort: %d, rdmaPort: %d, nlmPort: %d, nsmPort: %d}
                  rpcbind: {mode: embedded, port: %d}
                  smb: {port: %d}
                """.formatted(nfs, mount, rdma, nlm, nsm, rpcbind, smb);
        String users = """
                users:
                  - {name: %s, uid: 0, gid: 0, ntHash: %s}
                """.formatted(USER, NtHash.of(PASSWORD.toCharArray()));
        try (HostGateway gateway = HostGateway.start(dir, users, transports);
                HostLock hostLock = new HostLock(dir.resolve("export").resolve("host-locked.dat"))) {
            Thread writer = hostWriter(dir.resolve("export"));
            List<String> expected = new ArrayList<>(List.of("nic-up", "statd", "siw-nic", "cifs-mount",
                    "cifs-sees-host-write", "host-lock-refused-to-cifs", "kernel-clean"));
            for (String proto : List.of("tcp", "rdma")) {
                for (String c : CHECKS) {
                    expected.add("coherence-" + proto + "/" + c);
                }
                for (String c : List.of("mount", "back-channel", "list", "read", "read-delegation-recalled",
                        "write-delegation-recalled", "sees-cifs-write",
                        "write", "namespace", "fcntl-nfs-lock-refused-to-cifs", "fcntl-nfs-unlock-frees-cifs",
                        "fcntl-cifs-lock-refused-to-nfs", "fcntl-cifs-unlock-frees-nfs", "blocked-lock-notified",
                        "sparse", "punch-hole", "allocate", "copy-range", "cp-reflink", "clone", "user-xattrs", "nfs4-acl",
                        "unmount")) {
                    expected.add("v42-" + proto + "/" + c);
                }
                for (String c : WORKLOAD) {
                    expected.add("rdmagate-v41-" + proto + "/" + c);
                }
            }
            GuestRun run = lab.job("rdmagate-coherence")
                    .labScript("rdmagate-coherence.sh")
                    .env("NFS_PORT", nfs)
                    .env("MOUNT_PORT", mount)
                    .env("RDMA_PORT", rdma)
                    .env("SMB_PORT", smb)
                    .env("SMB_USER", USER)
                    .env("SMB_PASSWORD", PASSWORD)
                    .env("HTTP_PORT", gateway.httpPort())
                    .env("WORKLOAD_BIG_MIB", Math.min(64, GuestLab.bigMiB()))
                    .forward(nfs)
                    .forward(mount)
                    .forward(rdma)
                    .forward(nlm)
                    .forward(nsm)
                    .forward(111, rpcbind)
                    .forward(smb)
                    .forward(gateway.httpPort())
                    .timeout(Duration.ofMinutes(15))
                    .run();
            writer.interrupt();
            run.assertPassed(expected);
            for (String proto : List.of("tcp", "rdma")) {
                var xattrs = java.nio.file.Files.getFileAttributeView(dir.resolve("export").resolve("xattr-v42-" + proto + ".txt"),
                        java.nio.file.attribute.UserDefinedFileAttributeView.class);
                java.nio.ByteBuffer origin = java.nio.ByteBuffer.allocate(64);
                xattrs.read("origin", origin);
                assertEquals("guest-v42-" + proto, new String(origin.array(), 0, origin.position(),
                        java.nio.charset.StandardCharsets.UTF_8), "the xattr the guest set over NFSv4.2 is the host file's");
                assertEquals(java.nio.file.attribute.PosixFilePermissions.fromString("rwxr-x---"),
                        java.nio.file.Files.getPosixFilePermissions(dir.resolve("export").resolve("acl-v42-" + proto + ".txt")),
                        "the ACL the guest set is the host file's mode");
            }
            assertEquals(0, gateway.stop(), gateway.log());
        }
    }

}
