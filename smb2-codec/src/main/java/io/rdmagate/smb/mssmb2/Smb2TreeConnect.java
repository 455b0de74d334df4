package io.rdmagate.smb.mssmb2;

import java.nio.ByteBuffer;

/**
 * TREE_CONNECT (MS-SMB2 2.2.9 request, 2.2.10 response).
 *
 * <p>Accepts: StructureSize 9, a UTF-16 path "\\server\share" of 2..1024 bytes inside the message.
 * Refuses an empty, odd-length, oversized or out-of-bounds path (STATUS_INVALID_PARAMETER).
 */
public final class Smb2TreeConnect {
    public static final int SHARE_TYPE_DISK = 1;
    public static final int SHARE_TYPE_PIPE = 2;
    public static final int SHAREFLAG_MANUAL_CACHING = 0;
    public static final int SHAREFLAG_NO_CACHING = 0x30;
    public static final int SHAREFLAG_ENCRYPT_DATA = 0x8000;

    private Smb2TreeConnect() {
    }

    public record Request(int flags, String path) {
        /** The share name: the last component of the path, as given. */
        public String shareName() {
            int i = path.lastIndexOf('\\');
            return i < 0 ? path : path.substring(i + 1);
        }
    }

    public static Request decode(ByteBuffer m) throws Smb2DecodeException {
        Wire.body(m, 9, 8, "TREE_CONNECT");
        int b = Smb2Header.SIZE;
        int off = Wire.u16(m, b + 4);
        int len = Wire.u16(m, b + 6);
        if (len == 0 || len > 1024) {
            throw new Smb2DecodeException("PathLength " + len);
        }
        return new Request(Wire.u16(m, b + 2), Wire.utf16(m, off, len, "Path"));
    }

    public static int write(ByteBuffer m, int shareType, int shareFlags, int capabilities, int maximalAccess) {
        int b = Smb2Header.SIZE;
        m.putShort(b, (short) 16).put(b + 2, (byte) shareType).put(b + 3, (byte) 0).putInt(b + 4, shareFlags)
                .putInt(b + 8, capabilities).putInt(b + 12, maximalAccess);
        return 16;
    }
}
