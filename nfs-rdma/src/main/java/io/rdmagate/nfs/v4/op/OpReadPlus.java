package io.rdmagate.nfs.v4.op;

import static io.rdmagate.nfs.v4.Nfs4.*;

import io.rdmagate.nfs.NfsExports.Target;
import io.rdmagate.nfs.v4.Compound;
import io.rdmagate.nfs.v4.Nfs4Exception;
import io.rdmagate.nfs.v4.Nfs4Op;
import io.rdmagate.nfs.v4.state.Stateid;
import io.rdmagate.oncrpc.xdr.XdrDecoder;
import io.rdmagate.oncrpc.xdr.XdrEncoder;
import io.rdmagate.oncrpc.xdr.XdrException;
import io.rdmagate.vfs.Caller;
import io.rdmagate.vfs.FileAttributes;
import io.rdmagate.vfs.VfsException;
import io.rdmagate.vfs.memory.IoMemory;
import io.rdmagate.vfs.state.Conflict;

/**
 * RFC 7862 §15.10 READ_PLUS: args as READ's; resok eof and the range's contents as segments, a hole
 * as its offset and length (no zeroes on the wire), data as its offset and bytes.
 *
 * <p>Operation: from the offset, {@code SEEK_DATA} finds where data starts. A hole before it becomes
 * a hole segment; data from there up to the next hole (or the count) becomes one data segment, read
 * as READ reads it: mapped or {@code pread} into pool memory that is the reply's payload, not copied.
 * A reply carries one data segment at most; a range with more is answered short and the client asks
 * again from where it ended. The stateid and caching rules are READ's.
 */
public final class OpReadPlus extends Nfs4Op {
    public OpReadPlus() {
        super(OP_READ_PLUS, "READ_PLUS");
    }

    @Override
    public void run(Compound c) throws Nfs4Exception, XdrException, VfsException {
        XdrDecoder in = c.in();
        Stateid stateid = c.resolveStateid(Stateid.read(in));
        long offset = in.readHyper();
        long asked = Integer.toUnsignedLong(in.readInt());
        Target t = c.currentFile(NFS4ERR_ISDIR);
        Caller caller = c.reader(t);
        FileAttributes before = DataAccess.regular(t, NFS4ERR_INVAL);
        OpRead.checkStateid(c, stateid, t);
        if (offset < 0) {
            throw new Nfs4Exception(NFS4ERR_INVAL, "offset beyond 2^63-1");
        }
        int count = (int) Math.min(asked, Math.min(c.server().maxIoSize(), c.maxResponse() - 1024L));
        t.end(t.begin(Conflict.READ, c.breaker())); // an SMB client's write caching of the file flushes first
        Caller reader = caller.uid() == before.uid() ? Caller.ROOT : caller; // the owner reads whatever the mode says
        if (reader != caller && t.fs().access(caller, t.handle(), io.rdmagate.vfs.VirtualFileSystem.ACCESS_READ) != 0) {
            reader = caller;
        }
        long size = before.size();
        long end = Math.min(size, offset + count);
        XdrEncoder out = c.out();
        if (count == 0 || offset >= size) {
            out.writeBool(offset >= size);
            out.writeInt(0);
            return;
        }
        long data = t.fs().seek(reader, t.handle(), offset, true);
        long holeEnd = data < 0 ? end : Math.min(data, end);
        int segmentsAt = out.position();
        out.writeBool(false);
        out.writeInt(0);
        int segments = 0;
        long reached = offset;
        if (holeEnd > offset) {
            out.writeInt(NFS4_CONTENT_HOLE);
            out.writeHyper(offset);
            out.writeHyper(holeEnd - offset);
            segments++;
            reached = holeEnd;
        }
        if (reached < end) {
            long dataEnd = Math.min(end, Math.max(reached, t.fs().seek(reader, t.handle(), reached, false)));
            if (dataEnd <= reached) {
                dataEnd = end;
            }
            IoMemory bytes = OpRead.read(c, t, reader, reached, (int) (dataEnd - reached));
            try {
                int n = (int) bytes.length();
                out.writeInt(NFS4_CONTENT_DATA);
                out.writeHyper(reached);
                if (OpRead.writeData(out, bytes)) {
                    bytes = null; // the reply owns it now
                }
                segments++;
                reached += n;
            } finally {
                if (bytes != null) {
                    bytes.release();
                }
            }
        }
        out.patchInt(segmentsAt, reached >= t.fs().getattr(t.handle()).size() ? 1 : 0);
        out.patchInt(segmentsAt + 4, segments);
    }
}
