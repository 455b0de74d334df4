package io.rdmagate.interop;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.rdmagate.gateway.users.NtHash;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.function.Executable;

/**
 * What the gateway acknowledged as stable survives a power loss. rdmagate runs in the guest and
 * exports a disk of the guest's own; the guest's kernel clients (NFSv3, NFSv4.1, cifs) write files
 * and wait for them to be stable (NFS COMMIT, FILE_SYNC, SMB2 FLUSH, an SMB open with
 * FILE_WRITE_THROUGH; over NFS also close, NFSv4.1
 * under a write delegation whose space limit of 0 makes the client commit), then remove and rename over
 * NFS, and the guest is reset without a sync (job {@code rdmagate-power-loss.sh}). Read back on the
 * host after the journal's replay: every acknowledged file is whole under its name, every
 * acknowledged removal is gone, and a file written in the guest without fsync just before the
 * reset is lost, which shows that the reset did drop what nobody flushed. Then the guest boots
 * again on that disk and the gateway on the state it kept there: the NFS clients' handles of the
 * acknowledged files, saved before the reset, still name those files (open_by_handle_at).
 */
@Tag("interop")
class PowerLossTest {
    private static final String PASSWORD = "Lab-pass-1";

    @RegisterExtension
    final GuestLab lab = new GuestLab();

    @Test
    void whatTheGatewayAcknowledgedAsStableSurvivesAPowerLoss() throws Exception {
        GuestLab.Job job = lab.job("rdmagate-power-loss")
                .labScript("rdmagate-power-loss.sh")
                .gatewayInGuest()
                .disk(256)
                .env("SMB_USER", "lab")
                .env("SMB_PASSWORD", PASSWORD)
                .env("SMB_NTHASH", NtHash.of(PASSWORD.toCharArray()))
                .timeout(Duration.ofMinutes(10));
        GuestRun run = job.run();
        run.assertPassed(List.of("disk", "rdmagate-start", "v3-mount", "v41-mount", "cifs-mount",
                "cifs-nostrictsync-mount", "v3-commit", "v3-file-sync", "v41-commit", "v41-file-sync", "smb-flush",
                "smb-write-through", "v3-close", "v41-close", "v41-write-delegation", "stability-kinds", "namespace",
                "handles-saved", "kernel-clean"));

        Path disk = job.disk();
        Tool fsck = run(GuestLab.sbin("e2fsck"), "-fy", disk.toString());
        assertTrue(fsck.status() < 4, "e2fsck replays the journal and leaves no error: " + fsck);
        List<String> acked = Files.readAllLines(run.dir().resolve("acked"));
        assertEquals(List.of("ACK v3-dir/moved.bin", "ACK v41-renamed.bin", "ACK smb-flush.bin", "ACK smb-through.bin",
                "ACK v3-closed.bin", "ACK v41-closed.bin", "GONE v3-commit.bin", "GONE v3-small.txt",
                "GONE v41-commit.bin", "GONE v41-small.txt", "LOST control.bin"),
                acked.stream().map(l -> l.replaceFirst("^(\\S+ \\S+).*$", "$1")).sorted(PowerLossTest::byKind).toList(),
                "what the job had acknowledged");
        List<Executable> checks = new ArrayList<>();
        for (String line : acked) {
            String[] f = line.split(" ");
            switch (f[0]) {
                case "ACK" -> checks.add(() -> assertEquals(f[2], sha256(cat(disk, f[1])),
                        f[1] + " was acknowledged stable and must read back whole after the power loss (e2fsck: "
                                + fsck.output() + ")"));
                case "GONE" -> checks.add(() -> assertFalse(exists(disk, f[1]),
                        f[1] + " was acknowledged removed (or renamed away) and must stay gone"));
                case "LOST" -> checks.add(() -> {
                    byte[] control = exists(disk, f[1]) ? cat(disk, f[1]) : null;
                    assertTrue(control == null || !f[2].equals(sha256(control)),
                            "the control file, never flushed, survived: the reset did not drop the guest's cache,"
                                    + " so this run proves nothing");
                });
                default -> checks.add(() -> fail("unknown line in acked: " + line));
            }
        }
        assertAll("after the power loss", checks);

        // the boot after: every handle a client kept opens its file, with the acknowledged content
        List<String> handles = Files.readAllLines(run.dir().resolve("handles"));
        GuestRun after = lab.job("rdmagate-power-loss-reboot")
                .labScript("rdmagate-power-loss.sh")
                .gatewayInGuest()
                .disk(disk)
                .file("handles", String.join("\n", handles).concat("\n").getBytes(StandardCharsets.UTF_8))
                .env("BOOT", 2)
                .env("SMB_USER", "lab")
                .env("SMB_NTHASH", NtHash.of(PASSWORD.toCharArray()))
                .timeout(Duration.ofMinutes(10))
                .run();
        Map<String, String> content = new HashMap<>();
        acked.stream().filter(l -> l.startsWith("ACK ")).forEach(l -> content.put(l.split(" ")[1], l.split(" ")[2]));
        List<String> expected = handles.stream().map(h -> h.split(" ")[1])
                .map(n -> "REOPENED " + n + " " + content.get(n.substring(n.indexOf('/') + 1))).toList();
        assertEquals(4, expected.size(), "handles saved: " + handles);
        assertEquals(expected, Files.readAllLines(after.dir().resolve("reopened")),
                "after the power loss, a client's handle of an acknowledged file (made, renamed) names that file");
        after.assertPassed(List.of("disk", "rdmagate-start", "v3-mount", "v41-mount", "handles-reopened",
                "kernel-clean"));
    }

    /** ACK lines first, then GONE, then LOST, each group in the job's order. */
    private static int byKind(String a, String b) {
        List<String> kinds = List.of("ACK", "GONE", "LOST");
        return Integer.compare(kinds.indexOf(a.split(" ")[0]), kinds.indexOf(b.split(" ")[0]));
    }

    private static boolean exists(Path disk, String path) throws Exception {
        Tool t = run(GuestLab.sbin("debugfs"), "-R", "stat /export/" + path, disk.toString());
        return !t.output().contains("File not found");
    }

    private static byte[] cat(Path disk, String path) throws Exception {
        Path out = Files.createTempFile("power-loss-", ".bin");
        try {
            run(GuestLab.sbin("debugfs"), "-R", "dump /export/" + path + " " + out, disk.toString());
            return Files.readAllBytes(out);
        } finally {
            Files.deleteIfExists(out);
        }
    }

    private static String sha256(byte[] b) throws Exception {
        return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(b));
    }

    private record Tool(int status, String output) {
    }

    /** Runs a tool to its end: its exit status and output. */
    private static Tool run(String... cmd) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        return new Tool(p.waitFor(), out.strip());
    }
}
