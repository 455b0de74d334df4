package io.rdmagate.nfs.v4;

import io.rdmagate.nfs.NfsExport;
import io.rdmagate.nfs.NfsExports.Target;
import io.rdmagate.vfs.FileAttributes;
import io.rdmagate.vfs.FileType;
import io.rdmagate.vfs.FsStat;
import io.rdmagate.vfs.VfsException;

/**
 * The {@link Fattr4.Source} of a filehandle. A file of an export is in the filesystem whose fsid is
 * (the export's volume id, 0), as NFSv3 reports it; the pseudo-filesystem's directories are in
 * fsid (0, 1), read-only (mode 0555, owned by root), with the server's start as their times. An
 * export's root reports as {@code mounted_on_fileid} the id of its name in the pseudo directory above.
 */
final class Nfs4Attrs {
    private static final FsStat PSEUDO_STAT = new FsStat(0, 0, 0, 0, 0, 0, 4096, 255, 0);

    private Nfs4Attrs() {
    }

    static Fattr4.Source of(Fh4 fh, Nfs4Server server, int minor) throws VfsException {
        return switch (fh) {
            case Fh4.File f -> of(f.target(), f.target().fs().getattr(f.target().handle()), server, minor);
            case Fh4.Pseudo p -> pseudo(p, server, minor);
        };
    }

    static Fattr4.Source of(Target t, FileAttributes a, Nfs4Server server, int minor) {
        NfsExport e = t.export();
        boolean root = t.handle().equals(e.fs().root());
        long mountedOn = root && server.pseudo().parentOf(e) != null ? PseudoFs.idOf(e.nfsPath()) : a.fileId();
        return new Fattr4.Source(a, new Fh4.File(t).wire(), Integer.toUnsignedLong(a.volumeId()), 0, mountedOn,
                e.config().caseInsensitive(), () -> t.fs().statfs(t.handle()), minor);
    }

    static Fattr4.Source pseudo(Fh4.Pseudo p, Nfs4Server server, int minor) {
        long nanos = server.startMillis() * 1_000_000L;
        PseudoFs.Node n = p.node();
        FileAttributes a = new FileAttributes(FileType.DIRECTORY, 0555, 2 + n.children().size(), 0, 0, 4096, 4096,
                n.id(), 0, 0, nanos, nanos, nanos, nanos, 0, server.startMillis());
        return new Fattr4.Source(a, p.wire(), 0, 1, n.id(), false, () -> PSEUDO_STAT, minor);
    }
}
