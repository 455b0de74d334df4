package io.rdmagate.smb.msdtyp;

import io.rdmagate.smb.mserref.NtStatus;
import io.rdmagate.smb.mssmb2.Smb2DecodeException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;

/** An access control list (MS-DTYP 2.4.5): revision, size, count, then the ACEs. */
public record Acl(int revision, List<Ace> aces) {
    public static final int ACL_REVISION = 2;
    /** An ACL's size is 16 bits: at most this many bytes. */
    public static final int MAX_LENGTH = 0xffff;

    public Acl {
        aces = List.copyOf(aces);
    }

    public static Acl of(List<Ace> aces) {
        return new Acl(ACL_REVISION, aces);
    }

    public int length() {
        int n = 8;
        for (Ace a : aces) {
            n += a.length();
        }
        return n;
    }

    /** This ACL with the generic rights of the ACEs that apply to its object mapped to file rights, as a set stores them. */
    public Acl mapped() {
        List<Ace> out = new ArrayList<>(aces.size());
        for (Ace a : aces) {
            out.add(a.effective() ? new Ace(a.type(), a.flags(), AccessMask.mapGeneric(a.mask()), a.sid()) : a);
        }
        return new Acl(revision, out);
    }

    static Acl read(ByteBuffer b, int offset, int end) throws Smb2DecodeException {
        if (offset < 0 || end - offset < 8) {
            throw new Smb2DecodeException(NtStatus.INVALID_ACL, "ACL outside its descriptor");
        }
        b.order(ByteOrder.LITTLE_ENDIAN);
        int revision = b.get(offset) & 0xff;
        int size = b.getShort(offset + 2) & 0xffff;
        int count = b.getShort(offset + 4) & 0xffff;
        if (revision != 2 && revision != 4 || size < 8 || size > end - offset) {
            throw new Smb2DecodeException(NtStatus.INVALID_ACL, "ACL revision " + revision + ", size " + size);
        }
        if (count > (size - 8) / 16) {
            throw new Smb2DecodeException(NtStatus.INVALID_ACL, count + " ACEs in " + size + " bytes");
        }
        List<Ace> aces = new ArrayList<>(count);
        int at = offset + 8;
        for (int i = 0; i < count; i++) {
            Ace a = Ace.read(b, at, offset + size);
            aces.add(a);
            at += b.getShort(at + 2) & 0xffff;
        }
        return new Acl(revision, aces);
    }

    void write(ByteBuffer out) {
        out.put((byte) revision).put((byte) 0).putShort((short) length()).putShort((short) aces.size()).putShort((short) 0);
        for (Ace a : aces) {
            a.write(out);
        }
    }
}
