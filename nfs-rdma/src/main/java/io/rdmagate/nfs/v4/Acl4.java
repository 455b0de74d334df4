package io.rdmagate.nfs.v4;

import static io.rdmagate.nfs.v4.Nfs4.*;

import io.rdmagate.oncrpc.xdr.XdrDecoder;
import io.rdmagate.oncrpc.xdr.XdrEncoder;
import io.rdmagate.oncrpc.xdr.XdrException;
import io.rdmagate.vfs.FileType;

/**
 * The {@code acl} attribute (RFC 8881 §6.2.1) as the POSIX mode bits say it: ACEs for OWNER@, GROUP@
 * and EVERYONE@ that grant exactly what the mode grants each class, in the order RFC 8881 §6.3.2's
 * evaluation needs (a class's ALLOW, then a DENY of what a later, wider class would grant it).
 * Setting an ACL of those three principals sets the mode it describes; ACEs of other principals,
 * audit and alarm ACEs, and inheritance flags have no mode bits and are NFS4ERR_INVAL.
 */
public final class Acl4 {
    public static final int ACL4_SUPPORT_ALLOW_ACL = 0x1;
    public static final int ACL4_SUPPORT_DENY_ACL = 0x2;
    static final int ALLOWED = 0;
    static final int DENIED = 1;
    static final int IDENTIFIER_GROUP = 0x40;
    static final int READ_DATA = 0x1;
    static final int WRITE_DATA = 0x2;
    static final int APPEND_DATA = 0x4;
    static final int EXECUTE = 0x20;
    static final int DELETE_CHILD = 0x40;
    static final int READ_ATTRIBUTES = 0x80;
    static final int WRITE_ATTRIBUTES = 0x100;
    static final int READ_ACL = 0x20000;
    static final int WRITE_ACL = 0x40000;
    static final int WRITE_OWNER = 0x80000;
    static final int SYNCHRONIZE = 0x100000;
    /** What every class may do whatever the mode: see attributes and the ACL. */
    private static final int ALWAYS = READ_ATTRIBUTES | READ_ACL | SYNCHRONIZE;
    /** What the owner may do besides: change attributes, the ACL (chmod) and the owner (to itself). */
    private static final int OWNER_ALWAYS = WRITE_ATTRIBUTES | WRITE_ACL | WRITE_OWNER;
    private static final String OWNER = "OWNER@";
    private static final String GROUP = "GROUP@";
    private static final String EVERYONE = "EVERYONE@";
    /** The ACL flags that make an ACE inherited or not apply to the object itself. */
    private static final int INHERITANCE = 0x1 | 0x2 | 0x4 | 0x8;
    private static final int NOT_SIMPLE = 0x10 | 0x20; // SUCCESSFUL_ACCESS, FAILED_ACCESS (audit, alarm)

    private Acl4() {
    }

    /** fattr4_acl of {@code mode} for an object of {@code type}. */
    static void write(XdrEncoder out, int mode, FileType type) {
        boolean dir = type == FileType.DIRECTORY;
        int owner = bits((mode >> 6) & 7, dir);
        int group = bits((mode >> 3) & 7, dir);
        int other = bits(mode & 7, dir);
        int countAt = out.position();
        out.writeInt(0);
        int n = 0;
        n += ace(out, ALLOWED, 0, owner | ALWAYS | OWNER_ALWAYS, OWNER);
        n += ace(out, DENIED, 0, (group | other) & ~owner, OWNER);
        n += ace(out, ALLOWED, IDENTIFIER_GROUP, group | ALWAYS, GROUP);
        n += ace(out, DENIED, IDENTIFIER_GROUP, other & ~group, GROUP);
        n += ace(out, ALLOWED, 0, other | ALWAYS, EVERYONE);
        out.patchInt(countAt, n);
    }

    /** The access mask an rwx triple grants (RFC 8881 §6.3.2, as knfsd maps it). */
    private static int bits(int rwx, boolean dir) {
        int m = 0;
        if ((rwx & 4) != 0) {
            m |= READ_DATA;
        }
        if ((rwx & 2) != 0) {
            m |= WRITE_DATA | APPEND_DATA | (dir ? DELETE_CHILD : 0);
        }
        if ((rwx & 1) != 0) {
            m |= EXECUTE;
        }
        return m;
    }

    private static int ace(XdrEncoder out, int type, int flags, int mask, String who) {
        if (mask == 0) {
            return 0;
        }
        out.writeInt(type);
        out.writeInt(flags);
        out.writeInt(mask);
        out.writeString(who);
        return 1;
    }

    /**
     * The rwx bits (0777) an ACL of OWNER@, GROUP@ and EVERYONE@ grants each class: each of read,
     * write and execute is decided by the first ACE of the class (or EVERYONE@) whose mask holds it.
     */
    static int readMode(XdrDecoder v) throws XdrException, Nfs4Exception {
        int n = v.readLength(1024);
        int[] type = new int[n];
        int[] mask = new int[n];
        String[] who = new String[n];
        for (int i = 0; i < n; i++) {
            type[i] = v.readInt();
            int flags = v.readInt();
            mask[i] = v.readInt();
            who[i] = v.readString(NFS4_OPAQUE_LIMIT);
            if (type[i] != ALLOWED && type[i] != DENIED || (flags & (INHERITANCE | NOT_SIMPLE)) != 0) {
                throw new Nfs4Exception(NFS4ERR_INVAL, "an ACE of type " + type[i] + ", flags 0x"
                        + Integer.toHexString(flags) + " has no mode bits");
            }
            if (!who[i].equals(OWNER) && !who[i].equals(GROUP) && !who[i].equals(EVERYONE)) {
                throw new Nfs4Exception(NFS4ERR_INVAL, "an ACE for " + who[i] + ": only OWNER@, GROUP@ and EVERYONE@"
                        + " map onto the mode");
            }
        }
        int mode = 0;
        String[] classes = {OWNER, GROUP, EVERYONE};
        for (int c = 0; c < 3; c++) {
            int rwx = 0;
            int[] perm = {READ_DATA, WRITE_DATA, EXECUTE};
            for (int p = 0; p < 3; p++) {
                for (int i = 0; i < n; i++) {
                    boolean applies = who[i].equals(EVERYONE) || who[i].equals(classes[c]);
                    if (applies && (mask[i] & perm[p]) != 0) {
                        if (type[i] == ALLOWED) {
                            rwx |= 4 >> p;
                        }
                        break;
                    }
                }
            }
            mode |= rwx << (6 - 3 * c);
        }
        return mode;
    }
}
