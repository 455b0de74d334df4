package io.rdmagate.nfs.v4.op;

import static io.rdmagate.nfs.v4.Nfs4.*;

import io.rdmagate.nfs.ClientAccess;
import io.rdmagate.nfs.NfsExports.Target;
import io.rdmagate.nfs.v4.Compound;
import io.rdmagate.nfs.v4.Fh4;
import io.rdmagate.nfs.v4.Nfs4Exception;
import io.rdmagate.nfs.v4.Nfs4Op;
import io.rdmagate.oncrpc.xdr.XdrException;
import io.rdmagate.vfs.VfsException;
import io.rdmagate.vfs.VirtualFileSystem;

/**
 * RFC 8881 §18.1 ACCESS: args the access bits asked; resok the bits this server can judge and those
 * granted. The bits are NFSv3's; a read-only client rule grants no MODIFY, EXTEND or DELETE; a pseudo
 * directory grants READ and LOOKUP. NFSv4.2 adds the extended attribute bits (RFC 8276 §8.4.1.3):
 * XAREAD and XALIST as READ, XAWRITE as MODIFY (a Linux client checks them before GETXATTR,
 * LISTXATTRS and SETXATTR).
 */
public final class OpAccess extends Nfs4Op {
    private static final int ALL = 0x3f;
    private static final int XAREAD = 0x40;
    private static final int XAWRITE = 0x80;
    private static final int XALIST = 0x100;
    private static final int CHANGES = VirtualFileSystem.ACCESS_MODIFY | VirtualFileSystem.ACCESS_EXTEND
            | VirtualFileSystem.ACCESS_DELETE;

    public OpAccess() {
        super(OP_ACCESS, "ACCESS");
    }

    @Override
    public void run(Compound c) throws Nfs4Exception, XdrException, VfsException {
        int asked = c.in().readInt();
        int requested = asked & (c.minor() >= MINOR_VERSION_2 ? ALL | XAREAD | XAWRITE | XALIST : ALL);
        int xattrs = requested & (XAREAD | XAWRITE | XALIST);
        int granted;
        switch (c.current()) {
            case Fh4.Pseudo p -> granted = requested & (VirtualFileSystem.ACCESS_READ | VirtualFileSystem.ACCESS_LOOKUP
                    | XAREAD | XALIST);
            case Fh4.File f -> {
                Target t = f.target();
                ClientAccess a = c.access(t.export());
                int plain = requested & ALL;
                if (xattrs != 0) {
                    plain |= VirtualFileSystem.ACCESS_READ | VirtualFileSystem.ACCESS_MODIFY;
                }
                int judged = t.fs().access(a.caller(), t.handle(), plain);
                if (!a.writable()) {
                    judged &= ~CHANGES;
                }
                granted = judged & requested & ALL;
                if ((judged & VirtualFileSystem.ACCESS_READ) != 0) {
                    granted |= xattrs & (XAREAD | XALIST);
                }
                if ((judged & VirtualFileSystem.ACCESS_MODIFY) != 0) {
                    granted |= xattrs & XAWRITE;
                }
            }
        }
        c.out().writeInt(requested);
        c.out().writeInt(granted);
    }
}
