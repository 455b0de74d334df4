package io.rdmagate.smb.server.command;

import io.rdmagate.smb.mserref.NtStatus;
import io.rdmagate.smb.mssmb2.FileId;
import io.rdmagate.smb.server.Access;
import io.rdmagate.smb.server.Ctx;
import io.rdmagate.smb.server.Open;
import io.rdmagate.smb.server.SmbException;
import io.rdmagate.vfs.Stability;
import io.rdmagate.vfs.VfsException;
import io.rdmagate.vfs.memory.IoMemory;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.security.SecureRandom;

/**
 * Server-side copy (MS-SMB2 3.3.5.15.5, 3.3.5.15.6; MS-FSCC 2.3.20, 2.3.8): a client asks for a
 * source file's resume key, then has chunks of it copied into a target it holds open; and block
 * cloning (FSCTL_DUPLICATE_EXTENTS_TO_FILE). The bytes never come to the gateway: each chunk is the
 * vfs's {@code copy} ({@code copy_file_range}, as NFSv4.2 COPY), a duplicate its {@code clone}.
 *
 * <p>Where the bytes travel: from the source file's extents to the target's inside the backend.
 * What a client sees of the limits is Windows': 256 chunks, 1 MiB per chunk, 16 MiB per request;
 * a request over them is STATUS_INVALID_PARAMETER carrying the limits (3.3.5.15.6).
 */
final class ServerSideCopy {
    static final int FSCTL_SRV_COPYCHUNK = 0x001440F2;
    static final int FSCTL_SRV_COPYCHUNK_WRITE = 0x001480F2;
    static final int FSCTL_DUPLICATE_EXTENTS_TO_FILE = 0x00098344;
    static final int MAX_CHUNKS = 256;
    static final int MAX_CHUNK_SIZE = 1 << 20;
    static final int MAX_DATA_SIZE = 16 << 20;
    private static final int KEY = 24;
    private static final int CHUNK = 24;
    /** Makes a resume key unguessable: the open's FileId alone would name any open of the server. */
    private static final long SECRET = new SecureRandom().nextLong();

    private ServerSideCopy() {
    }

    /** SRV_REQUEST_RESUME_KEY: ResumeKey (the open's FileId and a secret), ContextLength 0, 4 reserved bytes. */
    static byte[] resumeKey(Open o) throws SmbException {
        SparseFiles.regular(o);
        ByteBuffer b = ByteBuffer.allocate(KEY + 8).order(ByteOrder.LITTLE_ENDIAN);
        FileId id = o.fileId();
        b.putLong(id.persistent()).putLong(id.volatileId()).putLong(id.volatileId() ^ SECRET);
        return b.array();
    }

    /**
     * SRV_COPYCHUNK_COPY into {@code target}: the source is the open of this session whose resume
     * key is given (else STATUS_OBJECT_NAME_NOT_FOUND); it needs read or execute access, the target write access
     * (and read access for FSCTL_SRV_COPYCHUNK). Chunks are copied in order; a chunk reaching past the
     * source's end is STATUS_INVALID_VIEW_SIZE after those before it. Answers SRV_COPYCHUNK_RESPONSE.
     */
    static byte[] copyChunk(Ctx c, Open target, ByteBuffer in, int ctlCode, int maxOutput) throws SmbException, VfsException {
        SparseFiles.regular(target);
        if (in.limit() < KEY + 8 || Integer.toUnsignedLong(maxOutput) < 12) {
            throw new SmbException(NtStatus.INVALID_PARAMETER, "SRV_COPYCHUNK_COPY of " + in.limit()
                    + " bytes, MaxOutputResponse " + maxOutput);
        }
        ByteBuffer b = in.duplicate().order(ByteOrder.LITTLE_ENDIAN);
        long count = Integer.toUnsignedLong(b.getInt(KEY));
        if (in.limit() < KEY + 8 + count * CHUNK) {
            throw new SmbException(NtStatus.INVALID_PARAMETER, count + " chunks in " + in.limit() + " bytes");
        }
        long total = 0;
        boolean overLimits = count > MAX_CHUNKS;
        for (int i = 0; i < count && !overLimits; i++) {
            long length = Integer.toUnsignedLong(b.getInt(KEY + 8 + i * CHUNK + 16));
            total += length;
            overLimits = length == 0 || length > MAX_CHUNK_SIZE || total > MAX_DATA_SIZE;
        }
        if (overLimits) {
            c.reply.status(NtStatus.INVALID_PARAMETER);
            return response(MAX_CHUNKS, MAX_CHUNK_SIZE, MAX_DATA_SIZE);
        }
        Open source = source(c, b);
        if (!source.can(Access.FILE_READ_DATA | Access.FILE_EXECUTE)) {
            throw new SmbException(NtStatus.ACCESS_DENIED, "the source open lacks read and execute access");
        }
        if (!target.can(Access.FILE_WRITE_DATA)
                || (ctlCode == FSCTL_SRV_COPYCHUNK && !target.can(Access.FILE_READ_DATA))) {
            throw new SmbException(NtStatus.ACCESS_DENIED, "the target open lacks "
                    + (ctlCode == FSCTL_SRV_COPYCHUNK ? "read and write" : "write") + " access");
        }
        if (source.vfs() != target.vfs()) {
            throw new SmbException(NtStatus.NOT_SUPPORTED, "source and target are on two shares' volumes");
        }
        c.server.oplocks().breakLevelII(target); // as a write
        int written = 0;
        long bytes = 0;
        for (int i = 0; i < count; i++) {
            int at = KEY + 8 + i * CHUNK;
            long from = b.getLong(at);
            long to = b.getLong(at + 8);
            long length = Integer.toUnsignedLong(b.getInt(at + 16));
            if (from < 0 || to < 0 || to + length < 0) {
                throw new SmbException(NtStatus.INVALID_PARAMETER, "chunk " + i + " at " + from + " to " + to);
            }
            if (from + length > source.vfs().getattr(source.handle()).size()) {
                c.reply.status(NtStatus.INVALID_VIEW_SIZE); // chunks before it stay copied, and are counted
                return response(written, 0, bytes);
            }
            if (source.vfs().locks().ioConflicts(source.handle().fileId(), source.lockOwner(), from, length, false)
                    || target.vfs().locks().ioConflicts(target.handle().fileId(), target.lockOwner(), to, length, true)) {
                c.reply.status(NtStatus.FILE_LOCK_CONFLICT);
                return response(written, 0, bytes);
            }
            long n = source.handle().equals(target.handle()) && from < to + length && to < from + length
                    ? throughMemory(c, target, from, to, length)
                    : target.vfs().copy(c.session.caller(), source.handle(), from, target.handle(), to, length);
            bytes += n;
            c.server.serverSideCopyBytes().add(n);
            if (n < length) {
                return response(written, (int) n, bytes);
            }
            written++;
        }
        return response(written, 0, bytes);
    }

    /**
     * DUPLICATE_EXTENTS_DATA: the target's range shares the source open's storage (FICLONERANGE);
     * STATUS_NOT_SUPPORTED where the backing filesystem cannot. ByteCount 0 changes nothing.
     */
    static byte[] duplicateExtents(Ctx c, Open target, ByteBuffer in) throws SmbException, VfsException {
        SparseFiles.regular(target);
        if (in.limit() < 40) {
            throw new SmbException(NtStatus.INVALID_PARAMETER, "DUPLICATE_EXTENTS_DATA of " + in.limit() + " bytes");
        }
        ByteBuffer b = in.duplicate().order(ByteOrder.LITTLE_ENDIAN);
        Open source = c.open(FileId.read(b, 0));
        SparseFiles.regular(source);
        long from = b.getLong(16);
        long to = b.getLong(24);
        long length = b.getLong(32);
        if (from < 0 || to < 0 || length < 0 || from + length < 0 || to + length < 0) {
            throw new SmbException(NtStatus.INVALID_PARAMETER, "duplicate of " + length + " bytes from " + from);
        }
        if (!source.can(Access.FILE_READ_DATA) || !target.can(Access.FILE_WRITE_DATA)) {
            throw new SmbException(NtStatus.ACCESS_DENIED, "a duplicate reads the source and writes the target");
        }
        if (source.vfs() != target.vfs()) {
            throw new SmbException(NtStatus.NOT_SUPPORTED, "source and target are on two shares' volumes");
        }
        if (length == 0) {
            return new byte[0];
        }
        if (from + length > source.vfs().getattr(source.handle()).size()) {
            throw new SmbException(NtStatus.INVALID_PARAMETER, "the range ends past the source's end");
        }
        c.server.oplocks().breakLevelII(target);
        target.vfs().clone(c.session.caller(), source.handle(), from, target.handle(), to, length);
        return new byte[0];
    }

    /**
     * A chunk whose source and target overlap in one file, which copy_file_range refuses: read into
     * pool memory of the connection first, then written, as memmove would (at most 1 MiB).
     */
    private static long throughMemory(Ctx c, Open o, long from, long to, long length) throws VfsException {
        IoMemory m = o.vfs().read(c.session.caller(), o.handle(), from, (int) length, c.conn.memory());
        try {
            return m.length() == 0 ? 0
                    : o.vfs().write(c.session.caller(), o.handle(), to, m, Stability.UNSTABLE).count();
        } finally {
            m.release();
        }
    }

    /** The open a resume key names, of this session; STATUS_OBJECT_NAME_NOT_FOUND when none. */
    private static Open source(Ctx c, ByteBuffer b) throws SmbException {
        FileId id = new FileId(b.getLong(0), b.getLong(8));
        Open o = c.server.opens().get(id);
        if (o == null || o.session() != c.session || b.getLong(16) != (id.volatileId() ^ SECRET)) {
            throw new SmbException(NtStatus.OBJECT_NAME_NOT_FOUND, "no open has this resume key");
        }
        SparseFiles.regular(o);
        return o;
    }

    /** SRV_COPYCHUNK_RESPONSE (MS-SMB2 2.2.32.1). */
    private static byte[] response(long chunksWritten, int chunkBytesWritten, long totalBytesWritten) {
        ByteBuffer r = ByteBuffer.allocate(12).order(ByteOrder.LITTLE_ENDIAN);
        r.putInt((int) chunksWritten).putInt(chunkBytesWritten).putInt((int) totalBytesWritten);
        return r.array();
    }
}
