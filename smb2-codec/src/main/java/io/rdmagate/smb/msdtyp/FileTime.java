package io.rdmagate.smb.msdtyp;

/**
 * FILETIME (MS-DTYP 2.3.3): 100-nanosecond intervals since 1601-01-01 UTC, as an unsigned 64-bit
 * value. 0 means "no time" on the wire.
 */
public final class FileTime {
    /** 100 ns intervals between 1601-01-01 and 1970-01-01. */
    public static final long EPOCH_DIFF = 116444736000000000L;

    private FileTime() {
    }

    public static long fromUnixNanos(long nanos) {
        return Math.floorDiv(nanos, 100) + EPOCH_DIFF;
    }

    public static long toUnixNanos(long fileTime) {
        return (fileTime - EPOCH_DIFF) * 100;
    }
}
