package io.rdmagate.vfs.local;

import io.rdmagate.vfs.FileType;
import io.rdmagate.vfs.VfsException;
import io.rdmagate.vfs.support.DescriptorStamp;
import java.lang.foreign.Arena;

/**
 * A file's Windows security descriptor on the backing filesystem: the extended attribute
 * {@code user.rdmagate.ntacl}, which copies that keep xattrs keep too, stamped with the mode,
 * owner and group it describes ({@link DescriptorStamp}).
 */
final class SecurityXattr {
    static final String NAME = "user." + DescriptorStamp.XATTR;

    private SecurityXattr() {
    }

    /** The descriptor kept on {@code fd} whose stat is {@code st}, or null. */
    static byte[] read(Arena a, Fd fd, Stat st) throws VfsException {
        if (st.type() == FileType.SYMLINK) {
            return null;
        }
        return DescriptorStamp.unwrap(raw(a, fd), st.mode(), st.uid(), st.gid());
    }

    /** Keeps {@code descriptor} stamped with this mode, owner and group; null removes it. */
    static void write(Arena a, Fd fd, int mode, int uid, int gid, byte[] descriptor) throws VfsException {
        restore(a, fd, descriptor == null ? null : DescriptorStamp.wrap(descriptor, mode, uid, gid));
    }

    /** The attribute as stored (stamp included), or null. */
    static byte[] raw(Arena a, Fd fd) throws VfsException {
        try {
            return Libc.getxattr(a, Libc.procPath(fd.fd()), NAME);
        } catch (Libc.Errno e) {
            if (e.errno == Libc.ENODATA || e.errno == Libc.EOPNOTSUPP) {
                return null;
            }
            throw e.toVfs("read the security descriptor");
        }
    }

    /** Puts back what {@link #raw} read: the stamped bytes, or no attribute. */
    static void restore(Arena a, Fd fd, byte[] stored) throws VfsException {
        try {
            if (stored != null) {
                Libc.setxattr(a, Libc.procPath(fd.fd()), NAME, stored, 0);
                return;
            }
            try {
                Libc.removexattr(a, Libc.procPath(fd.fd()), NAME);
            } catch (Libc.Errno e) {
                if (e.errno != Libc.ENODATA) {
                    throw e;
                }
            }
        } catch (Libc.Errno e) {
            throw e.toVfs("store the security descriptor");
        }
    }

    /**
     * Keeps a descriptor valid across a mode change the gateway makes for it (the DOS READONLY
     * attribute clears and restores write bits): restamped when it described {@code before}.
     */
    static void restamp(Arena a, Fd fd, Stat before, Stat after) throws VfsException {
        byte[] d = read(a, fd, before);
        if (d != null) {
            write(a, fd, after.mode(), after.uid(), after.gid(), d);
        }
    }
}
