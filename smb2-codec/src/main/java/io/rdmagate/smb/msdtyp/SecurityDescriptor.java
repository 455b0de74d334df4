package io.rdmagate.smb.msdtyp;

import io.rdmagate.smb.mserref.NtStatus;
import io.rdmagate.smb.mssmb2.Smb2DecodeException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;

/**
 * A security descriptor (MS-DTYP 2.4.6) in its self-relative form: control flags, owner, group,
 * SACL and DACL, each absent when its offset is 0. A DACL that is present without an ACL is the
 * NULL DACL, which grants everyone everything; an empty DACL grants nothing.
 */
public record SecurityDescriptor(int control, Sid owner, Sid group, Acl sacl, Acl dacl) {
    /** SecurityInformation bits (MS-DTYP 2.4.7) that select the parts a query or set concerns. */
    public static final int OWNER_SECURITY_INFORMATION = 0x1;
    public static final int GROUP_SECURITY_INFORMATION = 0x2;
    public static final int DACL_SECURITY_INFORMATION = 0x4;
    public static final int SACL_SECURITY_INFORMATION = 0x8;

    /** Control flags (MS-DTYP 2.4.6). */
    public static final int SE_DACL_PRESENT = 0x0004;
    public static final int SE_SACL_PRESENT = 0x0010;
    public static final int SE_DACL_AUTO_INHERIT_REQ = 0x0100;
    public static final int SE_SACL_AUTO_INHERIT_REQ = 0x0200;
    public static final int SE_DACL_AUTO_INHERITED = 0x0400;
    public static final int SE_SACL_AUTO_INHERITED = 0x0800;
    public static final int SE_DACL_PROTECTED = 0x1000;
    public static final int SE_SACL_PROTECTED = 0x2000;
    public static final int SE_SELF_RELATIVE = 0x8000;
    private static final int DACL_CONTROL = SE_DACL_PRESENT | 0x0008 /* SE_DACL_DEFAULTED */ | SE_DACL_AUTO_INHERIT_REQ
            | SE_DACL_AUTO_INHERITED | SE_DACL_PROTECTED;
    private static final int SACL_CONTROL = SE_SACL_PRESENT | 0x0020 /* SE_SACL_DEFAULTED */ | SE_SACL_AUTO_INHERIT_REQ
            | SE_SACL_AUTO_INHERITED | SE_SACL_PROTECTED;

    private static final int HEADER = 20;

    public boolean daclPresent() {
        return (control & SE_DACL_PRESENT) != 0;
    }

    /** A DACL present without a list: no access check applies. */
    public boolean nullDacl() {
        return daclPresent() && dacl == null;
    }

    /**
     * Parses a self-relative descriptor that must fit in {@code b}'s remaining bytes; a broken one
     * is STATUS_INVALID_SECURITY_DESCR (or INVALID_ACL, INVALID_SID for the part that is).
     */
    public static SecurityDescriptor read(ByteBuffer b) throws Smb2DecodeException {
        ByteBuffer d = b.slice().order(ByteOrder.LITTLE_ENDIAN);
        int end = d.limit();
        if (end < HEADER || d.get(0) != 1) {
            throw new Smb2DecodeException(NtStatus.INVALID_SECURITY_DESCR, "descriptor of " + end + " bytes");
        }
        int control = d.getShort(2) & 0xffff;
        if ((control & SE_SELF_RELATIVE) == 0) {
            throw new Smb2DecodeException(NtStatus.INVALID_SECURITY_DESCR, "descriptor is not self-relative");
        }
        int ownerAt = d.getInt(4);
        int groupAt = d.getInt(8);
        int saclAt = d.getInt(12);
        int daclAt = d.getInt(16);
        Sid owner = ownerAt == 0 ? null : Sid.read(d, checked(ownerAt, end), end);
        Sid group = groupAt == 0 ? null : Sid.read(d, checked(groupAt, end), end);
        Acl sacl = (control & SE_SACL_PRESENT) == 0 || saclAt == 0 ? null : Acl.read(d, checked(saclAt, end), end);
        Acl dacl = (control & SE_DACL_PRESENT) == 0 || daclAt == 0 ? null : Acl.read(d, checked(daclAt, end), end);
        return new SecurityDescriptor(control, owner, group, sacl, dacl);
    }

    public static SecurityDescriptor read(byte[] bytes) throws Smb2DecodeException {
        return read(ByteBuffer.wrap(bytes));
    }

    private static int checked(int offset, int end) throws Smb2DecodeException {
        if (offset < HEADER || offset >= end) {
            throw new Smb2DecodeException(NtStatus.INVALID_SECURITY_DESCR, "offset " + offset + " outside the descriptor");
        }
        return offset;
    }

    public int length() {
        return HEADER + (owner == null ? 0 : owner.length()) + (group == null ? 0 : group.length())
                + (sacl == null ? 0 : sacl.length()) + (dacl == null ? 0 : dacl.length());
    }

    /** The self-relative encoding: header, owner, group, SACL, DACL. */
    public byte[] encode() {
        ByteBuffer b = ByteBuffer.allocate(length()).order(ByteOrder.LITTLE_ENDIAN);
        b.put((byte) 1).put((byte) 0).putShort((short) (control | SE_SELF_RELATIVE));
        b.position(HEADER);
        int ownerAt = 0;
        int groupAt = 0;
        int saclAt = 0;
        int daclAt = 0;
        if (owner != null) {
            ownerAt = b.position();
            owner.write(b);
        }
        if (group != null) {
            groupAt = b.position();
            group.write(b);
        }
        if (sacl != null) {
            saclAt = b.position();
            sacl.write(b);
        }
        if (dacl != null) {
            daclAt = b.position();
            dacl.write(b);
        }
        b.putInt(4, ownerAt).putInt(8, groupAt).putInt(12, saclAt).putInt(16, daclAt);
        return b.array();
    }

    /** Only the parts {@code info} asks for (MS-SMB2 3.3.5.20.3 AdditionalInformation). */
    public SecurityDescriptor select(int info) {
        boolean wantDacl = (info & DACL_SECURITY_INFORMATION) != 0;
        boolean wantSacl = (info & SACL_SECURITY_INFORMATION) != 0;
        int c = (wantDacl ? control & DACL_CONTROL : 0) | (wantSacl ? control & SACL_CONTROL : 0);
        return new SecurityDescriptor(c, (info & OWNER_SECURITY_INFORMATION) != 0 ? owner : null,
                (info & GROUP_SECURITY_INFORMATION) != 0 ? group : null, wantSacl ? sacl : null, wantDacl ? dacl : null);
    }

    /**
     * This descriptor with the parts {@code info} names taken from {@code set} (a SET_INFO of
     * security, MS-FSA 2.1.5.16): an owner or group asked for but missing is INVALID_OWNER or
     * INVALID_PRIMARY_GROUP.
     */
    public SecurityDescriptor with(SecurityDescriptor set, int info) throws Smb2DecodeException {
        Sid o = owner;
        Sid g = group;
        int c = control;
        Acl s = sacl;
        Acl d = dacl;
        if ((info & OWNER_SECURITY_INFORMATION) != 0) {
            if (set.owner == null) {
                throw new Smb2DecodeException(NtStatus.INVALID_OWNER, "no owner in the descriptor set");
            }
            o = set.owner;
        }
        if ((info & GROUP_SECURITY_INFORMATION) != 0) {
            if (set.group == null) {
                throw new Smb2DecodeException(NtStatus.INVALID_PRIMARY_GROUP, "no group in the descriptor set");
            }
            g = set.group;
        }
        if ((info & DACL_SECURITY_INFORMATION) != 0) {
            // a DACL set without SE_DACL_PRESENT is the NULL DACL, as Windows takes it
            c = c & ~DACL_CONTROL | SE_DACL_PRESENT | kept(set.control, 0x0008 | SE_DACL_PROTECTED,
                    SE_DACL_AUTO_INHERITED, SE_DACL_AUTO_INHERIT_REQ);
            d = set.dacl == null ? null : set.dacl.mapped();
        }
        if ((info & SACL_SECURITY_INFORMATION) != 0) {
            c = c & ~SACL_CONTROL | kept(set.control, SE_SACL_PRESENT | 0x0020 | SE_SACL_PROTECTED,
                    SE_SACL_AUTO_INHERITED, SE_SACL_AUTO_INHERIT_REQ);
            s = set.sacl;
        }
        return new SecurityDescriptor(c & ~SE_SELF_RELATIVE, o, g, s, d);
    }

    /**
     * The control bits a set keeps (MS-DTYP 2.5.3.4.1 with SEF_DACL_AUTO_INHERIT): presence,
     * defaulted and protected as given; AUTO_INHERITED only when AUTO_INHERIT_REQ asks for it,
     * which itself is a request, not kept.
     */
    private static int kept(int control, int asGiven, int autoInherited, int autoInheritReq) {
        int k = control & asGiven;
        return (control & (autoInherited | autoInheritReq)) == (autoInherited | autoInheritReq) ? k | autoInherited : k;
    }

    /**
     * What the POSIX mode bits say, for a file that has no stored descriptor: owner, group, and a
     * DACL granting owner, group and Everyone (MS-DTYP 2.4.2.4) what their rwx triple grants.
     */
    public static SecurityDescriptor fromMode(Sid owner, Sid group, int mode) {
        List<Ace> aces = List.of(
                new Ace(Ace.ACCESS_ALLOWED, 0, maskOf((mode >> 6) & 7), owner),
                new Ace(Ace.ACCESS_ALLOWED, 0, maskOf((mode >> 3) & 7), group),
                new Ace(Ace.ACCESS_ALLOWED, 0, maskOf(mode & 7), Sid.EVERYONE));
        return new SecurityDescriptor(SE_DACL_PRESENT, owner, group, null, Acl.of(aces));
    }

    /** Access mask for one rwx triple. */
    static int maskOf(int rwx) {
        int m = 0;
        if ((rwx & 4) != 0) {
            m |= AccessMask.FILE_GENERIC_READ;
        }
        if ((rwx & 2) != 0) {
            m |= AccessMask.FILE_GENERIC_WRITE | AccessMask.DELETE | AccessMask.FILE_DELETE_CHILD;
        }
        if ((rwx & 1) != 0) {
            m |= AccessMask.FILE_GENERIC_EXECUTE;
        }
        return m == (AccessMask.FILE_GENERIC_READ | AccessMask.FILE_GENERIC_WRITE | AccessMask.DELETE
                | AccessMask.FILE_DELETE_CHILD | AccessMask.FILE_GENERIC_EXECUTE) ? AccessMask.FILE_ALL_ACCESS : m;
    }
}
