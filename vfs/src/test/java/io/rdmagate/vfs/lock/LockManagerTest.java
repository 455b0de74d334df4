package io.rdmagate.vfs.lock;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rdmagate.vfs.VfsError;
import io.rdmagate.vfs.VfsException;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CancellationException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

class LockManagerTest {
    private static final long FILE = 42;
    private static final long OTHER_FILE = 43;
    private static final LockOwner A = owner("nlm:host-a:1");
    private static final LockOwner B = owner("nlm:host-b:2");
    private static final LockOwner C = owner("smb:open:3");

    private final LockManager locks = new LockManager();

    private static LockOwner owner(String key) {
        return new LockOwner(key, key.split(":")[1], 7, new byte[] {1, 2});
    }

    private static ByteRangeLock px(LockOwner o, long offset, long length) {
        return new ByteRangeLock(o, offset, length, true, LockSemantics.POSIX);
    }

    private static ByteRangeLock ps(LockOwner o, long offset, long length) {
        return new ByteRangeLock(o, offset, length, false, LockSemantics.POSIX);
    }

    private static ByteRangeLock wx(LockOwner o, long offset, long length) {
        return new ByteRangeLock(o, offset, length, true, LockSemantics.WINDOWS);
    }

    private static ByteRangeLock ws(LockOwner o, long offset, long length) {
        return new ByteRangeLock(o, offset, length, false, LockSemantics.WINDOWS);
    }

    /** The locks of FILE as "owner offset+length X|S", sorted, to compare whole tables. */
    private List<String> table() {
        return table(FILE);
    }

    private List<String> table(long file) {
        return locks.locks(file).stream()
                .sorted(Comparator.comparing((ByteRangeLock l) -> l.owner().key())
                        .thenComparing(l -> l.offset(), Long::compareUnsigned))
                .map(l -> l.owner().key() + " " + Long.toUnsignedString(l.offset()) + "+"
                        + Long.toUnsignedString(l.length()) + (l.exclusive() ? " X" : " S"))
                .toList();
    }

    private static String row(LockOwner o, long offset, long length, boolean exclusive) {
        return o.key() + " " + Long.toUnsignedString(offset) + "+" + Long.toUnsignedString(length)
                + (exclusive ? " X" : " S");
    }

    private LockConflictException conflict(ByteRangeLock request) {
        return assertThrows(LockConflictException.class, () -> locks.lock(FILE, request));
    }

    private static VfsError error(Executable e) {
        return assertThrows(VfsException.class, e).error();
    }

    // ---- told when free (NFSv4.1 CB_NOTIFY_LOCK) ----

    @Test
    void aWatcherIsToldWhenTheRangeIsFreeAndGrantedNothing() throws Exception {
        locks.lock(FILE, px(A, 0, 100));
        locks.lock(FILE, ps(C, 200, 10));
        var free = locks.whenFree(FILE, px(B, 50, 10));
        var other = locks.whenFree(FILE, px(B, 205, 1));
        assertTrue(!free.isDone() && !other.isDone(), "both ranges are held");
        locks.unlock(FILE, A, 0, 40, LockSemantics.POSIX);
        assertTrue(!free.isDone(), "50+10 is still held");
        locks.unlock(FILE, A, 0, 100, LockSemantics.POSIX);
        assertTrue(free.isDone(), "told once nothing conflicts");
        assertTrue(!other.isDone(), "the other range is still held");
        assertEquals(List.of(row(C, 200, 10, false)), table(), "the watcher was granted nothing");
        assertTrue(locks.whenFree(FILE, px(B, 0, 10)).isDone(), "a free range: told at once");

        var cancelled = locks.whenFree(FILE, px(B, 200, 1));
        cancelled.cancel(false);
        locks.releaseAll(o -> o.equals(C));
        assertTrue(other.isDone(), "told when the holder's locks are all released");
        assertEquals(List.of(), table());
    }

    // ---- POSIX ----

    @Test
    void posixAdjacentAndOverlappingLocksOfOneOwnerMerge() throws Exception {
        locks.lock(FILE, px(A, 0, 10));
        locks.lock(FILE, px(A, 10, 10));
        assertEquals(List.of(row(A, 0, 20, true)), table());
        locks.lock(FILE, px(A, 15, 20));
        assertEquals(List.of(row(A, 0, 35, true)), table());
        locks.lock(FILE, px(A, 100, 5));
        assertEquals(List.of(row(A, 0, 35, true), row(A, 100, 5, true)), table(), "a gap keeps locks apart");
    }

    @Test
    void posixLockOfTheOtherTypeInsideSplitsTheOwnersLock() throws Exception {
        locks.lock(FILE, px(A, 0, 100));
        locks.lock(FILE, ps(A, 40, 20));
        assertEquals(List.of(row(A, 0, 40, true), row(A, 40, 20, false), row(A, 60, 40, true)), table());
        // another owner can now share the middle, but not touch the exclusive parts
        locks.lock(FILE, ps(B, 45, 10));
        assertEquals(A, conflict(ps(B, 30, 15)).holder().owner());
    }

    @Test
    void posixUpgradeReplacesSharedWithExclusiveUnlessAnotherOwnerShares() throws Exception {
        locks.lock(FILE, ps(A, 0, 100));
        locks.lock(FILE, px(A, 0, 100));
        assertEquals(List.of(row(A, 0, 100, true)), table());
        locks.lock(FILE, ps(A, 0, 100)); // downgrade
        assertEquals(List.of(row(A, 0, 100, false)), table());
        locks.lock(FILE, ps(B, 50, 10));
        LockConflictException e = conflict(px(A, 0, 100));
        assertEquals(B, e.holder().owner());
        assertEquals(List.of(row(A, 0, 100, false), row(B, 50, 10, false)), table(), "a refused upgrade keeps the shared lock");
    }

    @Test
    void posixDowngradeLetsOthersShare() throws Exception {
        locks.lock(FILE, px(A, 0, 100));
        conflict(ps(B, 10, 10));
        locks.lock(FILE, ps(A, 0, 100));
        locks.lock(FILE, ps(B, 10, 10));
        conflict(px(B, 10, 10));
    }

    @Test
    void posixUnlockInTheMiddleSplitsAndFreesOnlyThatRange() throws Exception {
        locks.lock(FILE, px(A, 0, 100));
        locks.unlock(FILE, A, 40, 20, LockSemantics.POSIX);
        assertEquals(List.of(row(A, 0, 40, true), row(A, 60, 40, true)), table());
        locks.lock(FILE, px(B, 40, 20));
        conflict(px(B, 39, 1));
        conflict(px(B, 60, 1));
    }

    @Test
    void posixUnlockOfWhatIsNotLockedSucceeds() throws Exception {
        locks.unlock(FILE, A, 0, 10, LockSemantics.POSIX);
        locks.lock(FILE, px(B, 0, 10));
        locks.unlock(FILE, A, 0, 10, LockSemantics.POSIX);
        assertEquals(List.of(row(B, 0, 10, true)), table(), "unlocking never touches another owner's lock");
    }

    @Test
    void posixLengthZeroReachesTheEndOfAnyFile() throws Exception {
        locks.lock(FILE, px(A, 100, 0));
        conflict(px(B, 1L << 40, 1));
        conflict(px(B, -2L, 1)); // the last bytes of a 2^64 file
        conflict(px(B, 99, 2));
        locks.lock(FILE, px(B, 0, 100));
        locks.unlock(FILE, A, 1000, 0, LockSemantics.POSIX);
        assertEquals(List.of(row(A, 100, 900, true), row(B, 0, 100, true)), table());
        locks.lock(FILE, px(C, 1000, 0));
    }

    @Test
    void anOwnerNeverConflictsWithItselfUnderPosix() throws Exception {
        locks.lock(FILE, px(A, 0, 10));
        locks.lock(FILE, px(A, 5, 10));
        locks.lock(FILE, ps(A, 0, 0));
        assertTrue(locks.test(FILE, px(A, 0, 1000)).isEmpty());
        assertTrue(locks.lockOrWait(FILE, px(A, 3, 3)).granted().isDone());
    }

    @Test
    void aConflictNamesTheHolderAndItsRange() throws Exception {
        locks.lock(FILE, px(A, 10, 20));
        LockConflictException e = conflict(ps(B, 25, 10));
        assertEquals(VfsError.LOCK_CONFLICT, e.error());
        ByteRangeLock h = e.holder();
        assertEquals(A, h.owner());
        assertEquals(10, h.offset());
        assertEquals(20, h.length());
        assertTrue(h.exclusive());
        assertEquals(List.of(row(A, 10, 20, true)), table(), "a refused lock is not recorded");
    }

    @Test
    void testReportsTheHolderWithoutGrantingAnything() throws Exception {
        assertEquals(Optional.empty(), locks.test(FILE, px(B, 0, 10)));
        locks.lock(FILE, ps(A, 0, 10));
        assertEquals(Optional.empty(), locks.test(FILE, ps(B, 0, 10)), "shared does not block shared");
        Optional<ByteRangeLock> h = locks.test(FILE, px(B, 5, 1));
        assertTrue(h.isPresent());
        assertEquals(A, h.get().owner());
        assertFalse(h.get().exclusive());
        assertEquals(List.of(row(A, 0, 10, false)), table());
        assertEquals(Optional.empty(), locks.test(OTHER_FILE, px(B, 5, 1)), "locks are per file");
    }

    // ---- Windows ----

    @Test
    void windowsUnlockNeedsTheExactRange() throws Exception {
        locks.lock(FILE, wx(A, 0, 10));
        assertEquals(VfsError.RANGE_NOT_LOCKED, error(() -> locks.unlock(FILE, A, 0, 5, LockSemantics.WINDOWS)));
        assertEquals(VfsError.RANGE_NOT_LOCKED, error(() -> locks.unlock(FILE, A, 0, 11, LockSemantics.WINDOWS)));
        assertEquals(VfsError.RANGE_NOT_LOCKED, error(() -> locks.unlock(FILE, B, 0, 10, LockSemantics.WINDOWS)),
                "another owner cannot unlock it");
        locks.unlock(FILE, A, 0, 10, LockSemantics.WINDOWS);
        assertEquals(List.of(), table());
        assertEquals(VfsError.RANGE_NOT_LOCKED, error(() -> locks.unlock(FILE, A, 0, 10, LockSemantics.WINDOWS)));
    }

    @Test
    void windowsLocksStayDistinctAndStackedLocksUnlockOneAtATime() throws Exception {
        locks.lock(FILE, wx(A, 0, 10));
        locks.lock(FILE, wx(A, 10, 10));
        assertEquals(2, locks.locks(FILE).size(), "adjacent Windows locks do not merge");
        locks.lock(FILE, ws(A, 0, 10));
        assertEquals(3, locks.locks(FILE).size());
        locks.unlock(FILE, A, 0, 10, LockSemantics.WINDOWS);
        assertEquals(2, locks.locks(FILE).size(), "one unlock removes one of the stacked locks");
        conflict(wx(B, 0, 1)); // one lock at 0+10 still held
        locks.unlock(FILE, A, 0, 10, LockSemantics.WINDOWS);
        locks.lock(FILE, wx(B, 0, 1));
    }

    @Test
    void windowsExclusiveConflictsEvenWithTheOwnersSharedLock() throws Exception {
        locks.lock(FILE, ws(A, 0, 10));
        LockConflictException e = conflict(wx(A, 5, 10));
        assertEquals(A, e.holder().owner());
        locks.lock(FILE, wx(B, 20, 10));
        conflict(wx(B, 25, 1)); // and with its own exclusive lock
    }

    @Test
    void windowsSharedStacksOnTheOwnersExclusiveButNotOnAnothers() throws Exception {
        locks.lock(FILE, wx(A, 0, 10));
        locks.lock(FILE, ws(A, 0, 10));
        locks.lock(FILE, ws(A, 2, 3));
        assertEquals(A, conflict(ws(C, 0, 1)).holder().owner());
        assertEquals(A, conflict(ws(B, 5, 1)).holder().owner());
    }

    @Test
    void theZeroZeroRangeNeverConflicts() throws Exception {
        locks.lock(FILE, wx(A, 0, 100));
        locks.lock(FILE, wx(B, 0, 0));
        locks.lock(FILE, wx(C, 0, 0));
        locks.unlock(FILE, A, 0, 100, LockSemantics.WINDOWS);
        locks.lock(FILE, wx(A, 0, 100));
        locks.unlock(FILE, B, 0, 0, LockSemantics.WINDOWS);
    }

    @Test
    void aRangeThatWrapsPast2To64IsInvalid() {
        assertEquals(VfsError.INVALID, error(() -> locks.lock(FILE, wx(A, -10L, 20))));
        assertEquals(VfsError.INVALID, error(() -> locks.lock(FILE, px(A, -10L, 11))));
        assertEquals(VfsError.INVALID, error(() -> locks.lockOrWait(FILE, px(A, 2, -1L))));
        assertEquals(VfsError.INVALID, error(() -> locks.test(FILE, ws(A, -1L, 2))));
        assertEquals(VfsError.INVALID, error(() -> locks.unlock(FILE, A, -1L, 2, LockSemantics.POSIX)));
        assertEquals(List.of(), table());
    }

    @Test
    void offsetsNear2To64AreUnsigned() throws Exception {
        locks.lock(FILE, px(A, -100L, 50)); // 2^64-100 .. 2^64-51
        locks.lock(FILE, px(A, -10L, 10)); // the very last byte is lockable
        conflict(px(B, -60L, 10));
        conflict(px(B, -1L, 1));
        locks.lock(FILE, px(B, -200L, 100)); // ends at 2^64-101
        locks.lock(FILE, px(B, Long.MAX_VALUE, 1)); // 2^63-1 lies below, not above
        locks.lock(FILE, px(B, 0, 1));
        locks.lock(FILE, wx(C, Long.MIN_VALUE, 10)); // 2^63
        locks.lock(FILE, wx(B, 10, 10)); // a signed comparison would put 2^63 below 10
        conflict(ws(A, Long.MIN_VALUE + 5, 1));
    }

    @Test
    void posixAndWindowsOwnersConflictBothWays() throws Exception {
        locks.lock(FILE, px(A, 0, 10));
        assertEquals(A, conflict(wx(C, 5, 10)).holder().owner());
        assertEquals(A, conflict(ws(C, 5, 10)).holder().owner());
        locks.lock(FILE, wx(C, 100, 10));
        assertEquals(C, conflict(px(A, 105, 1)).holder().owner());
        assertEquals(C, conflict(ps(B, 50, 0)).holder().owner(), "a lock to the end of file meets it");
    }

    // ---- blocking ----

    @Test
    void aFreeLockOrWaitIsGrantedAtOnce() throws Exception {
        PendingLock p = locks.lockOrWait(FILE, px(A, 0, 10));
        assertTrue(p.granted().isDone());
        assertEquals(px(A, 0, 10), p.granted().join());
        assertEquals(List.of(row(A, 0, 10, true)), table());
    }

    @Test
    void aWaitingLockIsGrantedWhenTheHolderUnlocks() throws Exception {
        locks.lock(FILE, px(A, 0, 10));
        PendingLock p = locks.lockOrWait(FILE, px(B, 5, 10));
        assertFalse(p.granted().isDone());
        assertEquals(List.of(row(A, 0, 10, true)), table(), "a queued request holds nothing");
        locks.unlock(FILE, A, 0, 5, LockSemantics.POSIX);
        assertFalse(p.granted().isDone(), "still blocked by 5..9");
        locks.unlock(FILE, A, 5, 5, LockSemantics.POSIX);
        assertTrue(p.granted().isDone());
        assertEquals(B, p.granted().join().owner());
        assertEquals(List.of(row(B, 5, 10, true)), table());
    }

    @Test
    void waitersAreGrantedInArrivalOrder() throws Exception {
        locks.lock(FILE, px(A, 0, 10));
        PendingLock first = locks.lockOrWait(FILE, px(B, 0, 10));
        PendingLock second = locks.lockOrWait(FILE, px(C, 0, 10));
        locks.unlock(FILE, A, 0, 10, LockSemantics.POSIX);
        assertTrue(first.granted().isDone());
        assertFalse(second.granted().isDone(), "the second waits for the first");
        locks.unlock(FILE, B, 0, 10, LockSemantics.POSIX);
        assertTrue(second.granted().isDone());
        assertEquals(List.of(row(C, 0, 10, true)), table());
    }

    @Test
    void aCancelledWaitIsNeverGranted() throws Exception {
        locks.lock(FILE, px(A, 0, 10));
        PendingLock p = locks.lockOrWait(FILE, px(B, 0, 10));
        assertTrue(p.cancel());
        assertTrue(p.granted().isCompletedExceptionally());
        assertThrows(CancellationException.class, () -> p.granted().join());
        assertFalse(p.cancel(), "cancelling twice");
        locks.unlock(FILE, A, 0, 10, LockSemantics.POSIX);
        assertEquals(List.of(), table());
        PendingLock granted = locks.lockOrWait(FILE, px(B, 0, 10));
        assertFalse(granted.cancel(), "a granted request cannot be cancelled");
        assertEquals(List.of(row(B, 0, 10, true)), table());
    }

    @Test
    void releaseAllFreesLocksCancelsWaitsAndWakesOthers() throws Exception {
        locks.lock(FILE, px(A, 0, 10));
        locks.lock(OTHER_FILE, px(A, 0, 10));
        PendingLock b = locks.lockOrWait(FILE, px(B, 0, 10));
        PendingLock c = locks.lockOrWait(FILE, px(C, 0, 10));
        int released = locks.releaseAll(o -> o.equals(A) || o.equals(B));
        assertEquals(2, released);
        assertTrue(b.granted().isCompletedExceptionally(), "B's wait was cancelled");
        assertThrows(CancellationException.class, () -> b.granted().getNow(null));
        assertTrue(c.granted().isDone() && !c.granted().isCompletedExceptionally(), "C was woken and granted");
        assertEquals(List.of(row(C, 0, 10, true)), table());
        assertEquals(List.of(), table(OTHER_FILE));
    }

    @Test
    void waitingOnAnOwnerThatWaitsOnYouIsADeadlock() throws Exception {
        locks.lock(FILE, px(A, 0, 10)); // r1
        locks.lock(FILE, px(B, 100, 10)); // r2
        PendingLock bWaits = locks.lockOrWait(FILE, px(B, 0, 10));
        assertFalse(bWaits.granted().isDone());
        assertEquals(VfsError.DEADLOCK, error(() -> locks.lockOrWait(FILE, px(A, 100, 10))));
        // the refused request changed nothing: when A lets r1 go, B gets it
        locks.unlock(FILE, A, 0, 10, LockSemantics.POSIX);
        assertTrue(bWaits.granted().isDone());
    }

    @Test
    void aCycleThroughThreeOwnersAcrossFilesIsADeadlock() throws Exception {
        long third = 44;
        locks.lock(FILE, px(A, 0, 1));
        locks.lock(OTHER_FILE, px(B, 0, 1));
        locks.lock(third, wx(C, 0, 1));
        assertFalse(locks.lockOrWait(OTHER_FILE, px(A, 0, 1)).granted().isDone()); // A waits for B
        assertFalse(locks.lockOrWait(third, px(B, 0, 1)).granted().isDone()); // B waits for C
        assertEquals(VfsError.DEADLOCK, error(() -> locks.lockOrWait(FILE, wx(C, 0, 1)))); // C -> A -> B -> C
        assertEquals(List.of(row(A, 0, 1, true)), table(), "the refused request is not queued or granted");
    }

    @Test
    void waitingBehindAnOwnerThatWaitsElsewhereIsNotADeadlock() throws Exception {
        locks.lock(FILE, px(A, 0, 10));
        locks.lock(FILE, px(B, 100, 10));
        locks.lockOrWait(FILE, px(B, 0, 10)); // B waits for A
        PendingLock c = locks.lockOrWait(FILE, px(C, 100, 10)); // C waits for B: a chain, not a cycle
        assertFalse(c.granted().isDone());
    }

    // ---- I/O against locks ----

    @Test
    void ioConflictsWithOthersLocks() throws Exception {
        locks.lock(FILE, wx(A, 0, 10));
        locks.lock(FILE, ws(A, 100, 10));
        assertTrue(locks.ioConflicts(FILE, B, 5, 10, false), "read under another's exclusive lock");
        assertTrue(locks.ioConflicts(FILE, B, 5, 10, true), "write under another's exclusive lock");
        assertTrue(locks.ioConflicts(FILE, B, 105, 1, true), "write under another's shared lock");
        assertFalse(locks.ioConflicts(FILE, B, 105, 1, false), "read under a shared lock");
        assertFalse(locks.ioConflicts(FILE, A, 0, 10, false), "own exclusive lock does not block own read");
        assertFalse(locks.ioConflicts(FILE, A, 0, 10, true), "own exclusive lock does not block own write");
        assertFalse(locks.ioConflicts(FILE, B, 10, 90, true), "between the locks");
        assertFalse(locks.ioConflicts(FILE, B, 5, 0, true), "an empty I/O");
        assertFalse(locks.ioConflicts(OTHER_FILE, B, 5, 10, true));
    }

    @Test
    void posixLocksAlsoBlockConflictingIo() throws Exception {
        locks.lock(FILE, px(A, 0, 0)); // whole file
        assertTrue(locks.ioConflicts(FILE, C, 1L << 50, 4096, false));
        assertFalse(locks.ioConflicts(FILE, A, 1L << 50, 4096, true));
    }

    @Test
    void forgettingAFileCancelsItsWaiters() throws Exception {
        locks.lock(FILE, px(A, 0, 10));
        PendingLock p = locks.lockOrWait(FILE, px(B, 0, 10));
        locks.forget(FILE);
        assertTrue(p.granted().isCompletedExceptionally());
        assertEquals(List.of(), table());
        locks.lock(FILE, px(C, 0, 10));
    }
}
