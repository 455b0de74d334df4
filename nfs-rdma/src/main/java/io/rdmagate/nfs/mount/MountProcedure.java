package io.rdmagate.nfs.mount;

import io.rdmagate.oncrpc.server.RpcCall;
import io.rdmagate.oncrpc.server.RpcErrorException;
import io.rdmagate.oncrpc.xdr.XdrException;
import io.rdmagate.oncrpc.xdr.XdrMessage;

/** One MOUNT procedure (RFC 1813 §5.2). Decodes all its arguments before it builds a reply. */
interface MountProcedure {
    XdrMessage run(MountProgram server, RpcCall call) throws XdrException, RpcErrorException;
}
