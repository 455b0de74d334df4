package io.rdmagate.smb.msdtyp;

import io.rdmagate.smb.mserref.NtStatus;
import io.rdmagate.smb.mssmb2.Smb2DecodeException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * A security identifier (MS-DTYP 2.4.2.2): revision 1, a 48-bit big-endian identifier authority,
 * up to 15 little-endian sub-authorities.
 */
public record Sid(long authority, int[] subAuthorities) {
    /** S-1-1-0 (MS-DTYP 2.4.2.4). */
    public static final Sid EVERYONE = new Sid(1, new int[] {0});
    /** S-1-3-0: stands for the owner of the object an inheritable ACE is inherited by. */
    public static final Sid CREATOR_OWNER = new Sid(3, new int[] {0});
    /** S-1-3-1: stands for the primary group of the object an ACE is inherited by. */
    public static final Sid CREATOR_GROUP = new Sid(3, new int[] {1});
    /** S-1-3-4: when a DACL names it, the owner's implicit READ_CONTROL and WRITE_DAC are replaced by its ACEs. */
    public static final Sid OWNER_RIGHTS = new Sid(3, new int[] {4});
    /** S-1-5-11. */
    public static final Sid AUTHENTICATED_USERS = new Sid(5, new int[] {11});
    /** S-1-5-18. */
    public static final Sid LOCAL_SYSTEM = new Sid(5, new int[] {18});

    private static final int UNIX_AUTHORITY = 22;
    private static final int UNIX_USER = 1;
    private static final int UNIX_GROUP = 2;

    /** S-1-22-1-uid and S-1-22-2-gid: Samba's mapping of Unix ids, understood by Linux clients. */
    public static Sid unixUser(int uid) {
        return new Sid(UNIX_AUTHORITY, new int[] {UNIX_USER, uid});
    }

    public static Sid unixGroup(int gid) {
        return new Sid(UNIX_AUTHORITY, new int[] {UNIX_GROUP, gid});
    }

    public Sid {
        if (subAuthorities.length > 15) {
            throw new IllegalArgumentException("a SID has at most 15 sub-authorities");
        }
        subAuthorities = subAuthorities.clone();
    }

    /** The uid of an S-1-22-1-uid SID, else -1. */
    public long unixUid() {
        return unixId(UNIX_USER);
    }

    /** The gid of an S-1-22-2-gid SID, else -1. */
    public long unixGid() {
        return unixId(UNIX_GROUP);
    }

    private long unixId(int kind) {
        return authority == UNIX_AUTHORITY && subAuthorities.length == 2 && subAuthorities[0] == kind
                ? Integer.toUnsignedLong(subAuthorities[1]) : -1;
    }

    /** Reads a SID at {@code offset} of {@code b} (little-endian), which must lie inside {@code end}. */
    public static Sid read(ByteBuffer b, int offset, int end) throws Smb2DecodeException {
        if (offset < 0 || end - offset < 8) {
            throw new Smb2DecodeException(NtStatus.INVALID_SID, "SID outside its buffer");
        }
        int revision = b.get(offset) & 0xff;
        int count = b.get(offset + 1) & 0xff;
        if (revision != 1 || count > 15 || end - offset < 8 + 4 * count) {
            throw new Smb2DecodeException(NtStatus.INVALID_SID, "SID revision " + revision + ", " + count + " sub-authorities");
        }
        long authority = 0;
        for (int i = 0; i < 6; i++) {
            authority = authority << 8 | (b.get(offset + 2 + i) & 0xff);
        }
        int[] subs = new int[count];
        for (int i = 0; i < count; i++) {
            subs[i] = b.order(ByteOrder.LITTLE_ENDIAN).getInt(offset + 8 + 4 * i);
        }
        return new Sid(authority, subs);
    }

    public int length() {
        return 8 + 4 * subAuthorities.length;
    }

    public void write(ByteBuffer out) {
        out.put((byte) 1).put((byte) subAuthorities.length);
        for (int i = 5; i >= 0; i--) {
            out.put((byte) (authority >>> (8 * i)));
        }
        ByteOrder o = out.order();
        out.order(ByteOrder.LITTLE_ENDIAN);
        for (int s : subAuthorities) {
            out.putInt(s);
        }
        out.order(o);
    }

    @Override
    public String toString() {
        StringBuilder b = new StringBuilder("S-1-").append(authority);
        for (int s : subAuthorities) {
            b.append('-').append(Integer.toUnsignedString(s));
        }
        return b.toString();
    }

    @Override
    public int[] subAuthorities() {
        return subAuthorities.clone();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Sid s && s.authority == authority && Arrays.equals(s.subAuthorities, subAuthorities);
    }

    @Override
    public int hashCode() {
        return Long.hashCode(authority) * 31 + Arrays.hashCode(subAuthorities);
    }
}
