package io.rdmagate.nfs.v4.op;

import static io.rdmagate.nfs.v4.Nfs4.*;

import io.rdmagate.nfs.NfsExport;
import io.rdmagate.nfs.NfsExports.Target;
import io.rdmagate.nfs.v4.Compound;
import io.rdmagate.nfs.v4.Fh4;
import io.rdmagate.nfs.v4.Nfs4Exception;
import io.rdmagate.nfs.v4.Nfs4Op;
import io.rdmagate.nfs.v4.PseudoFs;
import io.rdmagate.oncrpc.xdr.XdrException;
import io.rdmagate.vfs.FileType;
import io.rdmagate.vfs.Node;
import io.rdmagate.vfs.VfsException;

/**
 * RFC 8881 §18.13 LOOKUP: args component4; the named object becomes the current filehandle. In the
 * pseudo-filesystem a name leads to a pseudo directory or crosses into an export's root (a client
 * no rule admits sees no such name); in an export the vfs looks it up, NFS4ERR_SYMLINK when the
 * current filehandle is a symlink and NFS4ERR_NOTDIR when it is not a directory.
 */
public final class OpLookup extends Nfs4Op {
    public OpLookup() {
        super(OP_LOOKUP, "LOOKUP");
    }

    @Override
    public void run(Compound c) throws Nfs4Exception, XdrException, VfsException {
        String name = Names4.read(c.in());
        switch (c.current()) {
            case Fh4.Pseudo p -> c.current(child(c, p.node(), name));
            case Fh4.File f -> {
                Target dir = f.target();
                FileType type = dir.fs().getattr(dir.handle()).type();
                if (type == FileType.SYMLINK) {
                    throw new Nfs4Exception(NFS4ERR_SYMLINK, "LOOKUP in a symlink");
                }
                if (type != FileType.DIRECTORY) {
                    throw new Nfs4Exception(NFS4ERR_NOTDIR, "LOOKUP in a " + type);
                }
                Node n = dir.fs().lookup(c.reader(dir), dir.handle(), name);
                c.current(new Fh4.File(new Target(dir.export(), n.handle())));
            }
        }
    }

    static Fh4 child(Compound c, PseudoFs.Node dir, String name) throws Nfs4Exception {
        Object child = dir.children().get(name);
        if (child instanceof PseudoFs.Node n) {
            return new Fh4.Pseudo(n);
        }
        if (child instanceof NfsExport e && c.visible(e)) {
            return new Fh4.File(new Target(e, e.fs().root()));
        }
        throw new Nfs4Exception(NFS4ERR_NOENT, name + " is not in the pseudo-filesystem");
    }
}
