package io.rdmagate.nfs.v4.op;

import io.rdmagate.nfs.NfsExports.Target;
import io.rdmagate.oncrpc.xdr.XdrEncoder;
import io.rdmagate.vfs.VfsException;

/**
 * change_info4 (RFC 8881 §3.3.7) of a directory around an operation: its change attribute before
 * and after. Not atomic: another client's change may fall between the two reads.
 */
record ChangeInfo(long before, long after) {
    static long of(Target dir) throws VfsException {
        return dir.fs().getattr(dir.handle()).changeId();
    }

    void write(XdrEncoder out) {
        out.writeBool(false);
        out.writeHyper(before);
        out.writeHyper(after);
    }
}
