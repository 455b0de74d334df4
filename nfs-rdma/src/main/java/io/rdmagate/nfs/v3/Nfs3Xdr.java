package io.rdmagate.nfs.v3;

import io.rdmagate.oncrpc.xdr.XdrDecoder;
import io.rdmagate.oncrpc.xdr.XdrEncoder;
import io.rdmagate.oncrpc.xdr.XdrException;
import io.rdmagate.vfs.FileAttributes;
import io.rdmagate.vfs.FileType;
import io.rdmagate.vfs.SetAttributes;

/**
 * The RFC 1813 §2.5 data types every procedure shares.
 *
 * <p>Decoding accepts: nfs_fh3 of 0..64 bytes (a wrong but well-framed handle is the procedure's
 * NFS3ERR_BADHANDLE, not garbage), filename3 up to {@link Nfs3#MAX_WIRE_NAME} bytes (longer ones
 * that still fit are NFS3ERR_NAMETOOLONG from the vfs), nfspath3 up to {@link Nfs3#MAX_PATH}, sattr3
 * with mode bits beyond 07777 ignored (as knfsd masks them).
 * <br>Refuses with {@link XdrException} (GARBAGE_ARGS): a handle over 64 bytes, a longer name or
 * path, a time_how outside 0..2, a boolean other than 0/1, anything truncated.
 */
public final class Nfs3Xdr {
    private Nfs3Xdr() {
    }

    /** A file's pre-operation attributes (§2.5 wcc_attr), or null when unknown. */
    public record WccAttr(long size, long mtimeNanos, long ctimeNanos) {
        public static WccAttr of(FileAttributes a) {
            return a == null ? null : new WccAttr(a.size(), a.mtimeNanos(), a.ctimeNanos());
        }
    }

    // ---- decoding

    /** §2.5 nfs_fh3: opaque data<NFS3_FHSIZE>. */
    public static byte[] readFh(XdrDecoder in) throws XdrException {
        return in.readOpaque(Nfs3.FHSIZE);
    }

    /** §2.5 filename3. */
    public static String readName(XdrDecoder in) throws XdrException {
        return in.readString(Nfs3.MAX_WIRE_NAME);
    }

    /** §2.5 nfspath3. */
    public static String readPath(XdrDecoder in) throws XdrException {
        return in.readString(Nfs3.MAX_PATH);
    }

    /** §2.5 nfstime3 as nanoseconds since the epoch (seconds are unsigned). */
    public static long readTime(XdrDecoder in) throws XdrException {
        long seconds = in.readUnsignedInt();
        long nanos = in.readUnsignedInt();
        if (nanos >= 1_000_000_000L) {
            throw new XdrException("nfstime3 nseconds " + nanos + " is not below 10^9");
        }
        return seconds * 1_000_000_000L + nanos;
    }

    /**
     * §2.5 sattr3. A size is returned as given; a size beyond 2^63-1 arrives negative and the
     * procedure refuses it with NFS3ERR_FBIG.
     */
    public static SetAttributes readSattr(XdrDecoder in) throws XdrException {
        SetAttributes s = SetAttributes.create();
        if (in.readBool()) {
            s.mode(in.readInt() & 07777);
        }
        if (in.readBool()) {
            s.owner(in.readInt());
        }
        if (in.readBool()) {
            s.group(in.readInt());
        }
        if (in.readBool()) {
            s.size(in.readHyper());
        }
        Long atime = readTimeHow(in);
        if (atime != null) {
            s.atime(atime);
        }
        Long mtime = readTimeHow(in);
        if (mtime != null) {
            s.mtime(mtime);
        }
        return s;
    }

    private static Long readTimeHow(XdrDecoder in) throws XdrException {
        int how = in.readEnum();
        return switch (how) {
            case Nfs3.DONT_CHANGE -> null;
            case Nfs3.SET_TO_SERVER_TIME -> SetAttributes.SERVER_TIME;
            case Nfs3.SET_TO_CLIENT_TIME -> readTime(in);
            default -> throw new XdrException("time_how " + how);
        };
    }

    /** Whether a decoded sattr3 asks for a size that no file can have. */
    public static void checkSize(SetAttributes s) throws Nfs3Exception {
        if (s.size() != null && s.size() < 0) {
            throw new Nfs3Exception(Nfs3Status.NFS3ERR_FBIG, "size beyond 2^63-1");
        }
    }

    // ---- encoding

    public static int ftype(FileType t) {
        return switch (t) {
            case REGULAR -> Nfs3.NF3REG;
            case DIRECTORY -> Nfs3.NF3DIR;
            case BLOCK_DEVICE -> Nfs3.NF3BLK;
            case CHAR_DEVICE -> Nfs3.NF3CHR;
            case SYMLINK -> Nfs3.NF3LNK;
            case SOCKET -> Nfs3.NF3SOCK;
            case FIFO -> Nfs3.NF3FIFO;
        };
    }

    /** §2.5 nfstime3. */
    public static void time(XdrEncoder out, long nanos) {
        out.writeInt((int) Math.floorDiv(nanos, 1_000_000_000L));
        out.writeInt((int) Math.floorMod(nanos, 1_000_000_000L));
    }

    /** §2.5 fattr3 (84 bytes). fsid is the export's volume id, so exports are distinct filesystems. */
    public static void fattr(XdrEncoder out, FileAttributes a) {
        out.writeInt(ftype(a.type()));
        out.writeInt(a.mode() & 07777);
        out.writeInt((int) Math.min(a.nlink(), 0xffffffffL));
        out.writeInt(a.uid());
        out.writeInt(a.gid());
        out.writeHyper(a.size());
        out.writeHyper(a.spaceUsed());
        long rdev = a.rdev();
        out.writeInt((int) (((rdev >>> 8) & 0xfff) | ((rdev >>> 32) & ~0xfffL))); // specdata1: major
        out.writeInt((int) ((rdev & 0xff) | ((rdev >>> 12) & ~0xffL))); // specdata2: minor
        out.writeHyper(a.volumeId() & 0xffffffffL);
        out.writeHyper(a.fileId());
        time(out, a.atimeNanos());
        time(out, a.mtimeNanos());
        time(out, a.ctimeNanos());
    }

    /** §2.5 post_op_attr. */
    public static void postOpAttr(XdrEncoder out, FileAttributes a) {
        out.writeBool(a != null);
        if (a != null) {
            fattr(out, a);
        }
    }

    /** §2.5 pre_op_attr. */
    public static void preOpAttr(XdrEncoder out, WccAttr w) {
        out.writeBool(w != null);
        if (w != null) {
            out.writeHyper(w.size());
            time(out, w.mtimeNanos());
            time(out, w.ctimeNanos());
        }
    }

    /** §2.5 wcc_data. */
    public static void wcc(XdrEncoder out, WccAttr before, FileAttributes after) {
        preOpAttr(out, before);
        postOpAttr(out, after);
    }

    /** §2.5 post_op_fh3. */
    public static void postOpFh(XdrEncoder out, byte[] wireHandle) {
        out.writeBool(wireHandle != null);
        if (wireHandle != null) {
            out.writeOpaque(wireHandle);
        }
    }

    /** A verifier (cookieverf3, writeverf3) as its 8 bytes. */
    public static void verifier(XdrEncoder out, long v) {
        out.writeHyper(v);
    }
}
