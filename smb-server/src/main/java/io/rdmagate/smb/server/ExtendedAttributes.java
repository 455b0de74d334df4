package io.rdmagate.smb.server;

import io.rdmagate.smb.mserref.NtStatus;
import io.rdmagate.smb.msfscc.FullEaInformation;
import io.rdmagate.smb.msfscc.FullEaInformation.Ea;
import io.rdmagate.vfs.Caller;
import io.rdmagate.vfs.FileHandle;
import io.rdmagate.vfs.VfsError;
import io.rdmagate.vfs.VfsException;
import io.rdmagate.vfs.VirtualFileSystem;
import io.rdmagate.vfs.XattrMode;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * SMB extended attributes (MS-FSCC 2.4.15) are the file's user xattrs, the ones NFSv4.2's
 * GETXATTR/SETXATTR and the host's getfattr see: EA "Color" is {@code user.Color}, as Samba's
 * {@code ea support} keeps them.
 *
 * <p>Windows compares EA names without case (NTFS keeps one EA per name, in any case): a set finds
 * an xattr of the same name in any case and replaces its value under the name it has; a query by
 * name finds it the same way. An xattr whose name cannot be an EA name (not printable ASCII, one of
 * the characters MS-FSCC forbids, over 255 bytes) or whose value is over 65,535 bytes is not shown
 * to SMB clients. An EA with an empty value does not exist: setting one removes it.
 */
public final class ExtendedAttributes {
    private ExtendedAttributes() {
    }

    /** Every EA of the file, in the order its xattrs list. */
    public static List<Ea> all(VirtualFileSystem vfs, Caller caller, FileHandle file) throws VfsException {
        List<Ea> out = new ArrayList<>();
        for (String name : names(vfs, caller, file)) {
            byte[] value = value(vfs, caller, file, name);
            if (value != null && value.length > 0 && value.length <= 0xffff) {
                out.add(new Ea(name, value, 0));
            }
        }
        return out;
    }

    /** The EAs {@code asked} names, in that order; one the file lacks has an empty value, as Windows answers. */
    public static List<Ea> named(VirtualFileSystem vfs, Caller caller, FileHandle file, List<String> asked)
            throws VfsException {
        List<String> names = names(vfs, caller, file);
        List<Ea> out = new ArrayList<>(asked.size());
        for (String name : asked) {
            String stored = find(names, name);
            byte[] value = stored == null ? null : value(vfs, caller, file, stored);
            out.add(new Ea(stored != null ? stored : name, value == null || value.length > 0xffff ? new byte[0] : value,
                    0));
        }
        return out;
    }

    /** FileEaInformation's EaSize (MS-FSCC 2.4.13): the length of the file's FILE_FULL_EA_INFORMATION. */
    public static int size(VirtualFileSystem vfs, Caller caller, FileHandle file) throws VfsException {
        if (names(vfs, caller, file).isEmpty()) {
            return 0; // the common case: one listxattr, no value read
        }
        return FullEaInformation.length(all(vfs, caller, file));
    }

    /**
     * Sets each EA in order (MS-FSCC 2.4.15, SET_INFO FileFullEaInformation): an empty value removes it
     * (removing one that does not exist succeeds), any other is set under the name the file already
     * has for it, in whatever case, else under the name given.
     */
    public static void set(VirtualFileSystem vfs, Caller caller, FileHandle file, List<Ea> eas)
            throws VfsException, SmbException {
        List<String> names = names(vfs, caller, file);
        for (Ea ea : eas) {
            String stored = find(names, ea.name());
            if (ea.value().length == 0) {
                if (stored != null) {
                    vfs.removexattr(caller, file, stored);
                    names.remove(stored);
                }
                continue;
            }
            String name = stored != null ? stored : ea.name();
            if (io.rdmagate.vfs.support.Names.reservedXattr(name)) {
                throw new SmbException(NtStatus.ACCESS_DENIED, "EA " + name + " is the gateway's own");
            }
            try {
                vfs.setxattr(caller, file, name, ea.value(), XattrMode.EITHER);
            } catch (VfsException e) {
                if (e.error() == VfsError.NO_SPACE || e.error() == VfsError.FILE_TOO_BIG) {
                    throw new SmbException(NtStatus.EA_TOO_LARGE, "EA " + name + " of " + ea.value().length
                            + " bytes: " + e.getMessage());
                }
                throw e;
            }
            if (stored == null) {
                names.add(name);
            }
        }
    }

    /** A FILE_FULL_EA_INFORMATION list from a client: STATUS_EA_LIST_INCONSISTENT or STATUS_INVALID_EA_NAME when invalid. */
    public static List<Ea> decode(java.nio.ByteBuffer list) throws SmbException {
        try {
            return FullEaInformation.decode(list);
        } catch (FullEaInformation.Invalid e) {
            throw invalid(e);
        }
    }

    /** A FILE_GET_EA_INFORMATION list from a client, as {@link #decode}. */
    public static List<String> askedNames(java.nio.ByteBuffer list) throws SmbException {
        try {
            return FullEaInformation.decodeNames(list);
        } catch (FullEaInformation.Invalid e) {
            throw invalid(e);
        }
    }

    private static SmbException invalid(FullEaInformation.Invalid e) {
        return new SmbException(e.nameInvalid() ? NtStatus.INVALID_EA_NAME : NtStatus.EA_LIST_INCONSISTENT, e.getMessage());
    }

    /** The file's xattr names that can be EA names. */
    private static List<String> names(VirtualFileSystem vfs, Caller caller, FileHandle file) throws VfsException {
        List<String> out = new ArrayList<>();
        for (String n : vfs.listxattr(caller, file)) {
            if (FullEaInformation.validName(n) && n.getBytes(StandardCharsets.UTF_8).length == n.length()) {
                out.add(n);
            }
        }
        return out;
    }

    private static String find(List<String> names, String name) {
        for (String n : names) {
            if (n.equalsIgnoreCase(name)) {
                return n;
            }
        }
        return null;
    }

    /** The value of xattr {@code name}, or null when it went meanwhile. */
    private static byte[] value(VirtualFileSystem vfs, Caller caller, FileHandle file, String name) throws VfsException {
        try {
            return vfs.getxattr(caller, file, name);
        } catch (VfsException e) {
            if (e.error() == VfsError.NO_XATTR) {
                return null;
            }
            throw e;
        }
    }
}
