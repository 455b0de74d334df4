package io.rdmagate.vfs.lock;

import java.util.concurrent.CompletableFuture;

/**
 * A blocking lock request waiting in the queue of its file. {@link #granted()} completes with the
 * lock when it is granted (NLM sends GRANTED then; SMB completes the async LOCK), exceptionally
 * with {@link java.util.concurrent.CancellationException} when cancelled or its owner's locks are
 * released.
 */
public final class PendingLock {
    private final long fileId;
    private final ByteRangeLock request;
    private final CompletableFuture<ByteRangeLock> granted = new CompletableFuture<>();
    private final LockManager manager;

    PendingLock(LockManager manager, long fileId, ByteRangeLock request) {
        this.manager = manager;
        this.fileId = fileId;
        this.request = request;
    }

    public long fileId() {
        return fileId;
    }

    public ByteRangeLock request() {
        return request;
    }

    public CompletableFuture<ByteRangeLock> granted() {
        return granted;
    }

    /** Withdraws the request; returns false if it was granted (or cancelled) already. */
    public boolean cancel() {
        return manager.cancel(this);
    }

    CompletableFuture<ByteRangeLock> future() {
        return granted;
    }
}
