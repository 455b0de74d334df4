package io.rdmagate.nfs.v4.op;

import static io.rdmagate.nfs.v4.Nfs4.*;

import io.rdmagate.nfs.NfsExports.Target;
import io.rdmagate.nfs.v4.Compound;
import io.rdmagate.nfs.v4.Fattr4;
import io.rdmagate.nfs.v4.Nfs4Exception;
import io.rdmagate.nfs.v4.Nfs4Op;
import io.rdmagate.nfs.v4.state.Stateid;
import io.rdmagate.oncrpc.xdr.XdrDecoder;
import io.rdmagate.oncrpc.xdr.XdrException;
import io.rdmagate.vfs.VfsException;

/**
 * RFC 7862 §15.5 IO_ADVISE: args stateid, offset, count, the hints (a bitmap4); resok the hints the
 * server acts on. The backend's page cache already reads ahead and keeps what is used, so this
 * server acts on none and says so with an empty bitmap (the advice is "only a hint").
 */
public final class OpIoAdvise extends Nfs4Op {
    public OpIoAdvise() {
        super(OP_IO_ADVISE, "IO_ADVISE");
    }

    @Override
    public void run(Compound c) throws Nfs4Exception, XdrException, VfsException {
        XdrDecoder in = c.in();
        Stateid stateid = c.resolveStateid(Stateid.read(in));
        in.readHyper();
        in.readHyper();
        Fattr4.readBitmap(in);
        Target t = c.currentFile(NFS4ERR_ISDIR);
        c.reader(t);
        DataAccess.regular(t, NFS4ERR_INVAL);
        OpRead.checkStateid(c, stateid, t);
        c.out().writeInt(0);
    }
}
