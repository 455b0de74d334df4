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
import com.hierynomus.smbj.share.Directory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * CHANGE_NOTIFY as a client that shows a folder sees it (smbj): changes made on the host, by
 * another SMB client, while no request waited, filtered by CompletionFilter, and the end of the
 * watch when the directory closes.
 */
class ChangeNotifyTest {
    @RegisterExtension
    static final SmbjShare smb = new SmbjShare();

    static Directory openDir(String name) throws Exception {
        Files.createDirectories(smb.export().resolve(name));
        return smb.share().openDirectory(name, EnumSet.of(AccessMask.GENERIC_READ), null, SMB2ShareAccess.ALL,
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
        repeatUntilDone(f, change);
        return entries(f);
    }

    /** Makes {@code change} every 250 ms until {@code f} completes, for at most 20 s (see {@link #until}). */
    static void repeatUntilDone(Future<?> f, HostChange change) throws Exception {
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        for (int i = 0; !f.isDone() && System.nanoTime() < end; i++) {
            change.make(i);
            Thread.sleep(250);
        }
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
            List<String> got = until(f, i -> Files.writeString(smb.export().resolve("host").resolve("on-host-" + i + ".txt"), "x"));
            assertFalse(got.isEmpty());
            assertTrue(got.stream().allMatch(e -> e.matches("FILE_ACTION_ADDED on-host-\\d+\\.txt")), got.toString());
        }
    }

    @Test
    void changesWhileNoRequestWaitsAreCollectedForTheNext() throws Exception {
        try (Directory d = openDir("idle")) {
            Future<SMB2ChangeNotifyResponse> first = d.watchAsync(NAMES, false);
            until(first, i -> Files.writeString(smb.export().resolve("idle").resolve("probe-" + i), "p"));
            // no request waits now: these are collected
            Files.writeString(smb.export().resolve("idle").resolve("one.txt"), "1");
            smb.share().rm("idle\\one.txt"); // through SMB
            Files.createDirectory(smb.export().resolve("idle").resolve("two"));
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
            Files.writeString(smb.export().resolve("filtered").resolve("f.txt"), "old");
            Future<SMB2ChangeNotifyResponse> writes = d.watchAsync(
                    EnumSet.of(SMB2CompletionFilter.FILE_NOTIFY_CHANGE_LAST_WRITE), false);
            Files.createDirectory(smb.export().resolve("filtered").resolve("new-dir"));
            Thread.sleep(300);
            assertFalse(writes.isDone(), "a new name is not a LAST_WRITE change");
            List<String> got = until(writes, i -> Files.writeString(smb.export().resolve("filtered").resolve("f.txt"), "new " + i));
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

    /**
     * Explorer cancels a CHANGE_NOTIFY microseconds after sending it when the user navigates away;
     * the server handles a connection's requests concurrently, so the CANCEL may be handled before
     * the request goes async. Each of many such pairs must end with STATUS_CANCELLED, after the
     * interim response, and the connection must go on serving.
     */
    @Test
    void aCancelRightBehindTheRequestCancelsIt() throws Exception {
        Files.createDirectories(smb.export().resolve("navigated"));
        try (RawSmbClient raw = new RawSmbClient(smb.server().port()).logon()) {
            RawSmbClient.Created dir = raw.openDirectory("navigated");
            assertEquals(0, dir.status());
            for (int i = 0; i < 50; i++) {
                long mid = raw.nextMessageId();
                var f = raw.sendChangeNotify(dir.fileId(), 0x3, 4096);
                raw.sendCancel(mid);
                java.nio.ByteBuffer r = f.get(10, TimeUnit.SECONDS);
                assertEquals(io.rdmagate.smb.mserref.NtStatus.CANCELLED, io.rdmagate.smb.mssmb2.Smb2Header.status(r), "pair " + i);
                assertTrue(raw.interim.contains(mid), "the interim response came first, pair " + i);
            }
            assertEquals(0, raw.close(dir.fileId()));
        }
    }

    /**
     * A CANCEL that arrives ahead of its request (the server may handle it first however the two
     * are sent) cancels the request when it goes async; the connection goes on serving.
     */
    @Test
    void aCancelAheadOfItsRequestStillCancelsIt() throws Exception {
        Files.createDirectories(smb.export().resolve("early"));
        try (RawSmbClient raw = new RawSmbClient(smb.server().port()).logon()) {
            RawSmbClient.Created dir = raw.openDirectory("early");
            for (int i = 0; i < 20; i++) {
                raw.sendCancel(raw.nextMessageId());
                java.nio.ByteBuffer r = raw.sendChangeNotify(dir.fileId(), 0x3, 4096).get(10, TimeUnit.SECONDS);
                assertEquals(io.rdmagate.smb.mserref.NtStatus.CANCELLED, io.rdmagate.smb.mssmb2.Smb2Header.status(r), "pair " + i);
            }
            assertEquals(0, raw.close(dir.fileId()));
        }
    }

    /** The file names of a raw CHANGE_NOTIFY response's FILE_NOTIFY_INFORMATION entries (MS-FSCC 2.7.1). */
    static List<String> names(java.nio.ByteBuffer r) {
        List<String> out = new java.util.ArrayList<>();
        int at = Short.toUnsignedInt(r.getShort(66));
        if (r.getInt(68) == 0) {
            return out;
        }
        while (true) {
            int next = r.getInt(at);
            int len = r.getInt(at + 8);
            byte[] n = new byte[len];
            r.get(at + 12, n);
            out.add(new String(n, java.nio.charset.StandardCharsets.UTF_16LE));
            if (next == 0) {
                return out;
            }
            at += next;
        }
    }

    /**
     * Two CHANGE_NOTIFYs sent back to back on one handle wait in the order sent, whatever order the
     * server's threads take them in: the first gets what was collected, the second the next change.
     */
    @Test
    void requestsSentBackToBackAreAnsweredInTheOrderSent() throws Exception {
        Path dir = Files.createDirectories(smb.export().resolve("in-order"));
        try (RawSmbClient raw = new RawSmbClient(smb.server().port()).logon()) {
            RawSmbClient.Created d = raw.openDirectory("in-order");
            var first = raw.sendChangeNotify(d.fileId(), 0x3, 4096); // starts the feed, when the server takes it
            repeatUntilDone(first, i -> Files.writeString(dir.resolve("start" + i), "x"));
            assertEquals(0, io.rdmagate.smb.mssmb2.Smb2Header.status(first.get(10, TimeUnit.SECONDS)));
            Files.writeString(dir.resolve("settled"), "x"); // the feed runs: what the first did not take is
            var drain = raw.sendChangeNotify(d.fileId(), 0x3, 4096); // collected, and this takes it
            assertTrue(names(drain.get(10, TimeUnit.SECONDS)).contains("settled"));
            for (int i = 0; i < 10; i++) {
                Files.writeString(dir.resolve("collected" + i), "x"); // no request waits: collected
                var a = raw.sendChangeNotify(d.fileId(), 0x3, 4096);
                var b = raw.sendChangeNotify(d.fileId(), 0x3, 4096);
                assertEquals(List.of("collected" + i), names(a.get(10, TimeUnit.SECONDS)), "round " + i);
                assertFalse(b.isDone(), "the second waits for the next change, round " + i);
                Files.writeString(dir.resolve("next" + i), "x");
                assertEquals(List.of("next" + i), names(b.get(10, TimeUnit.SECONDS)), "round " + i);
            }
            assertEquals(0, raw.close(d.fileId()));
        }
    }
}
