package io.rdmagate.nfs.mount;

import io.rdmagate.oncrpc.server.RpcCall;
import io.rdmagate.oncrpc.xdr.XdrMessage;

/** RFC 1813 §5.2.4 MOUNTPROC3_UMNTALL: no arguments, no results; forgets every mount of the caller. */
final class MountUmntAll implements MountProcedure {
    @Override
    public XdrMessage run(MountProgram server, RpcCall call) {
        server.table().removeAll(MountProgram.host(call));
        return call.success().finish();
    }
}
