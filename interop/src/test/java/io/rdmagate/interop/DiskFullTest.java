package io.rdmagate.interop;

import static io.rdmagate.interop.HostClients.run;
import static io.rdmagate.interop.HostClients.smbclient;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rdmagate.interop.HostClients.Run;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The real rdmagate on the host exporting a full filesystem (a 4 MiB tmpfs): an 8 MiB copy fails
 * over NFS with NFS3ERR_NOSPC (libnfs's nfs-cp) and over SMB with STATUS_DISK_FULL (smbclient), the
 * gateway neither crashes nor stops serving, and once the partial files are deleted through the
 * clients, both protocols write and read back again.
 */
@Tag("interop")
class DiskFullTest {
    private static final String USER = "filler";
    private static final String PASSWORD = "Filler-pass-1";

    @TempDir
    Path dir;


    @Test
    void aFullExportAnswersNoSpaceOverNfsAndSmbAndTheGatewayServesOn() throws Exception {
        HostGateway.NfsAndSmb ports = HostGateway.NfsAndSmb.onFreePorts();
        int smb = ports.smb();
        Path work = Files.createDirectories(dir.resolve("client"));
        Path big = work.resolve("big.bin");
        Path small = work.resolve("small.bin");
        Files.write(big, random(8 << 20, 1));
        byte[] smallContent = random(64 << 10, 2);
        Files.write(small, smallContent);
        try (HostGateway gateway = HostGateway.startOnTmpfs(dir, "4m", HostGateway.rootSmbUser(USER, PASSWORD),
                ports.transports())) {
            Run nfsFull = run(work, "nfs-cp", big.toString(), ports.nfsUrl("big-nfs.bin"));
            assertNotEquals(0, nfsFull.exit(), "an 8 MiB NFS copy onto 4 MiB fails: " + nfsFull.output());
            Run smbFull = smbclient(work, smb, USER, PASSWORD, "put big.bin big-smb.bin");
            assertTrue(smbFull.output().contains("NT_STATUS_DISK_FULL"), "with STATUS_DISK_FULL: " + smbFull.output());
            // nfs-cp prints no status; the gateway's metrics name the one it answered
            String metrics = gateway.metrics();
            assertTrue(HostGateway.counter(metrics, "rdmagate_nfs_requests_total{procedure=\"WRITE\",program=\"nfs\","
                    + "status=\"NFS3ERR_NOSPC\",version=\"3\"}") >= 1, "NFS3ERR_NOSPC answered:\n" + metrics);
            assertTrue(HostGateway.counter(metrics, "rdmagate_nfs_requests_total{procedure=\"WRITE\",program=\"nfs\","
                    + "status=\"NFS3ERR_SERVERFAULT\",version=\"3\"}") <= 0, "no fault:\n" + metrics);

            Run cleared = smbclient(work, smb, USER, PASSWORD, "del big-nfs.bin; del big-smb.bin; ls");
            assertEquals(0, cleared.exit(), cleared.output());
            assertTrue(!cleared.output().contains("big-"), "the partial files are gone: " + cleared.output());

            assertEquals(0, run(work, "nfs-cp", small.toString(), ports.nfsUrl("after-nfs.bin")).exit());
            Run nfsBack = run(work, "nfs-cp", ports.nfsUrl("after-nfs.bin"), work.resolve("nfs-back.bin").toString());
            assertEquals(0, nfsBack.exit(), nfsBack.output());
            assertArrayEquals(smallContent, Files.readAllBytes(work.resolve("nfs-back.bin")), "NFS serves on");

            Run smbBack = smbclient(work, smb, USER, PASSWORD, "put small.bin after-smb.bin; get after-smb.bin smb-back.bin");
            assertEquals(0, smbBack.exit(), smbBack.output());
            assertArrayEquals(smallContent, Files.readAllBytes(work.resolve("smb-back.bin")), "SMB serves on");
            assertTrue(!gateway.log().contains("Exception"), "no exception in the gateway's log:\n" + gateway.log());
        }
    }

    private static byte[] random(int n, long seed) {
        byte[] b = new byte[n];
        new Random(seed).nextBytes(b);
        return b;
    }


}
