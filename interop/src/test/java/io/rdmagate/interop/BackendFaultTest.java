package io.rdmagate.interop;

import static io.rdmagate.interop.HostClients.run;
import static io.rdmagate.interop.HostClients.smbclient;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rdmagate.interop.HostClients.Run;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The real gateway exporting a filesystem whose disk fails (a FUSE filesystem, eio-fs.py, that
 * answers reads past the first 64 KiB of bad.bin with EIO, as a bad sector does, and likewise
 * writes onto it and some creates; and that has no extended attributes): an NFS READ, WRITE or
 * CREATE that meets EIO is NFS3ERR_IO (libnfs's nfs-cp fails), an SMB read, write or create
 * STATUS_IO_DEVICE_ERROR (smbclient fails), never a crash, SERVERFAULT or an exception; the good
 * file beside it reads back over both protocols before and after, and files written beside the
 * bad ones read back over the other protocol.
 */
@Tag("interop")
class BackendFaultTest {
    private static final String USER = "reader";
    private static final String PASSWORD = "Reader-pass-1";
    private static final int SIZE = 256 * 1024;

    @TempDir
    Path dir;


    @Test
    void eioFromTheDiskIsAnIoErrorOverNfsAndSmbAndTheGatewayServesOn() throws Exception {
        Path export = Files.createDirectories(dir.resolve("export"));
        Path script = dir.resolve("eio-fs.py");
        try (var in = BackendFaultTest.class.getResourceAsStream("/eio-fs.py")) {
            Files.write(script, in.readAllBytes());
        }
        if (!Files.exists(Path.of("/dev/fuse"))) { // a minimal /dev (a container, a fresh VM) may lack the node
            assertEquals(0, run(dir, "mknod", "-m", "0666", "/dev/fuse", "c", "10", "229").exit(), "mknod /dev/fuse");
        }
        Process fs = new ProcessBuilder("/usr/bin/python3", script.toString(), export.toString())
                .redirectErrorStream(true).redirectOutput(dir.resolve("eio-fs.log").toFile()).start();
        try {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (!Files.exists(export.resolve("good.bin")) && fs.isAlive() && System.nanoTime() < deadline) {
                Thread.onSpinWait();
            }
            assertTrue(Files.exists(export.resolve("good.bin")), "the FUSE filesystem is mounted: "
                    + Files.readString(dir.resolve("eio-fs.log")));
            served(export);
        } finally {
            run(dir, "umount", export.toString());
            if (!fs.waitFor(30, TimeUnit.SECONDS)) {
                fs.destroyForcibly();
            }
        }
    }

    private void served(Path export) throws Exception {
        byte[] expected = new byte[SIZE];
        for (int i = 0; i < SIZE; i++) {
            expected[i] = (byte) (i % 251);
        }
        Path work = Files.createDirectories(dir.resolve("client"));
        HostGateway.NfsAndSmb ports = HostGateway.NfsAndSmb.onFreePorts();
        try (HostGateway gateway = HostGateway.start(dir, HostGateway.rootSmbUser(USER, PASSWORD),
                ports.transports())) {
            goodFileReadsBack(work, ports, expected, "before");

            Run nfs = run(work, "nfs-cp", ports.nfsUrl("bad.bin"), work.resolve("nfs-bad.bin").toString());
            assertNotEquals(0, nfs.exit(), "an NFS copy of the failing file fails: " + nfs.output());
            String metrics = gateway.metrics();
            assertTrue(HostGateway.counter(metrics, "rdmagate_nfs_requests_total{procedure=\"READ\",program=\"nfs\","
                    + "status=\"NFS3ERR_IO\",version=\"3\"}") >= 1, "NFS3ERR_IO answered:\n" + metrics);
            assertTrue(HostGateway.counter(metrics, "rdmagate_nfs_requests_total{procedure=\"READ\",program=\"nfs\","
                    + "status=\"NFS3ERR_SERVERFAULT\",version=\"3\"}") <= 0, "no fault:\n" + metrics);

            Run smb = smbclient(work, ports.smb(), USER, PASSWORD, "get bad.bin smb-bad.bin");
            assertTrue(smb.output().contains("NT_STATUS_IO_DEVICE_ERROR"), "an SMB get of the failing file fails"
                    + " with STATUS_IO_DEVICE_ERROR, as Samba answers EIO: " + smb.output());
            assertFalse(Files.exists(work.resolve("smb-bad.bin")) && Files.size(work.resolve("smb-bad.bin")) == SIZE,
                    "no whole copy of a file that could not be read");

            writesAndCreatesThatFailAreIoErrors(gateway, work, ports, expected);

            goodFileReadsBack(work, ports, expected, "after");
            assertFalse(gateway.log().contains("Exception"), "no exception in the gateway's log:\n" + gateway.log());
        }
    }

    /**
     * A write that reaches the bad sector (EIO from pwrite) is NFS3ERR_IO and STATUS_IO_DEVICE_ERROR;
     * a file or directory whose creation fails with EIO likewise; and a file written beside them
     * reads back whole over the other protocol.
     */
    private static void writesAndCreatesThatFailAreIoErrors(HostGateway gateway, Path work, HostGateway.NfsAndSmb ports,
            byte[] expected) throws Exception {
        Path local = work.resolve("local.bin");
        Files.write(local, expected);

        Run badWrite = run(work, "nfs-cp", local.toString(), ports.nfsUrl("bad-write-nfs.bin"));
        assertNotEquals(0, badWrite.exit(), "an NFS copy onto the bad sector fails: " + badWrite.output());
        Run badCreate = run(work, "nfs-cp", local.toString(), ports.nfsUrl("bad-create-nfs.bin"));
        assertNotEquals(0, badCreate.exit(), "an NFS create that the disk fails fails: " + badCreate.output());
        String metrics = gateway.metrics();
        for (String procedure : new String[] {"WRITE", "CREATE"}) {
            assertTrue(HostGateway.counter(metrics, "rdmagate_nfs_requests_total{procedure=\"" + procedure
                    + "\",program=\"nfs\",status=\"NFS3ERR_IO\",version=\"3\"}") >= 1, procedure + " NFS3ERR_IO:\n" + metrics);
            assertTrue(HostGateway.counter(metrics, "rdmagate_nfs_requests_total{procedure=\"" + procedure
                    + "\",program=\"nfs\",status=\"NFS3ERR_SERVERFAULT\",version=\"3\"}") <= 0, "no fault:\n" + metrics);
        }
        Run nfsWrite = run(work, "nfs-cp", local.toString(), ports.nfsUrl("written-nfs.bin"));
        assertEquals(0, nfsWrite.exit(), "a file beside them is written over NFS: " + nfsWrite.output());

        for (String[] attempt : new String[][] {{"put local.bin bad-write-smb.bin", "a write onto the bad sector"},
                {"put local.bin bad-create-smb.bin", "a create the disk fails"},
                {"mkdir bad-dir-smb", "a directory the disk cannot make"}}) {
            Run smb = smbclient(work, ports.smb(), USER, PASSWORD, attempt[0]);
            assertTrue(smb.output().contains("NT_STATUS_IO_DEVICE_ERROR"), attempt[1] + " over SMB is"
                    + " STATUS_IO_DEVICE_ERROR, as Samba answers EIO: " + smb.output());
        }
        Run smbWrite = smbclient(work, ports.smb(), USER, PASSWORD, "put local.bin written-smb.bin");
        assertEquals(0, smbWrite.exit(), "a file beside them is written over SMB: " + smbWrite.output());

        Run viaSmb = smbclient(work, ports.smb(), USER, PASSWORD, "get written-nfs.bin written-nfs-via-smb.bin");
        assertEquals(0, viaSmb.exit(), viaSmb.output());
        assertArrayEquals(expected, Files.readAllBytes(work.resolve("written-nfs-via-smb.bin")), "NFS's write over SMB");
        Path viaNfs = work.resolve("written-smb-via-nfs.bin");
        Run r = run(work, "nfs-cp", ports.nfsUrl("written-smb.bin"), viaNfs.toString());
        assertEquals(0, r.exit(), r.output());
        assertArrayEquals(expected, Files.readAllBytes(viaNfs), "SMB's write over NFS");
    }

    private static void goodFileReadsBack(Path work, HostGateway.NfsAndSmb ports, byte[] expected, String when)
            throws Exception {
        Path nfs = work.resolve("nfs-good-" + when + ".bin");
        Run r = run(work, "nfs-cp", ports.nfsUrl("good.bin"), nfs.toString());
        assertEquals(0, r.exit(), r.output());
        assertArrayEquals(expected, Files.readAllBytes(nfs), "good.bin over NFS " + when);
        Run s = smbclient(work, ports.smb(), USER, PASSWORD, "get good.bin smb-good-" + when + ".bin");
        assertEquals(0, s.exit(), s.output());
        assertArrayEquals(expected, Files.readAllBytes(work.resolve("smb-good-" + when + ".bin")),
                "good.bin over SMB " + when);
    }


}
