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

    /**
     * Nanoseconds since 1970 of a FILETIME, clamped to what a signed 64-bit count of nanoseconds
     * holds (1677-09-21 to 2262-04-11); {@code Long.MIN_VALUE} is never returned.
     */
    public static long toUnixNanos(long fileTime) {
        long ticks = fileTime - EPOCH_DIFF;
        if (ticks > Long.MAX_VALUE / 100) {
            return Long.MAX_VALUE;
        }
        if (ticks < (Long.MIN_VALUE + 1) / 100) {
            return Long.MIN_VALUE + 1;
        }
        return ticks * 100;
    }
}
