package io.rdmagate.smb.server;

import io.rdmagate.smb.mserref.NtStatus;
import io.rdmagate.vfs.VfsError;

/** vfs errors as NTSTATUS, the codes Windows servers answer for the same conditions (MS-FSA 2.1.5). */
public final class StatusMap {
    private StatusMap() {
    }

    public static int of(VfsError e) {
        return switch (e) {
            case NOT_FOUND -> NtStatus.OBJECT_NAME_NOT_FOUND;
            case EXISTS -> NtStatus.OBJECT_NAME_COLLISION;
            case ACCESS, NOT_OWNER, ESCAPE -> NtStatus.ACCESS_DENIED;
            case NOT_DIRECTORY -> NtStatus.NOT_A_DIRECTORY;
            case IS_DIRECTORY -> NtStatus.FILE_IS_A_DIRECTORY;
            case NOT_EMPTY -> NtStatus.DIRECTORY_NOT_EMPTY;
            case STALE, BAD_HANDLE -> NtStatus.FILE_CLOSED;
            case NAME_TOO_LONG, INVALID -> NtStatus.OBJECT_NAME_INVALID;
            case NO_SPACE -> NtStatus.DISK_FULL;
            case QUOTA -> NtStatus.QUOTA_EXCEEDED;
            case READ_ONLY -> NtStatus.MEDIA_WRITE_PROTECTED;
            case CROSS_DEVICE -> NtStatus.NOT_SAME_DEVICE;
            case NOT_SYMLINK -> NtStatus.INVALID_PARAMETER;
            case FILE_TOO_BIG -> NtStatus.DISK_FULL;
            case LOOP -> NtStatus.STOPPED_ON_SYMLINK;
            case TOO_MANY_LINKS -> NtStatus.TOO_MANY_LINKS;
            case NOT_SUPPORTED -> NtStatus.NOT_SUPPORTED;
            case NO_XATTR -> NtStatus.NO_EAS_ON_FILE;
            case LOCK_CONFLICT -> NtStatus.LOCK_NOT_GRANTED;
            case SHARING_VIOLATION -> NtStatus.SHARING_VIOLATION;
            case DEADLOCK -> NtStatus.LOCK_NOT_GRANTED;
            case RANGE_NOT_LOCKED -> NtStatus.RANGE_NOT_LOCKED;
            case NO_RESOURCES -> NtStatus.INSUFFICIENT_RESOURCES;
            case BAD_COOKIE -> NtStatus.INVALID_PARAMETER;
            case IO -> NtStatus.IO_DEVICE_ERROR; // EIO, as Samba maps it (errmap_unix.c)
        };
    }
}
