package io.rdmagate.nfs.v4.op;

import static io.rdmagate.nfs.v4.Nfs4.*;

import io.rdmagate.nfs.NfsExports.Target;
import io.rdmagate.nfs.v4.Compound;
import io.rdmagate.nfs.v4.Nfs4Exception;
import io.rdmagate.nfs.v4.Nfs4Op;
import io.rdmagate.nfs.v4.state.Stateid;
import io.rdmagate.oncrpc.xdr.XdrDecoder;
import io.rdmagate.oncrpc.xdr.XdrException;
import io.rdmagate.vfs.Caller;
import io.rdmagate.vfs.VfsException;
import io.rdmagate.vfs.state.Conflict;

/**
 * RFC 7862 §15.1 ALLOCATE and §15.4 DEALLOCATE: args stateid, offset, length; no resok.
 *
 * <p>ALLOCATE reserves the range's storage ({@code fallocate}), growing the file when the range
 * reaches past its end, so later writes there cannot run out of space. DEALLOCATE punches a hole:
 * the range's storage is freed ({@code fallocate PUNCH_HOLE|KEEP_SIZE}), it reads as zeroes, and the
 * size stays. The stateid must allow writing; others' caching of the file is recalled first, as
 * for WRITE.
 */
public final class OpAllocate extends Nfs4Op {
    private final boolean reserve;

    private OpAllocate(int number, String name, boolean reserve) {
        super(number, name);
        this.reserve = reserve;
    }

    public static OpAllocate allocate() {
        return new OpAllocate(OP_ALLOCATE, "ALLOCATE", true);
    }

    public static OpAllocate deallocate() {
        return new OpAllocate(OP_DEALLOCATE, "DEALLOCATE", false);
    }

    @Override
    public void run(Compound c) throws Nfs4Exception, XdrException, VfsException {
        XdrDecoder in = c.in();
        Stateid stateid = c.resolveStateid(Stateid.read(in));
        long offset = in.readHyper();
        long length = in.readHyper();
        Target t = c.currentFile(NFS4ERR_ISDIR);
        Caller caller = c.writer(t);
        DataAccess.regular(t, NFS4ERR_WRONG_TYPE);
        DataAccess.checkWriteStateid(c, stateid, t);
        DataAccess.checkRange(offset, length);
        int use = t.begin(Conflict.WRITE, c.breaker());
        try {
            if (reserve) {
                t.fs().allocate(caller, t.handle(), offset, length);
            } else {
                t.fs().deallocate(caller, t.handle(), offset, length);
            }
        } finally {
            t.end(use);
        }
    }
}
