package io.rdmagate.nfs.v4.op;

import static io.rdmagate.nfs.v4.Nfs4.*;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.rdmagate.nfs.NfsExports.Target;
import io.rdmagate.nfs.v4.Compound;
import io.rdmagate.nfs.v4.Nfs4Exception;
import io.rdmagate.nfs.v4.Nfs4Op;
import io.rdmagate.oncrpc.xdr.XdrDecoder;
import io.rdmagate.oncrpc.xdr.XdrException;
import io.rdmagate.vfs.Caller;
import io.rdmagate.vfs.VfsException;
import io.rdmagate.vfs.XattrMode;
import io.rdmagate.vfs.state.Conflict;

/**
 * RFC 8276 §8.4.2 SETXATTR: args the option (EITHER, CREATE: NFS4ERR_EXIST when it exists, REPLACE:
 * NFS4ERR_NOXATTR when it does not), name and value; resok the file's change_info4. A value of more
 * than 64 KiB is NFS4ERR_XATTR2BIG. A change of the file, as SETATTR: others' delegations and SMB
 * caching are recalled first.
 */
public final class OpSetxattr extends Nfs4Op {
    public OpSetxattr() {
        super(OP_SETXATTR, "SETXATTR");
    }

    @Override
    public void run(Compound c) throws Nfs4Exception, XdrException, VfsException {
        XdrDecoder in = c.in();
        int option = in.readInt();
        if (option < 0 || option > 2) {
            throw new Nfs4Exception(NFS4ERR_INVAL, "setxattr_option4 " + option);
        }
        String name = Xattrs4.readName(in);
        ByteBuf raw = in.readOpaqueSlice(Math.max(Xattrs4.MAX_VALUE, c.server().maxIoSize()));
        byte[] value;
        try {
            if (raw.readableBytes() > Xattrs4.MAX_VALUE) {
                throw new Nfs4Exception(NFS4ERR_XATTR2BIG, "a value of " + raw.readableBytes() + " bytes");
            }
            value = ByteBufUtil.getBytes(raw);
        } finally {
            raw.release();
        }
        Target t = c.currentFile(NFS4ERR_ROFS);
        Caller caller = c.writer(t);
        XattrMode mode = switch (option) {
            case 1 -> XattrMode.CREATE;
            case 2 -> XattrMode.REPLACE;
            default -> XattrMode.EITHER;
        };
        long before = ChangeInfo.of(t);
        int use = t.begin(Conflict.WRITE, c.breaker());
        try {
            t.fs().setxattr(caller, t.handle(), name, value, mode);
        } finally {
            t.end(use);
        }
        new ChangeInfo(before, ChangeInfo.of(t)).write(c.out());
    }
}
