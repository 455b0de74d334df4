package io.rdmagate.nfs.v4.op;

import static io.rdmagate.nfs.v4.Nfs4.*;

import io.rdmagate.nfs.NfsExports.Target;
import io.rdmagate.nfs.v4.Compound;
import io.rdmagate.nfs.v4.Fh4;
import io.rdmagate.nfs.v4.Nfs4Exception;
import io.rdmagate.vfs.FileType;
import io.rdmagate.vfs.VfsException;

/** What the operations that change a directory share: the directory must be one, of an export. */
final class Dirs {
    private Dirs() {
    }

    /** {@code fh} as a directory of an export: NFS4ERR_ROFS in the pseudo-filesystem, NFS4ERR_NOTDIR or NFS4ERR_SYMLINK otherwise. */
    static Target directory(Fh4 fh) throws Nfs4Exception, VfsException {
        if (!(fh instanceof Fh4.File f)) {
            throw new Nfs4Exception(NFS4ERR_ROFS, "the pseudo-filesystem is read-only");
        }
        Target t = f.target();
        FileType type = t.fs().getattr(t.handle()).type();
        if (type != FileType.DIRECTORY) {
            throw new Nfs4Exception(type == FileType.SYMLINK ? NFS4ERR_SYMLINK : NFS4ERR_NOTDIR, "not a directory: " + type);
        }
        return t;
    }

    static Target currentDirectory(Compound c) throws Nfs4Exception, VfsException {
        return directory(c.current());
    }
}
