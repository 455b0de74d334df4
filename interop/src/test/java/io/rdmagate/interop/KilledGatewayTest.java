package io.rdmagate.interop;

import static io.rdmagate.interop.HostClients.run;
import static io.rdmagate.interop.HostClients.smbclient;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rdmagate.interop.HostClients.Run;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The real gateway killed with SIGKILL in the middle of an NFS copy, after NFS and SMB clients
 * had their writes acknowledged: it starts again on the same state directory (the handle store
 * survives a crash in mid-write), libnfs's copy reconnects and finishes with its file handle
 * from before the crash, the file is whole, and every acknowledged file reads back unchanged
 * over both protocols.
 */
@Tag("interop")
class KilledGatewayTest {
    private static final String USER = "crasher";
    private static final String PASSWORD = "Crasher-pass-1";

    @TempDir
    Path dir;


    @Test
    void acknowledgedWritesSurviveSigkillMidCopyAndTheGatewayStartsAgain() throws Exception {
        HostGateway.NfsAndSmb ports = HostGateway.NfsAndSmb.onFreePorts();
        String users = HostGateway.rootSmbUser(USER, PASSWORD);
        Path work = Files.createDirectories(dir.resolve("client"));
        List<String> nfsFiles = new ArrayList<>();
        List<String> smbFiles = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            String n = "nfs-" + i + ".bin";
            Files.write(work.resolve(n), random((64 << 10) * (i + 1) + i, i));
            nfsFiles.add(n);
            String s = "smb-" + i + ".bin";
            Files.write(work.resolve(s), random((48 << 10) * (i + 1) + 7 * i, 100 + i));
            smbFiles.add(s);
        }
        Path big = work.resolve("big.bin");
        Files.write(big, random(128 << 20, 99));
        Path export = dir.resolve("export");

        try {
            killMidCopyAndStartAgain(ports, users, work, nfsFiles, smbFiles, big, export);
        } finally {
            // a failed check must not leave nfs-cp reconnecting forever
            ProcessHandle.current().children().filter(c -> c.info().command().orElse("").endsWith("nfs-cp"))
                    .forEach(ProcessHandle::destroyForcibly);
        }
    }

    private void killMidCopyAndStartAgain(HostGateway.NfsAndSmb ports, String users, Path work, List<String> nfsFiles,
            List<String> smbFiles, Path big, Path export) throws Exception {
        Process copy;
        try (HostGateway gateway = HostGateway.start(dir, users, ports.transports())) {
            for (String n : nfsFiles) {
                Run r = run(work, "nfs-cp", n, ports.nfsUrl(n));
                assertEquals(0, r.exit(), r.output());
            }
            StringBuilder puts = new StringBuilder();
            smbFiles.forEach(s -> puts.append("put ").append(s).append("; "));
            Run put = smbclient(work, ports.smb(), USER, PASSWORD, puts.toString());
            assertEquals(0, put.exit(), put.output());

            copy = new ProcessBuilder("nfs-cp", big.toString(), ports.nfsUrl("big.bin")).directory(work.toFile())
                    .redirectErrorStream(true).redirectOutput(work.resolve("big-copy.log").toFile()).start();
            Path landing = export.resolve("big.bin");
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (!(Files.exists(landing) && Files.size(landing) >= 8 << 20) && copy.isAlive()
                    && System.nanoTime() < deadline) {
                Thread.onSpinWait();
            }
            assertTrue(copy.isAlive(), "the copy is still running when the gateway is killed");
            assertEquals(137, gateway.kill(), "killed by SIGKILL");
        }

        try (HostGateway again = HostGateway.start(dir, users, ports.transports())) {
            // libnfs reconnects (a hard mount's behaviour) and goes on with the same file handle
            assertTrue(copy.waitFor(120, TimeUnit.SECONDS), "the cut-off copy ends once the gateway is back");
            assertEquals(0, copy.exitValue(), Files.readString(work.resolve("big-copy.log")));
            assertArrayEquals(Files.readAllBytes(big), Files.readAllBytes(export.resolve("big.bin")),
                    "the copy that went on across the crash is whole");
            for (String n : nfsFiles) {
                Path back = work.resolve("back-" + n);
                Run r = run(work, "nfs-cp", ports.nfsUrl(n), back.toString());
                assertEquals(0, r.exit(), r.output());
                assertArrayEquals(Files.readAllBytes(work.resolve(n)), Files.readAllBytes(back), n + " over NFS");
            }
            StringBuilder gets = new StringBuilder();
            smbFiles.forEach(s -> gets.append("get ").append(s).append(" back-").append(s).append("; "));
            Run get = smbclient(work, ports.smb(), USER, PASSWORD, gets.toString());
            assertEquals(0, get.exit(), get.output());
            for (String s : smbFiles) {
                assertArrayEquals(Files.readAllBytes(work.resolve(s)), Files.readAllBytes(work.resolve("back-" + s)),
                        s + " over SMB");
            }
            assertTrue(!again.log().contains("Exception"), "no exception in the restarted gateway's log:\n"
                    + again.log());
        }
    }

    private static byte[] random(int n, long seed) {
        byte[] b = new byte[n];
        new Random(seed).nextBytes(b);
        return b;
    }


}
