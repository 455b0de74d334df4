package io.rdmagate.smb.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import com.hierynomus.msdtyp.AccessMask;
import com.hierynomus.mssmb2.SMB2CreateDisposition;
import com.hierynomus.mssmb2.SMB2CreateOptions;
import com.hierynomus.mssmb2.SMB2ShareAccess;
import com.hierynomus.smbj.SMBClient;
import com.hierynomus.smbj.connection.Connection;
import com.hierynomus.smbj.share.DiskShare;
import com.hierynomus.smbj.share.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Files deleted and created under the same names. Clients making and deleting directories of small
 * files side by side, as `mkdir; echo > f; rm -r` loops on cifs mounts do: the disk (ext4) gives a
 * deleted file's inode number to the next file created at once, and the new directory or file
 * must open as itself. Before the fix, a directory
 * created while another client's deleted file was leaving the open table (same inode number) made
 * its CREATE look its name up again and fail with STATUS_OBJECT_NAME_COLLISION, and a file created
 * meanwhile lost its handle (STATUS_FILE_CLOSED on its first write).
 */
class CreateAfterDeleteTest {
    @TempDir
    Path tmp;

    @Test
    void directoriesAndFilesCreatedWhileOthersAreDeletedOpenAsThemselves() throws Exception {
        Path export = Files.createDirectories(tmp.resolve("export"));
        ConcurrentLinkedQueue<String> failures = new ConcurrentLinkedQueue<>();
        try (TestServer server = new TestServer(export, Files.createDirectories(tmp.resolve("state")), false, false);
                SMBClient client = new SMBClient(SmbjTest.config().build())) {
            List<Thread> clients = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                String dir = "dir-" + t;
                clients.add(Thread.ofPlatform().start(() -> {
                    try (Connection conn = client.connect("127.0.0.1", server.port());
                            DiskShare share = (DiskShare) conn.authenticate(SmbjTest.auth(TestServer.PASSWORD))
                                    .connectShare("data")) {
                        for (int round = 0; round < 60 && failures.isEmpty(); round++) {
                            try {
                                share.mkdir(dir);
                                for (int k = 0; k < 8; k++) {
                                    try (File f = share.openFile(dir + "\\f" + k, EnumSet.of(AccessMask.GENERIC_WRITE), null,
                                            SMB2ShareAccess.ALL, SMB2CreateDisposition.FILE_CREATE, null)) {
                                        f.write((dir + " " + k).getBytes(StandardCharsets.UTF_8), 0);
                                    }
                                }
                                for (int k = 0; k < 8; k++) {
                                    share.rm(dir + "\\f" + k);
                                }
                                share.rmdir(dir, false);
                            } catch (RuntimeException e) {
                                failures.add(dir + " round " + round + ": " + e.getMessage());
                            }
                        }
                    } catch (Exception e) {
                        failures.add(dir + ": " + e);
                    }
                }));
            }
            for (Thread t : clients) {
                t.join();
            }
        }
        assertEquals(List.of(), List.copyOf(failures));
        try (var left = Files.list(export)) {
            assertEquals(List.of(), left.toList());
        }
    }

    /**
     * MS-FSA 2.1.5.4: the last close of a delete-pending file deletes that file. If the host (or an
     * NFS client) has meanwhile removed it and put a new file under its name, the new file stays.
     */
    @Test
    void aDeleteOnCloseDeletesTheFileItOpenedNotOneLaterUnderItsName() throws Exception {
        Path export = Files.createDirectories(tmp.resolve("export"));
        try (TestServer server = new TestServer(export, Files.createDirectories(tmp.resolve("state")), false, false);
                SMBClient client = new SMBClient(SmbjTest.config().build());
                Connection conn = client.connect("127.0.0.1", server.port());
                DiskShare share = (DiskShare) conn.authenticate(SmbjTest.auth(TestServer.PASSWORD)).connectShare("data")) {
            try (File temp = share.openFile("report.tmp", EnumSet.of(AccessMask.GENERIC_WRITE, AccessMask.DELETE), null,
                    SMB2ShareAccess.ALL, SMB2CreateDisposition.FILE_CREATE, EnumSet.of(SMB2CreateOptions.FILE_DELETE_ON_CLOSE))) {
                temp.write("scratch".getBytes(StandardCharsets.UTF_8), 0);
                Files.delete(export.resolve("report.tmp"));
                Files.writeString(export.resolve("report.tmp"), "the host's report");
            }
            assertEquals("the host's report", Files.readString(export.resolve("report.tmp")));
            // the CLOSE closed the open (its attributes could not be had): nothing is left to delete later
            assertEquals(0, server.server.opens().size());

            // and without anyone else: the close deletes it
            try (File temp = share.openFile("scratch.tmp", EnumSet.of(AccessMask.GENERIC_WRITE, AccessMask.DELETE), null,
                    SMB2ShareAccess.ALL, SMB2CreateDisposition.FILE_CREATE, EnumSet.of(SMB2CreateOptions.FILE_DELETE_ON_CLOSE))) {
                temp.write("scratch".getBytes(StandardCharsets.UTF_8), 0);
            }
            assertFalse(Files.exists(export.resolve("scratch.tmp")));
        }
        assertEquals("the host's report", Files.readString(export.resolve("report.tmp")));
    }
}
