package io.rdmagate.vfs.lock;

import io.rdmagate.vfs.VfsError;
import io.rdmagate.vfs.VfsException;

/** A lock could not be granted because another owner holds a conflicting one. */
public final class LockConflictException extends VfsException {
    private static final long serialVersionUID = 1L;
    private final transient ByteRangeLock holder;

    public LockConflictException(ByteRangeLock holder) {
        super(VfsError.LOCK_CONFLICT, "held by " + holder.owner().key() + " at " + Long.toUnsignedString(holder.offset())
                + "+" + Long.toUnsignedString(holder.length()) + (holder.exclusive() ? " exclusive" : " shared"));
        this.holder = holder;
    }

    /** The conflicting lock and its owner. */
    public ByteRangeLock holder() {
        return holder;
    }
}
