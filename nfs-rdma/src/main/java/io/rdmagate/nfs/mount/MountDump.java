package io.rdmagate.nfs.mount;

import io.rdmagate.oncrpc.server.RpcCall;
import io.rdmagate.oncrpc.xdr.XdrEncoder;
import io.rdmagate.oncrpc.xdr.XdrMessage;

/** RFC 1813 §5.2.2 MOUNTPROC3_DUMP: no arguments; the mountlist of (hostname, directory). */
final class MountDump implements MountProcedure {
    @Override
    public XdrMessage run(MountProgram server, RpcCall call) {
        XdrEncoder out = call.success();
        for (MountTable.Entry e : server.table().list()) {
            out.writeBool(true);
            out.writeString(e.host());
            out.writeString(e.directory());
        }
        out.writeBool(false);
        return out.finish();
    }
}
