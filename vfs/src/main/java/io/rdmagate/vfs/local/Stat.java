package io.rdmagate.vfs.local;

import io.rdmagate.vfs.FileType;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/** The fields of a struct statx the backend uses. btime is 0 when the filesystem has none. */
record Stat(long ino, FileType type, int mode, long nlink, int uid, int gid, long size, long blocks, long atime,
        long mtime, long ctime, long btime, long rdev, long dev) {

    static Stat of(MemorySegment sx) {
        int mask = sx.get(ValueLayout.JAVA_INT, 0);
        int rawMode = Short.toUnsignedInt(sx.get(ValueLayout.JAVA_SHORT, 28));
        long btime = (mask & Libc.STATX_BTIME) != 0 ? nanos(sx, 80) : 0;
        long rdev = ((long) sx.get(ValueLayout.JAVA_INT, 128) << 32) | (sx.get(ValueLayout.JAVA_INT, 132) & 0xffffffffL);
        long dev = ((long) sx.get(ValueLayout.JAVA_INT, 136) << 32) | (sx.get(ValueLayout.JAVA_INT, 140) & 0xffffffffL);
        return new Stat(
                sx.get(ValueLayout.JAVA_LONG, 32),
                FileType.fromMode(rawMode),
                rawMode & 07777,
                Integer.toUnsignedLong(sx.get(ValueLayout.JAVA_INT, 16)),
                sx.get(ValueLayout.JAVA_INT, 20),
                sx.get(ValueLayout.JAVA_INT, 24),
                sx.get(ValueLayout.JAVA_LONG, 40),
                sx.get(ValueLayout.JAVA_LONG, 48),
                nanos(sx, 64),
                nanos(sx, 112),
                nanos(sx, 96),
                btime,
                rdev,
                dev);
    }

    private static long nanos(MemorySegment sx, long off) {
        return sx.get(ValueLayout.JAVA_LONG, off) * 1_000_000_000L + Integer.toUnsignedLong(sx.get(ValueLayout.JAVA_INT, off + 8));
    }
}
