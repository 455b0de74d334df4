package io.rdmagate.nfs.v4;

import static io.rdmagate.nfs.v4.Nfs4.*;

import io.rdmagate.oncrpc.xdr.XdrDecoder;
import io.rdmagate.oncrpc.xdr.XdrEncoder;
import io.rdmagate.oncrpc.xdr.XdrException;
import io.rdmagate.vfs.FileAttributes;
import io.rdmagate.vfs.FileType;
import io.rdmagate.vfs.FsStat;
import io.rdmagate.vfs.VfsException;

/**
 * fattr4 (RFC 8881 §5): the attributes this server reports, their bitmap4, and their encoding in
 * attribute-number order. Owners are numeric strings ("1000"), which the Linux client accepts
 * from an AUTH_SYS server (its idmapping is off for sec=sys by default); {@code change} is the
 * vfs's change id, which moves with every data or attribute change.
 */
public final class Fattr4 {
    private Fattr4() {
    }

    public static final int SUPPORTED_ATTRS = 0;
    public static final int TYPE = 1;
    public static final int FH_EXPIRE_TYPE = 2;
    public static final int CHANGE = 3;
    public static final int SIZE = 4;
    public static final int LINK_SUPPORT = 5;
    public static final int SYMLINK_SUPPORT = 6;
    public static final int NAMED_ATTR = 7;
    public static final int FSID = 8;
    public static final int UNIQUE_HANDLES = 9;
    public static final int LEASE_TIME = 10;
    public static final int RDATTR_ERROR = 11;
    public static final int ACL = 12;
    public static final int ACLSUPPORT = 13;
    public static final int CASE_INSENSITIVE = 16;
    public static final int CASE_PRESERVING = 17;
    public static final int CHOWN_RESTRICTED = 18;
    public static final int FILEHANDLE = 19;
    public static final int FILEID = 20;
    public static final int FILES_AVAIL = 21;
    public static final int FILES_FREE = 22;
    public static final int FILES_TOTAL = 23;
    public static final int HOMOGENEOUS = 26;
    public static final int MAXFILESIZE = 27;
    public static final int MAXLINK = 28;
    public static final int MAXNAME = 29;
    public static final int MAXREAD = 30;
    public static final int MAXWRITE = 31;
    public static final int MODE = 33;
    public static final int NO_TRUNC = 34;
    public static final int NUMLINKS = 35;
    public static final int OWNER = 36;
    public static final int OWNER_GROUP = 37;
    public static final int RAWDEV = 41;
    public static final int SPACE_AVAIL = 42;
    public static final int SPACE_FREE = 43;
    public static final int SPACE_TOTAL = 44;
    public static final int SPACE_USED = 45;
    public static final int TIME_ACCESS = 47;
    public static final int TIME_ACCESS_SET = 48;
    public static final int TIME_CREATE = 50;
    public static final int TIME_DELTA = 51;
    public static final int TIME_METADATA = 52;
    public static final int TIME_MODIFY = 53;
    public static final int TIME_MODIFY_SET = 54;
    public static final int MOUNTED_ON_FILEID = 55;
    public static final int SUPPATTR_EXCLCREAT = 75;
    // NFSv4.2 (RFC 7862 §12.2, RFC 8276 §8.2)
    public static final int CLONE_BLKSIZE = 77;
    public static final int CHANGE_ATTR_TYPE = 79;
    public static final int XATTR_SUPPORT = 82;
    /**
     * change_attr_type4 (RFC 7862 §12.2.3): undefined, as the change attribute is derived from ctime and
     * size and a client may not order two values of it, only compare them.
     */
    static final int NFS4_CHANGE_TYPE_IS_UNDEFINED = 4;

    /** Words of a bitmap4 a client may send (attributes up to 255). */
    public static final int MAX_BITMAP_WORDS = 8;

    /** NFSv4.0 (RFC 7530 §5) ends at mounted_on_fileid: suppattr_exclcreat is NFSv4.1's. */
    static final int[] SUPPORTED_40 = bitmap(SUPPORTED_ATTRS, TYPE, FH_EXPIRE_TYPE, CHANGE, SIZE, LINK_SUPPORT,
            SYMLINK_SUPPORT, NAMED_ATTR, FSID, UNIQUE_HANDLES, LEASE_TIME, RDATTR_ERROR, ACL, ACLSUPPORT, CASE_INSENSITIVE,
            CASE_PRESERVING, CHOWN_RESTRICTED, FILEHANDLE, FILEID, FILES_AVAIL, FILES_FREE, FILES_TOTAL, HOMOGENEOUS,
            MAXFILESIZE, MAXLINK, MAXNAME, MAXREAD, MAXWRITE, MODE, NO_TRUNC, NUMLINKS, OWNER, OWNER_GROUP, RAWDEV,
            SPACE_AVAIL, SPACE_FREE, SPACE_TOTAL, SPACE_USED, TIME_ACCESS, TIME_CREATE, TIME_DELTA, TIME_METADATA,
            TIME_MODIFY, TIME_MODIFY_SET, TIME_ACCESS_SET, MOUNTED_ON_FILEID);

    static final int[] SUPPORTED = or(SUPPORTED_40, bitmap(SUPPATTR_EXCLCREAT));

    /** NFSv4.2 adds clone_blksize, change_attr_type and xattr_support. */
    static final int[] SUPPORTED_42 = or(SUPPORTED, bitmap(CLONE_BLKSIZE, CHANGE_ATTR_TYPE, XATTR_SUPPORT));

    /** What SETATTR, CREATE and OPEN may set (§5.6 "writable" attributes this server stores). */
    static final int[] SETTABLE = bitmap(SIZE, ACL, MODE, OWNER, OWNER_GROUP, TIME_ACCESS_SET, TIME_MODIFY_SET);

    /** statvfs of an object's filesystem, asked only when a space or files attribute is wanted. */
    @FunctionalInterface
    public interface StatFs {
        FsStat get() throws VfsException;
    }

    /** Where the values of one object's attributes come from, for a COMPOUND of minor version {@code minor}. */
    public record Source(FileAttributes attributes, byte[] filehandle, long fsidMajor, long fsidMinor,
            long mountedOnFileId, boolean caseInsensitive, StatFs statFs, int minor) {
    }

    private static int[] or(int[] a, int[] b) {
        int[] r = java.util.Arrays.copyOf(a, Math.max(a.length, b.length));
        for (int i = 0; i < b.length; i++) {
            r[i] |= b[i];
        }
        return r;
    }

    /** The attributes a COMPOUND of {@code minor} may ask for. */
    public static int[] supportedAttrs(int minor) {
        return minor >= io.rdmagate.nfs.v4.Nfs4.MINOR_VERSION_2 ? SUPPORTED_42
                : minor == io.rdmagate.nfs.v4.Nfs4.MINOR_VERSION_0 ? SUPPORTED_40 : SUPPORTED;
    }

    public static int[] bitmap(int... attrs) {
        int words = 0;
        for (int a : attrs) {
            words = Math.max(words, a / 32 + 1);
        }
        int[] b = new int[words];
        for (int a : attrs) {
            b[a / 32] |= 1 << (a % 32);
        }
        return b;
    }

    public static boolean isSet(int[] bitmap, int attr) {
        return attr / 32 < bitmap.length && (bitmap[attr / 32] & (1 << (attr % 32))) != 0;
    }

    /** bitmap4: at most {@link #MAX_BITMAP_WORDS} words, else NFS4ERR_BADXDR. */
    public static int[] readBitmap(XdrDecoder in) throws XdrException {
        int n = in.readLength(MAX_BITMAP_WORDS);
        int[] b = new int[n];
        for (int i = 0; i < n; i++) {
            b[i] = in.readInt();
        }
        return b;
    }

    public static void writeBitmap(XdrEncoder out, int[] b) {
        int n = b.length;
        while (n > 0 && b[n - 1] == 0) {
            n--;
        }
        out.writeInt(n);
        for (int i = 0; i < n; i++) {
            out.writeInt(b[i]);
        }
    }

    /** The requested attributes this server supports and can report (the *_set attributes are write-only). */
    public static int[] supported(int[] requested, int minor) {
        int[] all = supportedAttrs(minor);
        int[] b = new int[Math.min(requested.length, all.length)];
        for (int i = 0; i < b.length; i++) {
            b[i] = requested[i] & all[i];
        }
        if (b.length > 1) {
            b[1] &= ~((1 << (TIME_ACCESS_SET - 32)) | (1 << (TIME_MODIFY_SET - 32)));
        }
        return b;
    }

    /**
     * Attributes a client asked to set: the vfs's form and the bitmap of what was asked. With
     * {@code modeFromAcl}, the mode is an ACL's rwx bits (0777): SETATTR keeps the file's setuid,
     * setgid and sticky bits beside them.
     */
    public record Settable(io.rdmagate.vfs.SetAttributes attributes, int[] bitmap, boolean modeFromAcl) {
        public Settable(io.rdmagate.vfs.SetAttributes attributes, int[] bitmap) {
            this(attributes, bitmap, false);
        }
    }

    /**
     * Reads a fattr4 of attributes to set (§5.6): NFS4ERR_ATTRNOTSUPP for an attribute this server
     * does not store, NFS4ERR_INVAL for one that cannot be set (type, fileid...), NFS4ERR_BADOWNER for
     * an owner that is neither a number nor a name {@code ids} knows, NFS4ERR_BADXDR when the values
     * do not fill the attribute list.
     */
    public static Settable readSettable(XdrDecoder in, IdMap ids) throws XdrException, Nfs4Exception {
        int[] b = readBitmap(in);
        byte[] values = in.readOpaque(1 << 16);
        XdrDecoder v = new XdrDecoder(io.netty.buffer.Unpooled.wrappedBuffer(values));
        io.rdmagate.vfs.SetAttributes s = io.rdmagate.vfs.SetAttributes.create();
        for (int attr = 0; attr < b.length * 32; attr++) {
            if (!isSet(b, attr)) {
                continue;
            }
            if (!isSet(SETTABLE, attr)) {
                throw new Nfs4Exception(isSet(SUPPORTED, attr) ? NFS4ERR_INVAL : NFS4ERR_ATTRNOTSUPP,
                        "attribute " + attr + " cannot be set");
            }
            switch (attr) {
                case SIZE -> {
                    long size = v.readHyper();
                    if (size < 0) {
                        throw new Nfs4Exception(NFS4ERR_FBIG, "size " + Long.toUnsignedString(size));
                    }
                    s.size(size);
                }
                case ACL -> {
                    if (isSet(b, MODE)) {
                        throw new Nfs4Exception(NFS4ERR_INVAL, "mode and acl in one SETATTR");
                    }
                    s.mode(Acl4.readMode(v));
                }
                case MODE -> s.mode(v.readInt() & 07777);
                case OWNER -> s.owner(ids.uid(v.readString(NFS4_OPAQUE_LIMIT)));
                case OWNER_GROUP -> s.group(ids.gid(v.readString(NFS4_OPAQUE_LIMIT)));
                case TIME_ACCESS_SET -> s.atime(settime(v));
                case TIME_MODIFY_SET -> s.mtime(settime(v));
                default -> throw new IllegalStateException("settable attribute " + attr + " not read");
            }
        }
        if (v.hasRemaining()) {
            throw new XdrException(v.remaining() + " bytes after the attribute values");
        }
        return new Settable(s, b, isSet(b, ACL));
    }

    /** settime4: SET_TO_SERVER_TIME4 (0) or SET_TO_CLIENT_TIME4 (1) and an nfstime4. */
    private static long settime(XdrDecoder v) throws XdrException, Nfs4Exception {
        int how = v.readInt();
        if (how == 0) {
            return io.rdmagate.vfs.SetAttributes.SERVER_TIME;
        }
        if (how != 1) {
            throw new XdrException("time_how4 " + how);
        }
        long seconds = v.readHyper();
        long nanos = Integer.toUnsignedLong(v.readInt());
        if (nanos >= 1_000_000_000L) {
            throw new Nfs4Exception(NFS4ERR_INVAL, "nseconds " + nanos);
        }
        try {
            return Math.addExact(Math.multiplyExact(seconds, 1_000_000_000L), nanos);
        } catch (ArithmeticException e) {
            throw new Nfs4Exception(NFS4ERR_INVAL, "time " + seconds + " s is out of range");
        }
    }

    /** fattr4 of the supported attributes among {@code requested}: their bitmap and their values in order. */
    public static void write(XdrEncoder out, int[] requested, Source s, Nfs4Server server) throws VfsException {
        int[] b = supported(requested, s.minor());
        writeBitmap(out, b);
        int lengthAt = out.position();
        out.writeInt(0);
        FileAttributes a = s.attributes();
        FsStat fs = null;
        for (int attr = 0; attr < b.length * 32; attr++) {
            if (!isSet(b, attr)) {
                continue;
            }
            switch (attr) {
                case SUPPORTED_ATTRS -> writeBitmap(out, supportedAttrs(s.minor()));
                case TYPE -> out.writeInt(ftype(a.type()));
                case FH_EXPIRE_TYPE -> out.writeInt(0); // FH4_PERSISTENT
                case CHANGE -> out.writeHyper(a.changeId());
                case SIZE -> out.writeHyper(a.size());
                case LINK_SUPPORT, SYMLINK_SUPPORT, UNIQUE_HANDLES, CASE_PRESERVING, CHOWN_RESTRICTED, HOMOGENEOUS,
                        NO_TRUNC -> out.writeBool(true);
                case NAMED_ATTR -> out.writeBool(false);
                case FSID -> {
                    out.writeHyper(s.fsidMajor());
                    out.writeHyper(s.fsidMinor());
                }
                case LEASE_TIME -> out.writeInt((int) server.options().lease().toSeconds());
                case RDATTR_ERROR -> out.writeInt(NFS4_OK);
                case ACL -> Acl4.write(out, a.mode(), a.type());
                case ACLSUPPORT -> out.writeInt(Acl4.ACL4_SUPPORT_ALLOW_ACL | Acl4.ACL4_SUPPORT_DENY_ACL);
                case CASE_INSENSITIVE -> out.writeBool(s.caseInsensitive());
                case FILEHANDLE -> out.writeOpaque(s.filehandle());
                case FILEID -> out.writeHyper(a.fileId());
                case FILES_AVAIL -> out.writeHyper((fs = stat(fs, s)).availableFiles());
                case FILES_FREE -> out.writeHyper((fs = stat(fs, s)).freeFiles());
                case FILES_TOTAL -> out.writeHyper((fs = stat(fs, s)).totalFiles());
                case MAXFILESIZE -> out.writeHyper(Long.MAX_VALUE);
                case MAXLINK -> out.writeInt(65000);
                case MAXNAME -> out.writeInt(255);
                case MAXREAD, MAXWRITE -> out.writeHyper(server.maxIoSize());
                case MODE -> out.writeInt(a.mode() & 07777);
                case NUMLINKS -> out.writeInt((int) Math.min(a.nlink(), 0xffffffffL));
                case OWNER -> out.writeString(server.idmap().owner(a.uid()));
                case OWNER_GROUP -> out.writeString(server.idmap().ownerGroup(a.gid()));
                case RAWDEV -> {
                    long rdev = a.rdev();
                    out.writeInt((int) (((rdev >>> 8) & 0xfff) | ((rdev >>> 32) & ~0xfffL)));
                    out.writeInt((int) ((rdev & 0xff) | ((rdev >>> 12) & ~0xffL)));
                }
                case SPACE_AVAIL -> out.writeHyper((fs = stat(fs, s)).availableBytes());
                case SPACE_FREE -> out.writeHyper((fs = stat(fs, s)).freeBytes());
                case SPACE_TOTAL -> out.writeHyper((fs = stat(fs, s)).totalBytes());
                case SPACE_USED -> out.writeHyper(a.spaceUsed());
                case TIME_ACCESS -> time(out, a.atimeNanos());
                case TIME_CREATE -> time(out, a.birthTimeNanos());
                case TIME_DELTA -> time(out, 1);
                case TIME_METADATA -> time(out, a.ctimeNanos());
                case TIME_MODIFY -> time(out, a.mtimeNanos());
                case MOUNTED_ON_FILEID -> out.writeHyper(s.mountedOnFileId());
                case SUPPATTR_EXCLCREAT -> writeBitmap(out, SETTABLE);
                case CLONE_BLKSIZE -> out.writeInt((fs = stat(fs, s)).blockSize()); // FICLONERANGE's alignment
                case CHANGE_ATTR_TYPE -> out.writeInt(NFS4_CHANGE_TYPE_IS_UNDEFINED);
                case XATTR_SUPPORT -> out.writeBool(true); // user.* extended attributes (RFC 8276)
                case TIME_ACCESS_SET, TIME_MODIFY_SET -> throw new IllegalStateException("write-only attribute " + attr);
                default -> throw new IllegalStateException("attribute " + attr + " marked supported but not written");
            }
        }
        out.patchInt(lengthAt, out.position() - lengthAt - 4);
    }

    /** The attrlist4 bytes of {@code requested} (all supported) of {@code s}, as GETATTR would send them. */
    public static byte[] values(int[] requested, Source s, Nfs4Server server) throws VfsException {
        XdrEncoder e = new XdrEncoder(io.netty.buffer.UnpooledByteBufAllocator.DEFAULT);
        try {
            write(e, requested, s, server);
        } catch (RuntimeException | VfsException ex) {
            e.discard();
            throw ex;
        }
        io.rdmagate.oncrpc.xdr.XdrMessage m = e.finish();
        try {
            byte[] all = m.toBytes();
            java.nio.ByteBuffer b = java.nio.ByteBuffer.wrap(all);
            int at = 4 + 4 * b.getInt(0); // after the bitmap
            return java.util.Arrays.copyOfRange(all, at + 4, at + 4 + b.getInt(at));
        } finally {
            m.release();
        }
    }

    private static FsStat stat(FsStat known, Source s) throws VfsException {
        return known != null ? known : s.statFs().get();
    }

    /** nfstime4: seconds (signed 64) and nanoseconds. */
    static void time(XdrEncoder out, long nanos) {
        out.writeHyper(Math.floorDiv(nanos, 1_000_000_000L));
        out.writeInt((int) Math.floorMod(nanos, 1_000_000_000L));
    }

    public static int ftype(FileType t) {
        return switch (t) {
            case REGULAR -> NF4REG;
            case DIRECTORY -> NF4DIR;
            case SYMLINK -> NF4LNK;
            case BLOCK_DEVICE -> NF4BLK;
            case CHAR_DEVICE -> NF4CHR;
            case FIFO -> NF4FIFO;
            case SOCKET -> NF4SOCK;
        };
    }
}
