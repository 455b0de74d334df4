package io.rdmagate.oncrpc.rpcbind;

import io.rdmagate.oncrpc.server.RpcCall;
import io.rdmagate.oncrpc.server.RpcErrorException;
import io.rdmagate.oncrpc.xdr.XdrDecoder;
import io.rdmagate.oncrpc.xdr.XdrEncoder;
import io.rdmagate.oncrpc.xdr.XdrException;
import io.rdmagate.oncrpc.xdr.XdrMessage;
import java.net.InetAddress;
import java.net.InetSocketAddress;

/**
 * rpcbind versions 3 and 4 (RFC 1833 §2.2).
 *
 * <p>Accepts: struct rpcb {prog, vers, netid<32>, uaddr<64>, owner<255>} for SET, UNSET, GETADDR,
 * GETVERSADDR, GETADDRLIST; no arguments for NULL, DUMP, GETTIME. Refuses: truncated arguments
 * or strings over those limits (GARBAGE_ARGS); a SET whose uaddr is not a universal address
 * (FALSE); CALLIT/BCAST, INDIRECT, UADDR2TADDR, TADDR2UADDR (netbufs are TLI-specific), GETSTAT
 * and unknown procedures (PROC_UNAVAIL). GETVERSADDR, GETADDRLIST are version 4 only.
 *
 * <p>Universal addresses answered carry the address the query arrived on (what the client
 * dialled, which may be a forwarded address), never the loopback the service is bound to.
 */
final class RpcbindProcedures {
    private RpcbindProcedures() {
    }

    private record Rpcb(int prog, int vers, String netid, String uaddr, String owner) {
        static Rpcb read(XdrDecoder in) throws XdrException {
            return new Rpcb(in.readInt(), in.readInt(), in.readString(Rpcbind.MAX_NETID),
                    in.readString(Rpcbind.MAX_UADDR), in.readString(Rpcbind.MAX_OWNER));
        }
    }

    static XdrMessage handle(RpcCall call, RpcbindRegistry registry, InetAddress advertised)
            throws XdrException, RpcErrorException {
        XdrDecoder in = call.decoder();
        boolean v4 = call.version() == 4;
        switch (call.procedure()) {
            case Rpcbind.RPCBPROC_NULL -> {
                return call.success().finish();
            }
            case Rpcbind.RPCBPROC_SET -> {
                Rpcb r = Rpcb.read(in);
                boolean ok = false;
                if (RpcbindProgram.mayChange(call)) {
                    try {
                        int port = UniversalAddress.parse(r.uaddr()).getPort();
                        ok = port > 0 && registry.set(new Mapping(r.prog(), r.vers(), r.netid(), port, r.owner()));
                    } catch (IllegalArgumentException e) {
                        ok = false;
                    }
                }
                return call.success().writeBool(ok).finish();
            }
            case Rpcbind.RPCBPROC_UNSET -> {
                Rpcb r = Rpcb.read(in);
                boolean ok = RpcbindProgram.mayChange(call) && registry.unset(r.prog(), r.vers(), r.netid());
                return call.success().writeBool(ok).finish();
            }
            case Rpcbind.RPCBPROC_GETADDR -> {
                Rpcb r = Rpcb.read(in);
                Mapping m = registry.lookup(r.prog(), r.vers(), netid(r, call), false);
                return call.success().writeString(m == null ? "" : uaddr(m, call, advertised)).finish();
            }
            case Rpcbind.RPCBPROC_DUMP -> {
                XdrEncoder out = call.success();
                for (Mapping m : registry.list()) {
                    out.writeBool(true).writeInt(m.program()).writeInt(m.version()).writeString(m.netid())
                            .writeString(uaddr(m, call, advertised)).writeString(m.owner());
                }
                return out.writeBool(false).finish();
            }
            case Rpcbind.RPCBPROC_GETTIME -> {
                return call.success().writeUnsignedInt(System.currentTimeMillis() / 1000).finish();
            }
            case Rpcbind.RPCBPROC_GETVERSADDR -> {
                if (!v4) {
                    throw RpcErrorException.procUnavailable(call.procedure());
                }
                Rpcb r = Rpcb.read(in);
                Mapping m = registry.lookup(r.prog(), r.vers(), netid(r, call), true);
                return call.success().writeString(m == null ? "" : uaddr(m, call, advertised)).finish();
            }
            case Rpcbind.RPCBPROC_GETADDRLIST -> {
                if (!v4) {
                    throw RpcErrorException.procUnavailable(call.procedure());
                }
                Rpcb r = Rpcb.read(in);
                XdrEncoder out = call.success();
                for (Mapping m : registry.lookupAll(r.prog(), r.vers())) {
                    boolean stream = m.protocol() == Rpcbind.IPPROTO_TCP;
                    // rpcb_entry: r_maddr, r_nc_netid, r_nc_semantics (NC_TPI_COTS_ORD 3, NC_TPI_CLTS 1),
                    // r_nc_protofmly, r_nc_proto
                    out.writeBool(true).writeString(uaddr(m, call, advertised)).writeString(m.netid())
                            .writeInt(stream ? 3 : 1).writeString(m.netid().endsWith("6") ? "inet6" : "inet")
                            .writeString(stream ? "tcp" : "udp");
                }
                return out.writeBool(false).finish();
            }
            default -> throw RpcErrorException.procUnavailable(call.procedure());
        }
    }

    /** An empty netid asks for the transport the query came over. */
    private static String netid(Rpcb r, RpcCall call) {
        return r.netid().isEmpty() ? call.connection().transport() : r.netid();
    }

    private static String uaddr(Mapping m, RpcCall call, InetAddress advertised) {
        InetSocketAddress local = call.connection().local();
        InetAddress host = advertised != null ? advertised : local.getAddress();
        return UniversalAddress.format(host, m.port());
    }
}
