package io.rdmagate.nfs.v4.op;

import static io.rdmagate.nfs.v4.Nfs4.*;

import io.rdmagate.nfs.NfsExport;
import io.rdmagate.nfs.NfsExports.Target;
import io.rdmagate.nfs.v4.Compound;
import io.rdmagate.nfs.v4.Fh4;
import io.rdmagate.nfs.v4.Nfs4Exception;
import io.rdmagate.nfs.v4.Nfs4Op;
import io.rdmagate.nfs.v4.PseudoFs;
import io.rdmagate.vfs.FileType;
import io.rdmagate.vfs.VfsException;

/**
 * RFC 8881 §18.14 LOOKUPP: the parent directory becomes the current filehandle; from an export's
 * root that is the pseudo directory above it; from the root, NFS4ERR_NOENT.
 */
public final class OpLookupp extends Nfs4Op {
    public OpLookupp() {
        super(OP_LOOKUPP, "LOOKUPP");
    }

    @Override
    public void run(Compound c) throws Nfs4Exception, VfsException {
        switch (c.current()) {
            case Fh4.Pseudo p -> {
                if (p.node().parent() == null) {
                    throw new Nfs4Exception(NFS4ERR_NOENT, "the root has no parent");
                }
                c.current(new Fh4.Pseudo(p.node().parent()));
            }
            case Fh4.File f -> {
                Target t = f.target();
                FileType type = t.fs().getattr(t.handle()).type();
                if (type == FileType.SYMLINK) {
                    throw new Nfs4Exception(NFS4ERR_SYMLINK, "LOOKUPP of a symlink");
                }
                if (type != FileType.DIRECTORY) {
                    throw new Nfs4Exception(NFS4ERR_NOTDIR, "LOOKUPP of a " + type);
                }
                NfsExport e = t.export();
                if (t.handle().equals(e.fs().root())) {
                    PseudoFs.Node above = c.server().pseudo().parentOf(e);
                    if (above == null) {
                        throw new Nfs4Exception(NFS4ERR_NOENT, "the root has no parent");
                    }
                    c.current(new Fh4.Pseudo(above));
                    return;
                }
                c.current(new Fh4.File(new Target(e, t.fs().parent(c.reader(t), t.handle()).handle())));
            }
        }
    }
}
