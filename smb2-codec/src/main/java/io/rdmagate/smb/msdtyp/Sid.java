package io.rdmagate.smb.msdtyp;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * A security identifier (MS-DTYP 2.4.2.2): revision 1, a 48-bit big-endian identifier authority,
 * up to 15 little-endian sub-authorities.
 */
public record Sid(long authority, int[] subAuthorities) {
    public static final Sid EVERYONE = new Sid(1, new int[] {0});
    /** S-1-22-1-uid and S-1-22-2-gid: Samba's mapping of Unix ids, understood by Linux clients. */
    public static Sid unixUser(int uid) {
        return new Sid(22, new int[] {1, uid});
    }

    public static Sid unixGroup(int gid) {
        return new Sid(22, new int[] {2, gid});
    }

    public Sid {
        if (subAuthorities.length > 15) {
            throw new IllegalArgumentException("a SID has at most 15 sub-authorities");
        }
        subAuthorities = subAuthorities.clone();
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
        return o instanceof Sid s && s.authority == authority && java.util.Arrays.equals(s.subAuthorities, subAuthorities);
    }

    @Override
    public int hashCode() {
        return Long.hashCode(authority) * 31 + java.util.Arrays.hashCode(subAuthorities);
    }
}
