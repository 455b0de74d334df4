package io.rdmagate.nfs.v3;

import io.netty.buffer.ByteBuf;
import io.rdmagate.nfs.NfsExports.Target;
import io.rdmagate.nfs.v3.Nfs3Xdr.WccAttr;
import io.rdmagate.oncrpc.xdr.XdrDecoder;
import io.rdmagate.oncrpc.xdr.XdrEncoder;
import io.rdmagate.oncrpc.xdr.XdrException;
import io.rdmagate.oncrpc.xdr.XdrMessage;
import io.rdmagate.vfs.Caller;
import io.rdmagate.vfs.FileAttributes;
import io.rdmagate.vfs.Stability;
import io.rdmagate.vfs.VfsError;
import io.rdmagate.vfs.VfsException;
import io.rdmagate.vfs.state.Conflict;
import io.rdmagate.vfs.WriteResult;
import io.rdmagate.vfs.memory.IoMemory;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;

/**
 * RFC 1813 §3.3.7 WRITE: args nfs_fh3, offset3, count3, stable_how, opaque data; resok wcc_data,
 * count3, stable_how committed, writeverf3; resfail wcc_data.
 *
 * <p>Accepts data of at most wtmax bytes whose length equals count; refuses a different count, a
 * larger payload and a stable_how outside 0..2 as GARBAGE_ARGS (as knfsd does).
 *
 * <p>Where the bytes travel: the data stays in the receive buffers it arrived in. A payload in one
 * direct buffer is lent to the vfs as it lies and {@code pwrite} takes it from there; a payload
 * split across several direct receive buffers (a large record read in pieces) is lent as a list of
 * segments and written with one {@code pwritev}. Only a payload on the Java heap is copied, once,
 * into pool memory, and counted in {@code PayloadCopies} under "tcp". FILE_SYNC and DATA_SYNC
 * reach stable storage before the reply.
 */
public final class Nfs3Write extends Nfs3Procedure {
    private static final MemorySegment EMPTY = Arena.global().allocate(8).asSlice(0, 0);

    public Nfs3Write() {
        super(Nfs3.WRITE, "WRITE", false);
    }

    @Override
    public XdrMessage run(Nfs3Request r) throws XdrException {
        XdrDecoder in = r.in();
        byte[] fh = Nfs3Xdr.readFh(in);
        long offset = in.readHyper();
        long count = in.readUnsignedInt();
        int how = in.readEnum();
        if (how < Nfs3.UNSTABLE || how > Nfs3.FILE_SYNC) {
            throw new XdrException("stable_how " + how);
        }
        ByteBuf data = in.readOpaqueSlice(r.maxIoSize());
        try {
            if (data.readableBytes() != count) {
                throw new XdrException("WRITE count " + count + " but " + data.readableBytes() + " bytes of data");
            }
            return write(r, fh, offset, Stability.values()[how], data);
        } finally {
            data.release();
        }
    }

    private static XdrMessage write(Nfs3Request r, byte[] fh, long offset, Stability stability, ByteBuf data) {
        Target t = null;
        WccAttr before = null;
        int use = -1;
        try {
            t = r.resolve(fh);
            Caller c = r.writer(t);
            use = t.begin(Conflict.WRITE); // SMB opens denying writes refuse it; SMB caching of the file is recalled
            if (offset < 0 || offset + data.readableBytes() < 0) {
                throw new Nfs3Exception(Nfs3Status.NFS3ERR_FBIG, "write beyond 2^63-1");
            }
            FileAttributes b = t.fs().getattr(t.handle());
            before = WccAttr.of(b);
            if (b.uid() == c.uid() && !c.isSuperuser()) {
                c = ownerOverride(t, c);
            }
            WriteResult w = writeAll(r, t, c, offset, stability, data);
            XdrEncoder out = r.ok();
            Nfs3Xdr.wcc(out, before, w.after());
            out.writeInt(w.count());
            out.writeInt(w.committed().ordinal());
            Nfs3Xdr.verifier(out, t.fs().writeVerifier());
            return out.finish();
        } catch (VfsException | Nfs3Exception e) {
            XdrEncoder out = r.fail(e);
            Nfs3Xdr.wcc(out, before, Nfs3Request.attributesOrNull(t));
            return out.finish();
        } finally {
            if (t != null) {
                t.end(use);
            }
        }
    }

    /**
     * Like knfsd, the owner may write its file whatever the mode bits say (the client checked them
     * at open): write as the superuser when the owner lacks write permission.
     */
    private static Caller ownerOverride(Target t, Caller c) throws VfsException {
        int ok = t.fs().access(c, t.handle(), io.rdmagate.vfs.VirtualFileSystem.ACCESS_MODIFY);
        return ok != 0 ? c : Caller.ROOT;
    }

    private static WriteResult writeAll(Nfs3Request r, Target t, Caller c, long offset, Stability stability,
            ByteBuf data) throws VfsException {
        int n = data.readableBytes();
        if (n == 0) {
            return t.fs().write(c, t.handle(), offset, IoMemory.lend(EMPTY), stability);
        }
        if (data.isDirect() && data.nioBufferCount() == 1) {
            IoMemory m = IoMemory.lend(MemorySegment.ofBuffer(data.nioBuffer()));
            try {
                return t.fs().write(c, t.handle(), offset, m, stability);
            } finally {
                m.release();
            }
        }
        ByteBuffer[] parts = data.nioBuffers();
        boolean allDirect = true;
        for (ByteBuffer p : parts) {
            allDirect &= p.isDirect();
        }
        if (!allDirect) {
            IoMemory m = r.memory().lease(n);
            try {
                MemorySegment dst = m.segment();
                long at = 0;
                for (ByteBuffer p : parts) {
                    MemorySegment src = MemorySegment.ofBuffer(p);
                    MemorySegment.copy(src, 0, dst, at, src.byteSize());
                    at += src.byteSize();
                }
                r.copies().add("tcp", n);
                return t.fs().write(c, t.handle(), offset, m, stability);
            } finally {
                m.release();
            }
        }
        MemorySegment[] segments = new MemorySegment[parts.length];
        for (int i = 0; i < parts.length; i++) {
            segments[i] = MemorySegment.ofBuffer(parts[i]);
        }
        WriteResult w = t.fs().write(c, t.handle(), offset, segments, stability); // one pwritev
        if (w.count() != n) {
            throw new VfsException(VfsError.IO, "short write of " + w.count() + " of " + n);
        }
        return w;
    }
}
