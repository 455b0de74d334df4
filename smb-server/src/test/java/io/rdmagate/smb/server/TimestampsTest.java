package io.rdmagate.smb.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import com.hierynomus.msdtyp.AccessMask;
import com.hierynomus.msdtyp.FileTime;
import com.hierynomus.msfscc.fileinformation.FileBasicInformation;
import com.hierynomus.mssmb2.SMB2CreateDisposition;
import com.hierynomus.mssmb2.SMB2ShareAccess;
import com.hierynomus.smbj.share.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EnumSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * File times as Windows applications set and read them (MS-FSA 2.1.5.14.2, MS-FSCC 2.4.7),
 * through smbj against the server over a local directory: every time a client sets reads back to
 * the 100 ns, ChangeTime included and 1970 and before included; ChangeTime moves again on the
 * next change; -1 freezes LastWriteTime for the open's later writes and -2 thaws it.
 */
class TimestampsTest {
    @RegisterExtension
    static final SmbjShare smb = new SmbjShare();

    static File open(String name) {
        return smb.share().openFile(name, EnumSet.of(AccessMask.MAXIMUM_ALLOWED), null, SMB2ShareAccess.ALL,
                SMB2CreateDisposition.FILE_OPEN_IF, null);
    }

    static FileBasicInformation set(long creation, long write, long change) {
        return new FileBasicInformation(new FileTime(creation), FileBasicInformation.DONT_SET, new FileTime(write),
                new FileTime(change), 0);
    }

    /** FILETIME of a Unix time in seconds plus 100 ns ticks. */
    static long ft(long unixSeconds, long ticks) {
        return (unixSeconds + 11_644_473_600L) * 10_000_000L + ticks;
    }

    @Test
    void timesSetByAClientReadBackExactlyIncludingChangeTime() {
        for (long t : new long[] {ft(4294967295L, 0), ft(1, 0), ft(0, 0), ft(-1, 0), ft(-63158400, 0),
                ft(1_700_000_000L, 1234567)}) {
            try (File f = open("times-" + t + ".txt")) {
                f.setFileInformation(set(t, t, t));
                FileBasicInformation b = f.getFileInformation(FileBasicInformation.class);
                assertEquals(t, b.getCreationTime().getWindowsTimeStamp(), "creation");
                assertEquals(t, b.getLastWriteTime().getWindowsTimeStamp(), "last write");
                assertEquals(t, b.getChangeTime().getWindowsTimeStamp(), "change");
            }
            try (File f = open("times-" + t + ".txt")) { // and on a new open, from what the file keeps
                FileBasicInformation b = f.getFileInformation(FileBasicInformation.class);
                assertEquals(t, b.getCreationTime().getWindowsTimeStamp(), "creation, reopened");
                assertEquals(t, b.getChangeTime().getWindowsTimeStamp(), "change, reopened");
            }
        }
    }

    /** Through another open: the one that set it keeps it fixed for its own writes (MS-FSA Open.UserSetChangeTime). */
    @Test
    void changeTimeMovesOnByItselfAtTheNextChange() {
        long t = ft(1_000_000_000L, 0);
        try (File setter = open("change-moves.txt"); File f = open("change-moves.txt")) {
            setter.setFileInformation(set(0, 0, t));
            assertEquals(t, f.getFileInformation(FileBasicInformation.class).getChangeTime().getWindowsTimeStamp());
            f.write("new data".getBytes(StandardCharsets.UTF_8), 0);
            long after = f.getFileInformation(FileBasicInformation.class).getChangeTime().getWindowsTimeStamp();
            assertNotEquals(t, after);
            assertEquals(true, after > ft(1_700_000_000L, 0), "the change time is now's");
        }
    }

    @Test
    void minusOneFreezesLastWriteTimeForTheOpenAndMinusTwoThawsIt() {
        long t = ft(1_500_000_000L, 0);
        try (File f = open("frozen.txt")) {
            f.setFileInformation(set(0, t, 0));
            f.setFileInformation(set(0, -1, 0));
            f.write("while frozen".getBytes(StandardCharsets.UTF_8), 0);
            assertEquals(t, f.getFileInformation(FileBasicInformation.class).getLastWriteTime().getWindowsTimeStamp(),
                    "a write through the open that froze the time leaves it");
            f.setFileInformation(set(0, -2, 0));
            f.write("thawed".getBytes(StandardCharsets.UTF_8), 0);
            assertNotEquals(t, f.getFileInformation(FileBasicInformation.class).getLastWriteTime().getWindowsTimeStamp(),
                    "after -2 a write updates it again");
        }
    }

    /** MS-FSA 2.1.5.14.2: a time set through an open stays as set across that open's later writes. */
    @Test
    void aTimeSetThroughAnOpenIsNotMovedByItsLaterWrites() {
        long t = ft(1_600_000_000L, 5);
        try (File f = open("set-then-write.txt")) {
            f.setFileInformation(set(0, t, t));
            f.write("after the set".getBytes(StandardCharsets.UTF_8), 0);
            FileBasicInformation b = f.getFileInformation(FileBasicInformation.class);
            assertEquals(t, b.getLastWriteTime().getWindowsTimeStamp());
            assertEquals(t, b.getChangeTime().getWindowsTimeStamp());
        }
    }

    /** As Samba takes it (smbtorture's smb2.timestamps names its files "dir/file"). */
    @Test
    void aForwardSlashSeparatesPathComponents() throws Exception {
        Files.createDirectories(smb.export().resolve("slashdir"));
        try (RawSmbClient raw = new RawSmbClient(smb.server().port()).logon()) {
            RawSmbClient.Created c = raw.create("slashdir/inner.txt", 0, 0x12019f, 7, 2); // FILE_CREATE
            assertEquals(0, c.status());
            assertEquals(0, raw.write(c.fileId(), 0, "x".getBytes(StandardCharsets.UTF_8)));
            assertEquals(0, raw.close(c.fileId()));
        }
        assertEquals("x", Files.readString(smb.export().resolve("slashdir").resolve("inner.txt")));
    }
}
