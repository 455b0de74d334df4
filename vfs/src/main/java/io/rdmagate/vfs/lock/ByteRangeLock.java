package io.rdmagate.vfs.lock;

/**
 * A byte-range lock. Offsets are unsigned 64-bit. For {@link LockSemantics#POSIX} a length of 0
 * reaches the end of any file; for {@link LockSemantics#WINDOWS} it is an empty range.
 */
public record ByteRangeLock(LockOwner owner, long offset, long length, boolean exclusive, LockSemantics semantics) {

    /** The last byte covered (unsigned). An empty Windows range ends before it starts. */
    public long last() {
        if (length == 0) {
            return semantics == LockSemantics.POSIX ? -1L : offset - 1;
        }
        long l = offset + length - 1;
        return Long.compareUnsigned(l, offset) < 0 ? -1L : l;
    }

    /** Whether the unsigned range wraps past 2^64 (MS-FSA: STATUS_INVALID_LOCK_RANGE). */
    public boolean wraps() {
        return length != 0 && Long.compareUnsigned(offset + length - 1, offset) < 0;
    }

    /** MS-FSA 2.1.4.10: ranges overlap; the {0,0} range overlaps nothing. */
    public boolean overlaps(long otherOffset, long otherLast, boolean otherIsZeroZero) {
        if (otherIsZeroZero || isZeroZero()) {
            return false;
        }
        return Long.compareUnsigned(offset, otherLast) <= 0 && Long.compareUnsigned(last(), otherOffset) >= 0;
    }

    public boolean overlaps(ByteRangeLock o) {
        return overlaps(o.offset, o.last(), o.isZeroZero());
    }

    /** MS-FSA 2.1.4.10: offset 0 and length 0 (Windows), a range that overlaps nothing. */
    public boolean isZeroZero() {
        return semantics == LockSemantics.WINDOWS && offset == 0 && length == 0;
    }

    /** Whether holding this lock stops {@code request} from being granted (lock intent). */
    public boolean blocks(ByteRangeLock request) {
        if (!overlaps(request)) {
            return false;
        }
        boolean sameOwner = owner.equals(request.owner);
        if (sameOwner && (semantics == LockSemantics.POSIX || request.semantics == LockSemantics.POSIX)) {
            return false;
        }
        if (!exclusive && !request.exclusive) {
            return false;
        }
        // A shared lock may stack on the same owner's exclusive lock (Windows).
        return !(sameOwner && exclusive && !request.exclusive);
    }
}
