package io.rdmagate.nfs.mount;

import io.rdmagate.oncrpc.server.RpcCall;
import io.rdmagate.oncrpc.xdr.XdrException;
import io.rdmagate.oncrpc.xdr.XdrMessage;

/** RFC 1813 §5.2.3 MOUNTPROC3_UMNT: args dirpath (at most MNTPATHLEN); no results. */
final class MountUmnt implements MountProcedure {
    @Override
    public XdrMessage run(MountProgram server, RpcCall call) throws XdrException {
        String path = call.decoder().readString(Mount.MNTPATHLEN);
        server.table().remove(MountProgram.host(call), path);
        return call.success().finish();
    }
}
