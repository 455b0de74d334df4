package io.rdmagate.nfs.mount;

import io.rdmagate.gateway.spi.config.ClientRule;
import io.rdmagate.nfs.NfsExport;
import io.rdmagate.oncrpc.server.RpcCall;
import io.rdmagate.oncrpc.xdr.XdrEncoder;
import io.rdmagate.oncrpc.xdr.XdrMessage;

/**
 * RFC 1813 §5.2.5 MOUNTPROC3_EXPORT: no arguments; the exports list, each nfsPath with its groups
 * (the match of each client rule: "*", an address or a CIDR block), what {@code showmount -e}
 * prints.
 */
final class MountExport implements MountProcedure {
    @Override
    public XdrMessage run(MountProgram server, RpcCall call) {
        XdrEncoder out = call.success();
        for (NfsExport e : server.exports().all()) {
            out.writeBool(true);
            out.writeString(e.nfsPath());
            for (ClientRule r : e.config().clients()) {
                out.writeBool(true);
                out.writeString(r.match().text());
            }
            out.writeBool(false);
        }
        out.writeBool(false);
        return out.finish();
    }
}
