package io.rdmagate.oncrpc.rpcbind;

import io.rdmagate.oncrpc.server.RpcCall;
import io.rdmagate.oncrpc.server.RpcErrorException;
import io.rdmagate.oncrpc.server.RpcProgram;
import io.rdmagate.oncrpc.xdr.XdrException;
import io.rdmagate.oncrpc.xdr.XdrMessage;
import java.net.InetAddress;

/**
 * The embedded rpcbind (RFC 1833): portmap version 2 and rpcbind versions 3 and 4 over one
 * {@link RpcbindRegistry}. SET and UNSET are honoured only from loopback peers (as rpcbind's
 * own access check does); other peers get FALSE. CALLIT, BCAST and INDIRECT are refused with
 * PROC_UNAVAIL: this rpcbind forwards nothing, so it cannot be used to reach, amplify or hide
 * traffic to other services.
 */
public final class RpcbindProgram implements RpcProgram {
    private final RpcbindRegistry registry;
    private final InetAddress advertised;

    /**
     * @param advertised the host part of every universal address answered, or null to use the
     *                   local address of the connection the query arrived on
     */
    public RpcbindProgram(RpcbindRegistry registry, InetAddress advertised) {
        this.registry = registry;
        this.advertised = advertised;
    }

    public RpcbindRegistry registry() {
        return registry;
    }

    @Override
    public int program() {
        return Rpcbind.PROGRAM;
    }

    @Override
    public String name() {
        return "rpcbind";
    }

    @Override
    public int lowVersion() {
        return Rpcbind.PMAP_VERS;
    }

    @Override
    public int highVersion() {
        return 4;
    }

    @Override
    public XdrMessage handle(RpcCall call) throws XdrException, RpcErrorException {
        if (call.version() == Rpcbind.PMAP_VERS) {
            return PortmapProcedures.handle(call, registry);
        }
        return RpcbindProcedures.handle(call, registry, advertised);
    }

    /** SET and UNSET come only from this host. */
    static boolean mayChange(RpcCall call) {
        return call.connection().peer().getAddress().isLoopbackAddress();
    }
}
