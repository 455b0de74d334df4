package io.rdmagate.smb.server;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import com.hierynomus.msdtyp.AccessMask;
import com.hierynomus.mssmb2.SMB2CreateDisposition;
import com.hierynomus.mssmb2.SMB2ShareAccess;
import com.hierynomus.smbj.SMBClient;
import com.hierynomus.smbj.connection.Connection;
import com.hierynomus.smbj.share.DiskShare;
import com.hierynomus.smbj.share.File;
import io.rdmagate.vfs.Caller;
import io.rdmagate.vfs.DosAttributes;
import io.rdmagate.vfs.FileHandle;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.EnumSet;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * smbj against the server on 127.0.0.1: the sparse file controls and server-side copy act on the
 * vfs calls NFSv4.2 uses, so a hole SMB zeroes is the hole an NFS client's SEEK finds (the vfs's
 * {@code seek}), and a copy chunk's bytes never cross the wire.
 */
class SmbSparseAndCopyTest {
    private static final int FSCTL_SET_SPARSE = 0x000900C4;
    private static final int FSCTL_SET_ZERO_DATA = 0x000980C8;
    private static final int FSCTL_QUERY_ALLOCATED_RANGES = 0x000940CF;
    private static final int MiB = 1 << 20;
    @TempDir
    static Path tmp;
    static TestServer server;
    static Path export;

    @BeforeAll
    static void start() throws Exception {
        export = Files.createDirectories(tmp.resolve("export"));
        server = new TestServer(export, Files.createDirectories(tmp.resolve("state")), false, false);
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    @Test
    void zeroDataPunchesTheHoleNfsSeeksAndAllocatedRangesSkipIt() throws Exception {
        byte[] data = SmbjTest.random(2 * MiB, 1);
        try (SMBClient client = new SMBClient(SmbjTest.config().build());
                Connection c = client.connect("127.0.0.1", server.port());
                DiskShare share = (DiskShare) c.authenticate(SmbjTest.auth(TestServer.PASSWORD)).connectShare("data");
                File f = share.openFile("sparse.bin", EnumSet.of(AccessMask.GENERIC_READ, AccessMask.GENERIC_WRITE), null,
                        SMB2ShareAccess.ALL, SMB2CreateDisposition.FILE_OVERWRITE_IF, null)) {
            try (OutputStream os = f.getOutputStream()) {
                os.write(data);
            }
            f.ioctl(FSCTL_SET_SPARSE, true, new byte[] {1}, 0, 1);
            FileHandle h = server.vfs.lookup(Caller.ROOT, server.vfs.root(), "sparse.bin").handle();
            assertEquals(DosAttributes.SPARSE_FILE, server.vfs.getattr(h).dosAttributes() & DosAttributes.SPARSE_FILE);

            byte[] zero = ByteBuffer.allocate(16).order(ByteOrder.LITTLE_ENDIAN).putLong(64 * 1024).putLong(MiB).array();
            f.ioctl(FSCTL_SET_ZERO_DATA, true, zero, 0, zero.length);
            assertEquals(MiB, server.vfs.seek(Caller.ROOT, h, 64 * 1024, true), "the hole NFSv4.2 SEEK finds");
            byte[] back;
            try (InputStream in = f.getInputStream()) {
                back = in.readAllBytes();
            }
            assertArrayEquals(new byte[MiB - 64 * 1024], Arrays.copyOfRange(back, 64 * 1024, MiB));
            assertArrayEquals(Arrays.copyOfRange(data, MiB, 2 * MiB), Arrays.copyOfRange(back, MiB, 2 * MiB));

            server.vfs.deallocate(Caller.ROOT, h, 1536 * 1024, 256 * 1024); // what NFSv4.2 DEALLOCATE does
            byte[] query = ByteBuffer.allocate(16).order(ByteOrder.LITTLE_ENDIAN).putLong(0).putLong(2 * MiB).array();
            ByteBuffer ranges = ByteBuffer.wrap(f.ioctl(FSCTL_QUERY_ALLOCATED_RANGES, true, query, 0, 16, 1024))
                    .order(ByteOrder.LITTLE_ENDIAN);
            assertEquals(48, ranges.remaining(), "three allocated ranges");
            long[] got = new long[6];
            for (int i = 0; i < 6; i++) {
                got[i] = ranges.getLong();
            }
            assertArrayEquals(new long[] {0, 64 * 1024, MiB, 512 * 1024, 1792 * 1024, 256 * 1024}, got);
        }
    }

    @Test
    void copyChunkCopiesInsideTheServer() throws Exception {
        byte[] data = SmbjTest.random(5 * MiB + 123, 2);
        long before = server.server.serverSideCopyBytes().sum();
        try (SMBClient client = new SMBClient(SmbjTest.config().build());
                Connection c = client.connect("127.0.0.1", server.port());
                DiskShare share = (DiskShare) c.authenticate(SmbjTest.auth(TestServer.PASSWORD)).connectShare("data")) {
            try (File src = share.openFile("copy-src.bin", EnumSet.of(AccessMask.GENERIC_READ, AccessMask.GENERIC_WRITE),
                    null, SMB2ShareAccess.ALL, SMB2CreateDisposition.FILE_OVERWRITE_IF, null);
                    File dst = share.openFile("copy-dst.bin", EnumSet.of(AccessMask.GENERIC_READ, AccessMask.GENERIC_WRITE),
                            null, SMB2ShareAccess.ALL, SMB2CreateDisposition.FILE_OVERWRITE_IF, null)) {
                try (OutputStream os = src.getOutputStream()) {
                    os.write(data);
                }
                src.remoteCopyTo(dst);
            }
        }
        assertArrayEquals(data, Files.readAllBytes(export.resolve("copy-dst.bin")));
        assertEquals(data.length, server.server.serverSideCopyBytes().sum() - before,
                "every byte was copied by the backend (FSCTL_SRV_COPYCHUNK), none sent");
    }
}
