package io.rdmagate.smb.server;

import io.rdmagate.vfs.Caller;
import io.rdmagate.vfs.FileAttributes;
import io.rdmagate.vfs.FileHandle;
import io.rdmagate.vfs.SetAttributes;
import io.rdmagate.vfs.VfsException;
import io.rdmagate.vfs.VirtualFileSystem;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * MS-FSA 2.1.1.5 Open.UserSetModificationTime and Open.UserSetChangeTime: once a client sets
 * LastWriteTime or ChangeTime through an open (a time, or -1 to freeze it), writes and size
 * changes through that open leave the time as it was; -2 thaws it (MS-FSA 2.1.5.14.2). The
 * filesystem moves mtime and ctime on every write, so after such a change through a frozen
 * open the times are put back.
 */
public final class UserSetTimes {
    private static final Logger log = LoggerFactory.getLogger(UserSetTimes.class);
    /** FILETIME values with a meaning of their own in FileBasicInformation (MS-FSCC 2.4.7). */
    public static final long FREEZE = -1;
    public static final long THAW = -2;

    private long writeTime = Long.MIN_VALUE; // nanoseconds, or MIN_VALUE when not frozen
    private long changeTime = Long.MIN_VALUE;

    /** Whether any time is frozen on this open. */
    public synchronized boolean any() {
        return writeTime != Long.MIN_VALUE || changeTime != Long.MIN_VALUE;
    }

    /**
     * Records what a FileBasicInformation set did to this open's flags: {@code lastWrite} and
     * {@code change} are the request's FILETIMEs, {@code after} the file's attributes once it was applied.
     */
    public synchronized void set(long lastWrite, long change, FileAttributes after) {
        if (lastWrite == THAW) {
            writeTime = Long.MIN_VALUE;
        } else if (lastWrite != 0) {
            writeTime = after.mtimeNanos();
        }
        if (change == THAW) {
            changeTime = Long.MIN_VALUE;
        } else if (change != 0) {
            changeTime = after.ctimeNanos();
        }
    }

    /** After a write or size change through the open: puts the frozen times back. */
    public void restore(VirtualFileSystem vfs, Caller caller, FileHandle handle) {
        SetAttributes s = SetAttributes.create();
        synchronized (this) {
            if (writeTime != Long.MIN_VALUE) {
                s.mtime(writeTime);
            }
            if (changeTime != Long.MIN_VALUE) {
                s.changeTime(changeTime);
            }
        }
        if (s.isEmpty()) {
            return;
        }
        try {
            vfs.setattr(caller, handle, s);
        } catch (VfsException e) {
            log.debug("keeping the times a client set: {}", e.getMessage()); // the write itself stands
        }
    }
}
