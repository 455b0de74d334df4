package io.rdmagate.nfs.mount;

import io.rdmagate.oncrpc.server.RpcCall;
import io.rdmagate.oncrpc.xdr.XdrMessage;

/** RFC 1813 §5.2.0 MOUNTPROC3_NULL: no arguments, no results. */
final class MountNull implements MountProcedure {
    @Override
    public XdrMessage run(MountProgram server, RpcCall call) {
        return call.success().finish();
    }
}
