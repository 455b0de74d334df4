package io.rdmagate.smb.msdtyp;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * A minimal self-relative security descriptor (MS-DTYP 2.4.6): owner, group, and a DACL of
 * access-allowed ACEs (MS-DTYP 2.4.4.2) for owner, group and Everyone derived from POSIX mode bits.
 * This is what QUERY_INFO SMB2_0_INFO_SECURITY answers; setting descriptors is not supported.
 */
public final class SecurityDescriptor {
    public static final int OWNER_SECURITY_INFORMATION = 0x1;
    public static final int GROUP_SECURITY_INFORMATION = 0x2;
    public static final int DACL_SECURITY_INFORMATION = 0x4;

    private static final int SE_SELF_RELATIVE = 0x8000;
    private static final int SE_DACL_PRESENT = 0x0004;
    private static final int FILE_ALL_ACCESS = 0x001F01FF;
    private static final int FILE_GENERIC_READ = 0x00120089;
    private static final int FILE_GENERIC_WRITE = 0x00120116;
    private static final int FILE_GENERIC_EXECUTE = 0x001200A0;

    private SecurityDescriptor() {
    }

    /** Access mask for one rwx triple. */
    static int maskOf(int rwx) {
        int m = 0;
        if ((rwx & 4) != 0) {
            m |= FILE_GENERIC_READ;
        }
        if ((rwx & 2) != 0) {
            m |= FILE_GENERIC_WRITE | 0x00010040; // DELETE, FILE_DELETE_CHILD
        }
        if ((rwx & 1) != 0) {
            m |= FILE_GENERIC_EXECUTE;
        }
        return m == (FILE_GENERIC_READ | FILE_GENERIC_WRITE | 0x00010040 | FILE_GENERIC_EXECUTE) ? FILE_ALL_ACCESS : m;
    }

    /** Encodes the parts asked for by {@code info} (OWNER/GROUP/DACL_SECURITY_INFORMATION). */
    public static byte[] encode(Sid owner, Sid group, int mode, int info) {
        Sid[] aceSids = {owner, group, Sid.EVERYONE};
        int[] masks = {maskOf((mode >> 6) & 7), maskOf((mode >> 3) & 7), maskOf(mode & 7)};
        int daclLen = 8;
        for (Sid s : aceSids) {
            daclLen += 8 + s.length();
        }
        boolean wantOwner = (info & OWNER_SECURITY_INFORMATION) != 0;
        boolean wantGroup = (info & GROUP_SECURITY_INFORMATION) != 0;
        boolean wantDacl = (info & DACL_SECURITY_INFORMATION) != 0;
        int len = 20 + (wantOwner ? owner.length() : 0) + (wantGroup ? group.length() : 0) + (wantDacl ? daclLen : 0);
        ByteBuffer b = ByteBuffer.allocate(len).order(ByteOrder.LITTLE_ENDIAN);
        b.put((byte) 1).put((byte) 0).putShort((short) (SE_SELF_RELATIVE | (wantDacl ? SE_DACL_PRESENT : 0)));
        int pos = 20;
        int ownerOff = 0;
        int groupOff = 0;
        int daclOff = 0;
        b.position(20);
        if (wantOwner) {
            ownerOff = pos;
            owner.write(b);
            pos = b.position();
        }
        if (wantGroup) {
            groupOff = pos;
            group.write(b);
            pos = b.position();
        }
        if (wantDacl) {
            daclOff = pos;
            b.put((byte) 2).put((byte) 0).putShort((short) daclLen).putShort((short) 3).putShort((short) 0);
            for (int i = 0; i < 3; i++) {
                b.put((byte) 0).put((byte) 0).putShort((short) (8 + aceSids[i].length())).putInt(masks[i]);
                aceSids[i].write(b);
            }
        }
        b.putInt(4, ownerOff).putInt(8, groupOff).putInt(12, 0).putInt(16, daclOff);
        return b.array();
    }
}
