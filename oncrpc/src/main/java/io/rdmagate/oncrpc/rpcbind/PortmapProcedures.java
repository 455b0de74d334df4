package io.rdmagate.oncrpc.rpcbind;

import io.rdmagate.oncrpc.server.RpcCall;
import io.rdmagate.oncrpc.server.RpcErrorException;
import io.rdmagate.oncrpc.xdr.XdrDecoder;
import io.rdmagate.oncrpc.xdr.XdrEncoder;
import io.rdmagate.oncrpc.xdr.XdrException;
import io.rdmagate.oncrpc.xdr.XdrMessage;

/**
 * Portmap version 2 (RFC 1833 §3.2).
 *
 * <p>Accepts: struct mapping {prog, vers, prot, port} for SET, UNSET, GETPORT; no arguments for
 * NULL and DUMP. Refuses: truncated arguments (GARBAGE_ARGS), a port above 65535 or a protocol
 * other than TCP (6) and UDP (17) in SET (FALSE), CALLIT and unknown procedures (PROC_UNAVAIL).
 */
final class PortmapProcedures {
    private PortmapProcedures() {
    }

    static XdrMessage handle(RpcCall call, RpcbindRegistry registry) throws XdrException, RpcErrorException {
        XdrDecoder in = call.decoder();
        switch (call.procedure()) {
            case Rpcbind.PMAPPROC_NULL -> {
                return call.success().finish();
            }
            case Rpcbind.PMAPPROC_SET -> {
                int prog = in.readInt();
                int vers = in.readInt();
                String netid = Mapping.netidOf(in.readInt());
                long port = in.readUnsignedInt();
                boolean ok = RpcbindProgram.mayChange(call) && netid != null && port > 0 && port <= 0xFFFF
                        && registry.set(new Mapping(prog, vers, netid, (int) port, owner(call)));
                return call.success().writeBool(ok).finish();
            }
            case Rpcbind.PMAPPROC_UNSET -> {
                int prog = in.readInt();
                int vers = in.readInt();
                in.skip(8); // prot and port are ignored: UNSET removes every protocol (§3.2)
                boolean ok = RpcbindProgram.mayChange(call) && registry.unset(prog, vers, null);
                return call.success().writeBool(ok).finish();
            }
            case Rpcbind.PMAPPROC_GETPORT -> {
                int prog = in.readInt();
                int vers = in.readInt();
                String netid = Mapping.netidOf(in.readInt());
                in.skip(4);
                Mapping m = netid == null ? null : registry.lookup(prog, vers, netid, false);
                return call.success().writeInt(m == null ? 0 : m.port()).finish();
            }
            case Rpcbind.PMAPPROC_DUMP -> {
                XdrEncoder out = call.success();
                for (Mapping m : registry.list()) {
                    if (m.protocol() == 0 || m.netid().endsWith("6")) {
                        continue; // v2 speaks of IPv4 TCP and UDP only
                    }
                    out.writeBool(true).writeInt(m.program()).writeInt(m.version()).writeInt(m.protocol())
                            .writeInt(m.port());
                }
                return out.writeBool(false).finish();
            }
            default -> throw RpcErrorException.procUnavailable(call.procedure()); // CALLIT: no forwarding
        }
    }

    private static String owner(RpcCall call) {
        return call.authSys() != null ? Integer.toString(call.authSys().uid()) : "unknown";
    }
}
