package io.rdmagate.vfs.support;

import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * How a backend keeps a Windows security descriptor beside a file: the descriptor after a header
 * of the mode, owner and group it was stored with. It counts only while they are unchanged, for a
 * chmod or chown made since (through NFS, or on the host) said more recently who may do what.
 */
public final class DescriptorStamp {
    /** The extended attribute name, in the namespace the protocols' own xattr operations cannot reach. */
    public static final String XATTR = Names.RESERVED_XATTR_PREFIX + "ntacl";
    private static final int MAGIC = 0x52534431; // "RSD1"
    private static final int HEADER = 16;

    private DescriptorStamp() {
    }

    public static byte[] wrap(byte[] descriptor, int mode, int uid, int gid) {
        return ByteBuffer.allocate(HEADER + descriptor.length).putInt(MAGIC).putInt(mode & 07777).putInt(uid).putInt(gid)
                .put(descriptor).array();
    }

    /** The descriptor in {@code stored} if it was stored with this mode, owner and group, else null. */
    public static byte[] unwrap(byte[] stored, int mode, int uid, int gid) {
        if (stored == null || stored.length < HEADER) {
            return null;
        }
        ByteBuffer b = ByteBuffer.wrap(stored);
        boolean current = b.getInt(0) == MAGIC && b.getInt(4) == (mode & 07777) && b.getInt(8) == uid && b.getInt(12) == gid;
        return current ? Arrays.copyOfRange(stored, HEADER, stored.length) : null;
    }
}
