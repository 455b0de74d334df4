package io.rdmagate.smb.server;

import io.rdmagate.smb.msdtyp.AccessCheck;
import io.rdmagate.smb.msdtyp.AccessMask;
import io.rdmagate.smb.msdtyp.SecurityDescriptor;
import io.rdmagate.smb.msdtyp.Sid;
import io.rdmagate.smb.mssmb2.Smb2DecodeException;
import io.rdmagate.vfs.Caller;
import io.rdmagate.vfs.FileAttributes;
import io.rdmagate.vfs.FileHandle;
import io.rdmagate.vfs.FileType;
import io.rdmagate.vfs.SetAttributes;
import io.rdmagate.vfs.VfsException;
import io.rdmagate.vfs.VirtualFileSystem;
import java.util.HashSet;
import java.util.Set;

/**
 * Files' security descriptors as SMB sees them (MS-DTYP 2.4.6, MS-FSA 2.1.5.1.2.1 access check):
 * the descriptor a client stored, kept by the vfs beside the file, or else the one the mode bits
 * describe. Users and groups are S-1-22-1-uid and S-1-22-2-gid, as Samba names them. Where a
 * descriptor is stored it decides what an open may do; where none is, the mode does.
 */
public final class Security {
    private static final int READ = AccessMask.FILE_READ_DATA;
    private static final int WRITE = AccessMask.FILE_WRITE_DATA;
    private static final int EXECUTE = AccessMask.FILE_EXECUTE;

    private Security() {
    }

    /** The SIDs a caller counts as: its user, its groups, Everyone and Authenticated Users. */
    public static AccessCheck.Token token(Caller caller) {
        Set<Sid> sids = new HashSet<>();
        Sid user = Sid.unixUser(caller.uid());
        sids.add(user);
        sids.add(Sid.unixGroup(caller.gid()));
        for (int g : caller.groups()) {
            sids.add(Sid.unixGroup(g));
        }
        sids.add(Sid.EVERYONE);
        sids.add(Sid.AUTHENTICATED_USERS);
        return new AccessCheck.Token(user, sids);
    }

    /** The descriptor stored on the file, or null when the mode bits say who may do what. */
    public static SecurityDescriptor stored(VirtualFileSystem vfs, FileHandle h) throws VfsException {
        byte[] b = vfs.securityDescriptor(h);
        if (b == null) {
            return null;
        }
        try {
            return SecurityDescriptor.read(b);
        } catch (Smb2DecodeException e) {
            return null; // only this gateway writes it, after parsing: not expected; the mode applies
        }
    }

    /**
     * The file's descriptor: the stored one, or the mode's. A read-only file's mode has no write
     * bits; its DACL is the one it has without the attribute (the owner's write, which clearing the
     * attribute gives back), so that the DOS attribute and the DACL stay apart as on Windows.
     */
    public static SecurityDescriptor of(VirtualFileSystem vfs, FileHandle h, FileAttributes a) throws VfsException {
        SecurityDescriptor sd = stored(vfs, h);
        if (sd != null) {
            return sd;
        }
        int mode = a.mode();
        if (a.type() != FileType.DIRECTORY && (mode & 0222) == 0) {
            mode |= 0200;
        }
        return SecurityDescriptor.fromMode(Sid.unixUser(a.uid()), Sid.unixGroup(a.gid()), mode);
    }

    /** The rights {@code sd} grants {@code caller} (MS-DTYP 2.5.3.2). */
    public static int granted(SecurityDescriptor sd, Caller caller) {
        return AccessCheck.granted(sd, token(caller));
    }

    /**
     * WRITE_OWNER for the superuser when asked for by name, as SeTakeOwnershipPrivilege gives it
     * (MS-DTYP 2.5.3.2): whatever a DACL says, the superuser can make itself the owner, and the
     * owner can always read and rewrite the DACL.
     */
    public static int takeOwnership(Caller caller, int requested) {
        return caller.isSuperuser() ? requested & AccessMask.WRITE_OWNER : 0;
    }

    /**
     * The POSIX picture of {@code sd} for {@code current}: owner and group from S-1-22 SIDs, and
     * each class's read, write and execute bits from what the DACL grants that class (the owner
     * class: the owner's SID and Everyone; group: the group's and Everyone; other: Everyone). The
     * write bits keep saying whether the file is read-only, as the DOS attribute has it: a
     * read-only file stays without them, another keeps the owner's. Only what changes is set.
     */
    public static SetAttributes posix(SecurityDescriptor sd, FileAttributes current) {
        SetAttributes s = SetAttributes.create();
        Sid owner = sd.owner() != null ? sd.owner() : Sid.unixUser(current.uid());
        Sid group = sd.group() != null ? sd.group() : Sid.unixGroup(current.gid());
        if (owner.unixUid() >= 0 && owner.unixUid() != Integer.toUnsignedLong(current.uid())) {
            s.owner((int) owner.unixUid());
        }
        if (group.unixGid() >= 0 && group.unixGid() != Integer.toUnsignedLong(current.gid())) {
            s.group((int) group.unixGid());
        }
        int mode = current.mode() & 07000
                | rwx(sd, owner, Sid.EVERYONE, Sid.AUTHENTICATED_USERS) << 6
                | rwx(sd, group, Sid.EVERYONE, Sid.AUTHENTICATED_USERS) << 3
                | rwx(sd, Sid.EVERYONE);
        // the write bits also carry the DOS READONLY attribute (none: read-only), which a DACL leaves as it is
        mode = (current.mode() & 0222) == 0 ? mode & ~0222 : mode | 0200;
        if (mode != (current.mode() & 07777)) {
            s.mode(mode);
        }
        return s;
    }

    private static int rwx(SecurityDescriptor sd, Sid... sids) {
        int g = AccessCheck.granted(sd, new AccessCheck.Token(sids[0], Set.copyOf(java.util.List.of(sids))));
        return ((g & READ) != 0 ? 4 : 0) | ((g & WRITE) != 0 ? 2 : 0) | ((g & EXECUTE) != 0 ? 1 : 0);
    }
}
