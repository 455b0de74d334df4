package io.rdmagate.vfs.support;

import io.rdmagate.vfs.Caller;
import io.rdmagate.vfs.FileAttributes;
import io.rdmagate.vfs.FileType;
import io.rdmagate.vfs.SetAttributes;
import io.rdmagate.vfs.VfsError;
import io.rdmagate.vfs.VfsException;
import io.rdmagate.vfs.VirtualFileSystem;

/** POSIX permission checks of the gateway, made in user space for every caller. */
public final class Permissions {
    public static final int R = 4;
    public static final int W = 2;
    public static final int X = 1;

    private Permissions() {
    }

    /** Whether the caller has every bit of {@code want} (rwx) on a file. */
    public static boolean has(Caller c, FileAttributes a, int want) {
        if (c.isSuperuser()) {
            // root may read and write anything, and execute what anyone may execute
            return (want & X) == 0 || a.type() == FileType.DIRECTORY || (a.mode() & 0111) != 0;
        }
        int bits;
        if (c.uid() == a.uid()) {
            bits = (a.mode() >> 6) & 7;
        } else if (c.inGroup(a.gid())) {
            bits = (a.mode() >> 3) & 7;
        } else {
            bits = a.mode() & 7;
        }
        return (bits & want) == want;
    }

    public static void require(Caller c, FileAttributes a, int want, String what) throws VfsException {
        if (!has(c, a, want)) {
            throw new VfsException(VfsError.ACCESS, what + " denied for " + c);
        }
    }

    /** Changing entries of a directory: write and search on it. */
    public static void requireDirChange(Caller c, FileAttributes dir) throws VfsException {
        if (dir.type() != FileType.DIRECTORY) {
            throw new VfsException(VfsError.NOT_DIRECTORY, "not a directory");
        }
        require(c, dir, W | X, "changing the directory");
    }

    /** Removing or renaming {@code victim} out of {@code dir}: the sticky bit limits it to owners. */
    public static void requireUnlink(Caller c, FileAttributes dir, FileAttributes victim) throws VfsException {
        requireDirChange(c, dir);
        if ((dir.mode() & 01000) != 0 && !c.isSuperuser() && c.uid() != dir.uid() && c.uid() != victim.uid()) {
            throw new VfsException(VfsError.ACCESS, "sticky directory: only the owner may remove");
        }
    }

    /** RFC 1813 ACCESS: which of the requested bits the caller has. */
    public static int access(Caller c, FileAttributes a, int requested) {
        int granted = 0;
        boolean dir = a.type() == FileType.DIRECTORY;
        if (has(c, a, R)) {
            granted |= VirtualFileSystem.ACCESS_READ;
        }
        if (has(c, a, W)) {
            granted |= VirtualFileSystem.ACCESS_MODIFY | VirtualFileSystem.ACCESS_EXTEND;
            if (dir) {
                granted |= VirtualFileSystem.ACCESS_DELETE;
            }
        }
        if (has(c, a, X)) {
            granted |= dir ? VirtualFileSystem.ACCESS_LOOKUP : VirtualFileSystem.ACCESS_EXECUTE;
        }
        return granted & requested;
    }

    /** chmod, chown, chgrp, utimes and truncate rules (POSIX, as Linux applies them). */
    public static void checkSetattr(Caller c, FileAttributes a, SetAttributes s) throws VfsException {
        if (c.isSuperuser()) {
            return;
        }
        boolean owner = c.uid() == a.uid();
        if (s.mode() != null && !owner) {
            throw new VfsException(VfsError.NOT_OWNER, "only the owner may change the mode");
        }
        if (s.uid() != null && s.uid() != a.uid()) {
            throw new VfsException(VfsError.NOT_OWNER, "only the superuser may change the owner");
        }
        if (s.gid() != null && s.gid() != a.gid() && (!owner || !c.inGroup(s.gid()))) {
            throw new VfsException(VfsError.NOT_OWNER, "the owner may only change the group to one of their groups");
        }
        if (s.size() != null) {
            if (a.type() == FileType.DIRECTORY) {
                throw new VfsException(VfsError.IS_DIRECTORY, "size of a directory");
            }
            require(c, a, W, "truncate");
        }
        boolean explicitTime = (s.atime() != null && s.atime() != SetAttributes.SERVER_TIME)
                || (s.mtime() != null && s.mtime() != SetAttributes.SERVER_TIME) || s.birthTime() != null
                || s.changeTime() != null;
        if (explicitTime && !owner) {
            throw new VfsException(VfsError.NOT_OWNER, "only the owner may set times");
        }
        if (!explicitTime && (s.atime() != null || s.mtime() != null) && !owner && !has(c, a, W)) {
            throw new VfsException(VfsError.ACCESS, "touch needs write permission");
        }
        if (s.dosAttributes() != null && !owner && !has(c, a, W)) {
            throw new VfsException(VfsError.ACCESS, "attributes need write permission");
        }
    }

    /** The mode a new object gets from the requested one (setgid is cleared for non-members). */
    public static int newMode(Caller c, Integer requested, int dflt, int gid) {
        int m = requested == null ? dflt : requested;
        if ((m & 02000) != 0 && !c.isSuperuser() && !c.inGroup(gid)) {
            m &= ~02000;
        }
        return m & 07777;
    }
}
