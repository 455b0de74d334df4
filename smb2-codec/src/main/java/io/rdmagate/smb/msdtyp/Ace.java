package io.rdmagate.smb.msdtyp;

import io.rdmagate.smb.mserref.NtStatus;
import io.rdmagate.smb.mssmb2.Smb2DecodeException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * An access control entry of the three kinds a file's ACLs hold (MS-DTYP 2.4.4.2 allowed, 2.4.4.4
 * denied, 2.4.4.10 system audit): header (type, flags, size), access mask, SID.
 */
public record Ace(int type, int flags, int mask, Sid sid) {
    public static final int ACCESS_ALLOWED = 0x00;
    public static final int ACCESS_DENIED = 0x01;
    public static final int SYSTEM_AUDIT = 0x02;

    /** AceFlags (MS-DTYP 2.4.4.1). */
    public static final int OBJECT_INHERIT = 0x01;
    public static final int CONTAINER_INHERIT = 0x02;
    public static final int NO_PROPAGATE_INHERIT = 0x04;
    public static final int INHERIT_ONLY = 0x08;
    public static final int INHERITED = 0x10;
    public static final int SUCCESSFUL_ACCESS = 0x40;
    public static final int FAILED_ACCESS = 0x80;
    /** The flags that make an ACE pass to children. */
    public static final int INHERITANCE = OBJECT_INHERIT | CONTAINER_INHERIT | NO_PROPAGATE_INHERIT | INHERIT_ONLY;

    public int length() {
        return 8 + sid.length();
    }

    /** Whether the ACE takes part in access checks on the object that holds it. */
    public boolean effective() {
        return (flags & INHERIT_ONLY) == 0;
    }

    public Ace withFlags(int f) {
        return new Ace(type, f, mask, sid);
    }

    static Ace read(ByteBuffer b, int offset, int end) throws Smb2DecodeException {
        if (end - offset < 8) {
            throw new Smb2DecodeException(NtStatus.INVALID_ACL, "ACE header outside its ACL");
        }
        int type = b.get(offset) & 0xff;
        int flags = b.get(offset + 1) & 0xff;
        int size = b.order(ByteOrder.LITTLE_ENDIAN).getShort(offset + 2) & 0xffff;
        if (size < 16 || (size & 3) != 0 || size > end - offset) {
            throw new Smb2DecodeException(NtStatus.INVALID_ACL, "ACE size " + size);
        }
        if (type != ACCESS_ALLOWED && type != ACCESS_DENIED && type != SYSTEM_AUDIT) {
            throw new Smb2DecodeException(NtStatus.INVALID_ACL, "ACE type " + type + " is not kept on files");
        }
        Sid sid = Sid.read(b, offset + 8, offset + size);
        return new Ace(type, flags, b.getInt(offset + 4), sid);
    }

    /** Writes the ACE; the SID is padded to a multiple of 4 bytes (every SID already is). */
    void write(ByteBuffer out) {
        out.put((byte) type).put((byte) flags).putShort((short) length()).putInt(mask);
        sid.write(out);
    }
}
