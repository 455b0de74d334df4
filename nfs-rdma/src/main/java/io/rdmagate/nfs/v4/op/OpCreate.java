package io.rdmagate.nfs.v4.op;

import static io.rdmagate.nfs.v4.Nfs4.*;

import io.rdmagate.nfs.NfsExports.Target;
import io.rdmagate.nfs.v4.Compound;
import io.rdmagate.nfs.v4.Fattr4;
import io.rdmagate.nfs.v4.Fh4;
import io.rdmagate.nfs.v4.Nfs4Exception;
import io.rdmagate.nfs.v4.Nfs4Op;
import io.rdmagate.oncrpc.xdr.XdrDecoder;
import io.rdmagate.oncrpc.xdr.XdrException;
import io.rdmagate.vfs.Caller;
import io.rdmagate.vfs.Node;
import io.rdmagate.vfs.VfsException;
import io.rdmagate.vfs.support.Names;

/**
 * RFC 8881 §18.4 CREATE: args createtype4 (a directory, or a symlink with its text), component4,
 * fattr4; resok change_info4 of the directory, attrsset. The new object becomes the current
 * filehandle. Regular files are created by OPEN (NFS4ERR_BADTYPE here); devices, FIFOs and sockets
 * are NFS4ERR_NOTSUPP, as the vfs creates none (as for NFSv3 MKNOD).
 */
public final class OpCreate extends Nfs4Op {
    public OpCreate() {
        super(OP_CREATE, "CREATE");
    }

    @Override
    public void run(Compound c) throws Nfs4Exception, XdrException, VfsException {
        XdrDecoder in = c.in();
        int type = in.readInt();
        String link = null;
        switch (type) {
            case NF4LNK -> link = Names4.utf8(in.readOpaque(NFS4_OPAQUE_LIMIT * 4));
            case NF4BLK, NF4CHR -> in.skip(8);
            case NF4SOCK, NF4FIFO, NF4DIR -> {
            }
            default -> throw new Nfs4Exception(NFS4ERR_BADTYPE, "CREATE of type " + type);
        }
        String name = Names4.read(in);
        Fattr4.Settable s = Fattr4.readSettable(in, c.server().idmap());
        Target dir = Dirs.currentDirectory(c);
        Caller caller = c.writer(dir);
        long before = ChangeInfo.of(dir);
        Node n = switch (type) {
            case NF4DIR -> dir.fs().mkdir(caller, dir.handle(), name, s.attributes());
            case NF4LNK -> {
                if (link.isEmpty()) {
                    throw new Nfs4Exception(NFS4ERR_INVAL, "empty symlink text");
                }
                Names.checkSymlinkTarget(link);
                yield dir.fs().symlink(caller, dir.handle(), name, link, s.attributes());
            }
            default -> throw new Nfs4Exception(NFS4ERR_NOTSUPP, "CREATE of devices, FIFOs and sockets");
        };
        dir.stable();
        new ChangeInfo(before, ChangeInfo.of(dir)).write(c.out());
        Fattr4.writeBitmap(c.out(), s.bitmap());
        c.current(new Fh4.File(new Target(dir.export(), n.handle())));
    }
}
