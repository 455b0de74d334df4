package io.rdmagate.vfs.support;

import io.rdmagate.vfs.VfsError;
import io.rdmagate.vfs.VfsException;
import io.rdmagate.vfs.VirtualFileSystem;
import java.nio.charset.StandardCharsets;

/**
 * Validation of a single path component received from a client.
 *
 * <p>Accepts: non-empty UTF-16 strings that encode to at most 255 bytes of UTF-8.
 * Refuses: '/', NUL, "." and "..", and unpaired surrogates (not representable on disk).
 */
public final class Names {
    private Names() {
    }

    public static void check(String name) throws VfsException {
        if (name == null || name.isEmpty()) {
            throw new VfsException(VfsError.INVALID, "empty name");
        }
        if (name.equals(".") || name.equals("..")) {
            throw new VfsException(VfsError.INVALID, "name '" + name + "' is reserved");
        }
        int utf8 = 0;
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            if (c == '/' || c == 0) {
                throw new VfsException(VfsError.INVALID, "name contains '/' or NUL");
            }
            if (Character.isHighSurrogate(c)) {
                if (i + 1 >= name.length() || !Character.isLowSurrogate(name.charAt(i + 1))) {
                    throw new VfsException(VfsError.INVALID, "name has an unpaired surrogate");
                }
                utf8 += 4;
                i++;
            } else if (Character.isLowSurrogate(c)) {
                throw new VfsException(VfsError.INVALID, "name has an unpaired surrogate");
            } else {
                utf8 += c < 0x80 ? 1 : c < 0x800 ? 2 : 3;
            }
        }
        if (utf8 > VirtualFileSystem.MAX_NAME_BYTES) {
            throw new VfsException(VfsError.NAME_TOO_LONG, "name of " + utf8 + " bytes");
        }
    }

    public static byte[] utf8(String name) {
        return name.getBytes(StandardCharsets.UTF_8);
    }

    /** A symlink target: non-empty, no NUL, at most 4095 bytes (PATH_MAX less the NUL). */
    public static void checkSymlinkTarget(String target) throws VfsException {
        if (target == null || target.isEmpty() || target.indexOf('\0') >= 0) {
            throw new VfsException(VfsError.INVALID, "symlink target is empty or has NUL");
        }
        if (utf8(target).length > 4095) {
            throw new VfsException(VfsError.NAME_TOO_LONG, "symlink target longer than 4095 bytes");
        }
    }

    /** An extended attribute name of the user namespace, without its "user." prefix. */
    public static void checkXattrName(String name) throws VfsException {
        if (name == null || name.isEmpty() || name.indexOf('\0') >= 0) {
            throw new VfsException(VfsError.INVALID, "xattr name is empty or has NUL");
        }
        if (reservedXattr(name)) {
            throw new VfsException(VfsError.ACCESS, "xattr " + name + " is the gateway's own");
        }
        if (utf8(name).length > 250) {
            throw new VfsException(VfsError.NAME_TOO_LONG, "xattr name longer than 250 bytes");
        }
    }

    /** Names of user xattrs the gateway keeps for itself (a file's security descriptor). */
    public static final String RESERVED_XATTR_PREFIX = "rdmagate.";

    /** Whether a client's xattr name is one the gateway keeps, which clients neither see nor set. */
    public static boolean reservedXattr(String name) {
        return name.regionMatches(true, 0, RESERVED_XATTR_PREFIX, 0, RESERVED_XATTR_PREFIX.length());
    }
}
