package io.rdmagate.smb.server.command;

import io.rdmagate.smb.mserref.NtStatus;
import io.rdmagate.smb.server.Access;
import io.rdmagate.smb.server.Ctx;
import io.rdmagate.smb.server.Open;
import io.rdmagate.smb.server.SmbException;
import io.rdmagate.vfs.DosAttributes;
import io.rdmagate.vfs.FileAttributes;
import io.rdmagate.vfs.SetAttributes;
import io.rdmagate.vfs.VfsException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * The sparse file controls (MS-FSCC 2.3.64, 2.3.67, 2.3.51; MS-FSA 2.1.5.10.35, 2.1.5.10.38,
 * 2.1.5.10.23) on the vfs calls NFSv4.2's SEEK and DEALLOCATE use, so both protocols see one file:
 * a range SMB zeroes is a hole NFS finds, and one NFS punches is absent from SMB's allocated ranges.
 */
final class SparseFiles {
    static final int FSCTL_SET_SPARSE = 0x000900C4;
    static final int FSCTL_SET_ZERO_DATA = 0x000980C8;
    static final int FSCTL_QUERY_ALLOCATED_RANGES = 0x000940CF;
    /** FILE_ALLOCATED_RANGE_BUFFER and FILE_ZERO_DATA_INFORMATION: two 64-bit fields. */
    private static final int RANGE = 16;

    private SparseFiles() {
    }

    /**
     * FSCTL_SET_SPARSE: FILE_SET_SPARSE_BUFFER's SetSparse (TRUE when the input is empty) sets or
     * clears FILE_ATTRIBUTE_SPARSE_FILE. Any file of the backend can hold holes; the bit says the
     * client wants them (FSCTL_SET_ZERO_DATA then frees storage instead of writing zeroes).
     */
    static byte[] setSparse(Ctx c, Open o, ByteBuffer in) throws SmbException, VfsException {
        regular(o);
        if (!o.can(Access.FILE_WRITE_DATA | Access.FILE_WRITE_ATTRIBUTES | Access.FILE_APPEND_DATA)) {
            throw new SmbException(NtStatus.ACCESS_DENIED, "FSCTL_SET_SPARSE needs write or write-attributes access");
        }
        boolean sparse = in.limit() == 0 || in.get(0) != 0;
        FileAttributes a = o.vfs().getattr(o.handle());
        int stored = a.dosAttributes() & DosAttributes.STORED & ~DosAttributes.SPARSE_FILE;
        o.vfs().setattr(c.session.caller(), o.handle(), SetAttributes.create()
                .dosAttributes(stored | (sparse ? DosAttributes.SPARSE_FILE : 0) | (a.dosAttributes() & DosAttributes.READONLY)));
        return new byte[0];
    }

    /**
     * FSCTL_SET_ZERO_DATA: FileOffset up to BeyondFinalZero reads as zeroes afterwards; the part past
     * the end of the file is left alone. A sparse file's range is freed (a hole); a file that is not
     * sparse keeps its storage (punched, then reserved again).
     */
    static byte[] setZeroData(Ctx c, Open o, ByteBuffer in) throws SmbException, VfsException {
        regular(o);
        if (in.limit() < RANGE) {
            throw new SmbException(NtStatus.INVALID_PARAMETER, "FILE_ZERO_DATA_INFORMATION of " + in.limit() + " bytes");
        }
        ByteBuffer b = in.duplicate().order(ByteOrder.LITTLE_ENDIAN);
        long from = b.getLong(0);
        long beyond = b.getLong(8);
        if (from < 0 || beyond < 0 || from > beyond) {
            throw new SmbException(NtStatus.INVALID_PARAMETER, "zero data from " + from + " to " + beyond);
        }
        if (!o.can(Access.FILE_WRITE_DATA)) {
            throw new SmbException(NtStatus.ACCESS_DENIED, "FSCTL_SET_ZERO_DATA needs write access");
        }
        FileAttributes a = o.vfs().getattr(o.handle());
        long end = Math.min(beyond, a.size());
        if (end <= from) {
            return new byte[0];
        }
        if (o.vfs().locks().ioConflicts(o.handle().fileId(), o.lockOwner(), from, end - from, true)) {
            throw new SmbException(NtStatus.FILE_LOCK_CONFLICT, "range is locked");
        }
        c.server.oplocks().breakLevelII(o); // as a write: Level II oplocks break to none
        o.vfs().deallocate(c.session.caller(), o.handle(), from, end - from);
        if ((a.dosAttributes() & DosAttributes.SPARSE_FILE) == 0) {
            o.vfs().allocate(c.session.caller(), o.handle(), from, end - from);
        }
        return new byte[0];
    }

    /**
     * FSCTL_QUERY_ALLOCATED_RANGES: the ranges holding data within FileOffset..+Length and the end of
     * the file, found with SEEK_DATA/SEEK_HOLE; a file that is not sparse is allocated throughout.
     * As many as fit MaxOutputResponse, and STATUS_BUFFER_OVERFLOW when more follow; none fits:
     * STATUS_BUFFER_TOO_SMALL.
     */
    static byte[] queryAllocatedRanges(Ctx c, Open o, ByteBuffer in, int maxOutput) throws SmbException, VfsException {
        regular(o);
        if (in.limit() < RANGE) {
            throw new SmbException(NtStatus.INVALID_PARAMETER, "FILE_ALLOCATED_RANGE_BUFFER of " + in.limit() + " bytes");
        }
        ByteBuffer b = in.duplicate().order(ByteOrder.LITTLE_ENDIAN);
        long from = b.getLong(0);
        long length = b.getLong(8);
        if (from < 0 || length < 0 || from + length < 0) {
            throw new SmbException(NtStatus.INVALID_PARAMETER, "range " + from + "+" + length);
        }
        if (!o.can(Access.FILE_READ_DATA)) {
            throw new SmbException(NtStatus.ACCESS_DENIED, "FSCTL_QUERY_ALLOCATED_RANGES needs read access");
        }
        FileAttributes a = o.vfs().getattr(o.handle());
        long end = Math.min(from + length, a.size());
        int room = (int) Math.min(Integer.toUnsignedLong(maxOutput) / RANGE, 4096);
        ByteBuffer out = ByteBuffer.allocate(RANGE * room).order(ByteOrder.LITTLE_ENDIAN);
        boolean more = false;
        boolean sparse = (a.dosAttributes() & DosAttributes.SPARSE_FILE) != 0;
        long pos = from;
        while (pos < end) {
            long data = sparse ? o.vfs().seek(c.session.caller(), o.handle(), pos, true) : pos;
            if (data < 0 || data >= end) {
                break;
            }
            long hole = sparse ? o.vfs().seek(c.session.caller(), o.handle(), data, false) : end;
            long stop = hole < 0 ? end : Math.min(hole, end);
            if (!out.hasRemaining()) {
                more = true;
                break;
            }
            out.putLong(data).putLong(stop - data);
            pos = stop;
        }
        if (more && out.position() == 0) {
            throw new SmbException(NtStatus.BUFFER_TOO_SMALL, "MaxOutputResponse " + maxOutput + " holds no range");
        }
        if (more) {
            c.reply.status(NtStatus.BUFFER_OVERFLOW);
        }
        byte[] r = new byte[out.position()];
        out.flip().get(r);
        return r;
    }

    /** These controls act on files: a directory is STATUS_INVALID_PARAMETER (MS-FSA 2.1.5.10). */
    static void regular(Open o) throws SmbException {
        if (o.directory() || o.pipe() != null) {
            throw new SmbException(NtStatus.INVALID_PARAMETER, "not a data file");
        }
    }
}
