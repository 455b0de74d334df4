package io.rdmagate.smb.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.hierynomus.msdtyp.AccessMask;
import com.hierynomus.mserref.NtStatus;
import com.hierynomus.msfscc.FileNotifyAction;
import com.hierynomus.msfscc.directory.FileNotifyInformation;
import com.hierynomus.mssmb2.SMB2CompletionFilter;
import com.hierynomus.mssmb2.SMB2CreateDisposition;
import com.hierynomus.mssmb2.SMB2ShareAccess;
import com.hierynomus.mssmb2.messages.SMB2ChangeNotifyResponse;
import com.hierynomus.smbj.SMBClient;
import com.hierynomus.smbj.connection.Connection;
import com.hierynomus.smbj.share.Directory;
import com.hierynomus.smbj.share.DiskShare;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * CHANGE_NOTIFY as a client that shows a folder sees it (smbj): changes made on the host, by
 * another SMB client, while no request waited, filtered by CompletionFilter, and the end of the
 * watch when the directory closes.
 */
class ChangeNotifyTest {
    @TempDir
    static Path tmp;
    static TestServer server;
    static Path export;
    static SMBClient client;
    static Connection conn;
    static DiskShare share;

    @BeforeAll
    static void start() throws Exception {
        export = Files.createDirectories(tmp.resolve("export"));
        server = new TestServer(export, Files.createDirectories(tmp.resolve("state")), false, false);
        client = new SMBClient(SmbjTest.config().build());
        conn = client.connect("127.0.0.1", server.port());
        share = (DiskShare) conn.authenticate(SmbjTest.auth(TestServer.PASSWORD)).connectShare("data");
    }

    @AfterAll
    static void stop() throws Exception {
        share.close();
        conn.close();
        client.close();
        server.close();
    }

    static Directory openDir(String name) throws Exception {
        Files.createDirectories(export.resolve(name));
        return share.openDirectory(name, EnumSet.of(AccessMask.GENERIC_READ), null, SMB2ShareAccess.ALL,
                SMB2CreateDisposition.FILE_OPEN, null);
    }

    static final EnumSet<SMB2CompletionFilter> NAMES = EnumSet.of(SMB2CompletionFilter.FILE_NOTIFY_CHANGE_FILE_NAME,
            SMB2CompletionFilter.FILE_NOTIFY_CHANGE_DIR_NAME);

    static List<String> entries(Future<SMB2ChangeNotifyResponse> f) throws Exception {
        SMB2ChangeNotifyResponse r = f.get(20, TimeUnit.SECONDS);
        assertEquals(NtStatus.STATUS_SUCCESS.getValue(), r.getHeader().getStatusCode());
        return r.getFileNotifyInfoList().stream().map(ChangeNotifyTest::entry).toList();
    }

    /**
     * Makes {@code change} on the host every 250 ms until the request completes: the server starts
     * watching when it takes the request, which the client cannot see, so a single change could
     * come before the watch.
     */
    static List<String> until(Future<SMB2ChangeNotifyResponse> f, HostChange change) throws Exception {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        for (int i = 0; !f.isDone() && System.nanoTime() < end; i++) {
            change.make(i);
            Thread.sleep(250);
        }
        return entries(f);
    }

    @FunctionalInterface
    interface HostChange {
        void make(int attempt) throws Exception;
    }

    static String entry(FileNotifyInformation i) {
        return i.getAction() + " " + i.getFileName();
    }

    @Test
    void aFileMadeOnTheHostCompletesAWaitingRequest() throws Exception {
        try (Directory d = openDir("host")) {
            Future<SMB2ChangeNotifyResponse> f = d.watchAsync(NAMES, false);
            Thread.sleep(300);
            assertFalse(f.isDone(), "waits for a change");
            List<String> got = until(f, i -> Files.writeString(export.resolve("host").resolve("on-host-" + i + ".txt"), "x"));
            assertFalse(got.isEmpty());
            assertTrue(got.stream().allMatch(e -> e.matches("FILE_ACTION_ADDED on-host-\\d+\\.txt")), got.toString());
        }
    }

    @Test
    void changesWhileNoRequestWaitsAreCollectedForTheNext() throws Exception {
        try (Directory d = openDir("idle")) {
            Future<SMB2ChangeNotifyResponse> first = d.watchAsync(NAMES, false);
            until(first, i -> Files.writeString(export.resolve("idle").resolve("probe-" + i), "p"));
            // no request waits now: these are collected
            Files.writeString(export.resolve("idle").resolve("one.txt"), "1");
            share.rm("idle\\one.txt"); // through SMB
            Files.createDirectory(export.resolve("idle").resolve("two"));
            long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            List<String> seen = new java.util.ArrayList<>();
            while (seen.size() < 3 && System.nanoTime() < end) {
                entries(d.watchAsync(NAMES, false)).stream().filter(e -> !e.contains(" probe-")).forEach(seen::add);
            }
            assertEquals(List.of(FileNotifyAction.FILE_ACTION_ADDED + " one.txt",
                    FileNotifyAction.FILE_ACTION_REMOVED + " one.txt", FileNotifyAction.FILE_ACTION_ADDED + " two"), seen);
        }
    }

    @Test
    void theCompletionFilterChoosesWhatIsReported() throws Exception {
        try (Directory d = openDir("filtered")) {
            Files.writeString(export.resolve("filtered").resolve("f.txt"), "old");
            Future<SMB2ChangeNotifyResponse> writes = d.watchAsync(
                    EnumSet.of(SMB2CompletionFilter.FILE_NOTIFY_CHANGE_LAST_WRITE), false);
            Files.createDirectory(export.resolve("filtered").resolve("new-dir"));
            Thread.sleep(300);
            assertFalse(writes.isDone(), "a new name is not a LAST_WRITE change");
            List<String> got = until(writes, i -> Files.writeString(export.resolve("filtered").resolve("f.txt"), "new " + i));
            assertEquals(List.of(FileNotifyAction.FILE_ACTION_MODIFIED + " f.txt"), got);
        }
    }

    @Test
    void closingTheDirectoryEndsAWaitingRequestWithCleanup() throws Exception {
        Directory d = openDir("closing");
        Future<SMB2ChangeNotifyResponse> f = d.watchAsync(NAMES, false);
        Thread.sleep(500); // the server takes the request before the CLOSE behind it
        d.close();
        SMB2ChangeNotifyResponse r = f.get(20, TimeUnit.SECONDS);
        assertEquals(NtStatus.STATUS_NOTIFY_CLEANUP.getValue(), r.getHeader().getStatusCode());
    }
}
