package io.rdmagate.nfs.v4.op;

import static io.rdmagate.nfs.v4.Nfs4.*;

import io.netty.buffer.ByteBuf;
import io.rdmagate.nfs.NfsExports.Target;
import io.rdmagate.nfs.WriteData;
import io.rdmagate.nfs.v4.Compound;
import io.rdmagate.nfs.v4.Nfs4Exception;
import io.rdmagate.nfs.v4.Nfs4Op;
import io.rdmagate.nfs.v4.state.Stateid;
import io.rdmagate.oncrpc.xdr.XdrDecoder;
import io.rdmagate.oncrpc.xdr.XdrEncoder;
import io.rdmagate.oncrpc.xdr.XdrException;
import io.rdmagate.vfs.Caller;
import io.rdmagate.vfs.FileAttributes;
import io.rdmagate.vfs.Stability;
import io.rdmagate.vfs.VfsException;
import io.rdmagate.vfs.WriteResult;
import io.rdmagate.vfs.state.Conflict;

/**
 * RFC 8881 §18.32 WRITE: args stateid, offset, stable_how, data; resok count, committed, write verifier.
 *
 * <p>Where the bytes travel: {@link WriteData}, as for NFSv3 WRITE: over RDMA the data is the read
 * chunk the gateway RDMA-Read into pool memory, over TCP the receive buffers, and the vfs writes it
 * from there. The stateid is an open of this file with write access, or a special stateid (§8.2.3).
 * An SMB open whose share mode denies writing refuses it, and what SMB clients cache of the file is
 * recalled first. FILE_SYNC4 and DATA_SYNC4 reach stable storage before the reply.
 */
public final class OpWrite extends Nfs4Op {
    public OpWrite() {
        super(OP_WRITE, "WRITE");
    }

    @Override
    public void run(Compound c) throws Nfs4Exception, XdrException, VfsException {
        XdrDecoder in = c.in();
        Stateid stateid = c.resolveStateid(Stateid.read(in));
        long offset = in.readHyper();
        int how = in.readInt();
        if (how < 0 || how > 2) {
            throw new XdrException("stable_how4 " + how);
        }
        ByteBuf data = in.readOpaqueSlice(c.server().maxIoSize());
        try {
            Target t = c.currentFile(NFS4ERR_ISDIR);
            Caller caller = c.writer(t);
            FileAttributes before = DataAccess.regular(t, NFS4ERR_INVAL);
            DataAccess.checkWriteStateid(c, stateid, t);
            if (offset < 0 || offset + data.readableBytes() < 0) {
                throw new Nfs4Exception(NFS4ERR_FBIG, "write beyond 2^63-1");
            }
            int use = t.begin(Conflict.WRITE, c.breaker());
            WriteResult w;
            try {
                w = WriteData.write(t, WriteData.ownerOverride(t, caller, before.uid()), offset, Stability.values()[how],
                        data, c.memory(), c.copies());
            } finally {
                t.end(use);
            }
            XdrEncoder out = c.out();
            out.writeInt(w.count());
            out.writeInt(w.committed().ordinal());
            out.writeHyper(t.fs().writeVerifier());
        } finally {
            data.release();
        }
    }
}
