package io.rdmagate.interop;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * smbtorture's lease and oplock tests against the real rdmagate on the host while an NFS client
 * (libnfs's nfs-cp) creates, writes and reads back other files of the same share the whole time (a
 * host process removes each after): NFS
 * operations go through the one state of the volume (recalls, the "changing" marks that withhold
 * new caching), and must neither break nor withhold a lease or oplock of a file they do not
 * touch. Every test passes as it does without NFS (SmbtortureTest, smb-server), and every NFS copy
 * reads back what it wrote.
 */
@Tag("interop")
class SmbtortureUnderNfsTest {
    private static final String USER = "torture";
    private static final String PASSWORD = "Torture-pass-1";
    /** A selection of the lease and oplock tests SmbtortureTest keeps passing. */
    private static final List<String> TESTS = List.of(
            "smb2.lease.nobreakself", "smb2.lease.statopen", "smb2.lease.upgrade", "smb2.lease.upgrade2",
            "smb2.lease.upgrade3", "smb2.lease.multibreak", "smb2.lease.breaking1", "smb2.lease.breaking2",
            "smb2.lease.complex1", "smb2.lease.v2_epoch1", "smb2.oplock.exclusive1", "smb2.oplock.exclusive2",
            "smb2.oplock.batch1", "smb2.oplock.batch2", "smb2.oplock.batch10", "smb2.oplock.levelii500",
            "smb2.oplock.brl1");

    @TempDir
    Path dir;

    @Test
    void leaseAndOplockTestsKeepPassingWhileNfsChangesTheShare() throws Exception {
        HostGateway.NfsAndSmb ports = HostGateway.NfsAndSmb.onFreePorts();
        Path work = Files.createDirectories(dir.resolve("nfs-client"));
        byte[] content = new byte[64 << 10];
        new Random(5).nextBytes(content);
        Path in = Files.write(work.resolve("in.bin"), content);
        try (HostGateway gateway = HostGateway.start(dir, HostGateway.rootSmbUser(USER, PASSWORD), ports.transports())) {
            AtomicBoolean stop = new AtomicBoolean();
            AtomicInteger copies = new AtomicInteger();
            CompletableFuture<Void> churn = CompletableFuture.runAsync(() -> {
                try {
                    for (int i = 0; !stop.get(); i++) {
                        String url = ports.nfsUrl("nfs-churn-" + i + ".bin");
                        Path out = work.resolve("out.bin");
                        run(work, "nfs-cp", in.toString(), url);
                        run(work, "nfs-cp", url, out.toString());
                        assertArrayEquals(content, Files.readAllBytes(out), "NFS read back what it wrote");
                        Files.delete(out);
                        Files.delete(dir.resolve("export").resolve("nfs-churn-" + i + ".bin")); // as a host user would
                        copies.incrementAndGet();
                    }
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            }, r -> Thread.ofVirtual().name("nfs-churn").start(r));
            String torture;
            try {
                torture = smbtorture(ports.smb());
            } finally {
                stop.set(true);
            }
            churn.get(120, TimeUnit.SECONDS);
            List<String> failed = torture.lines().filter(l -> l.startsWith("failure: ") || l.startsWith("error: ")).toList();
            assertEquals(List.of(), failed, torture);
            assertEquals(TESTS.size(), torture.lines().filter(l -> l.startsWith("success: ")).count(), torture);
            assertTrue(copies.get() >= 2, "NFS kept copying while smbtorture ran: " + copies.get() + " round trips");
            System.out.printf("smbtorture: %d tests passed while NFS made %d write-and-read-back copies%n",
                    TESTS.size(), copies.get());
        }
    }

    private String smbtorture(int port) throws Exception {
        List<String> cmd = new ArrayList<>(List.of("smbtorture", "//127.0.0.1/data", "-p", String.valueOf(port),
                "-U", USER + "%" + PASSWORD, "--option=torture:sharedelay=100000"));
        cmd.addAll(TESTS);
        Path log = dir.resolve("smbtorture.log");
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        boolean done = p.waitFor(300, TimeUnit.SECONDS);
        if (!done) {
            p.destroyForcibly();
            p.waitFor();
        }
        String text = Files.readString(log);
        assertTrue(done, "smbtorture did not finish within 300 s:\n" + text);
        return text;
    }

    private static void run(Path cwd, String... cmd) throws Exception {
        Process p = new ProcessBuilder(cmd).directory(cwd.toFile()).redirectErrorStream(true).start();
        byte[] out = p.getInputStream().readAllBytes();
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), Arrays.toString(cmd));
        assertEquals(0, p.exitValue(), Arrays.toString(cmd) + ": " + new String(out, StandardCharsets.UTF_8));
    }
}
