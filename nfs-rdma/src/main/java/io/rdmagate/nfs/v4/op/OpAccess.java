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
 * directory grants READ and LOOKUP.
 */
public final class OpAccess extends Nfs4Op {
    private static final int ALL = 0x3f;
    private static final int CHANGES = VirtualFileSystem.ACCESS_MODIFY | VirtualFileSystem.ACCESS_EXTEND
            | VirtualFileSystem.ACCESS_DELETE;

    public OpAccess() {
        super(OP_ACCESS, "ACCESS");
    }

    @Override
    public void run(Compound c) throws Nfs4Exception, XdrException, VfsException {
        int requested = c.in().readInt() & ALL;
        int granted;
        switch (c.current()) {
            case Fh4.Pseudo p -> granted = requested & (VirtualFileSystem.ACCESS_READ | VirtualFileSystem.ACCESS_LOOKUP);
            case Fh4.File f -> {
                Target t = f.target();
                ClientAccess a = c.access(t.export());
                granted = t.fs().access(a.caller(), t.handle(), requested);
                if (!a.writable()) {
                    granted &= ~CHANGES;
                }
            }
        }
        c.out().writeInt(requested);
        c.out().writeInt(granted);
    }
}
