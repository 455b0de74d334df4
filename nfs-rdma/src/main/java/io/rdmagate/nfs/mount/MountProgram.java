package io.rdmagate.nfs.mount;

import io.rdmagate.nfs.NfsExports;
import io.rdmagate.oncrpc.server.RpcCall;
import io.rdmagate.oncrpc.server.RpcErrorException;
import io.rdmagate.oncrpc.server.RpcProgram;
import io.rdmagate.oncrpc.xdr.XdrException;
import io.rdmagate.oncrpc.xdr.XdrMessage;

/** The MOUNT program (RFC 1813 Appendix I), versions 1 to 3, one class per procedure. */
public final class MountProgram implements RpcProgram {
    private final NfsExports exports;
    private final MountTable table = new MountTable();
    private final MountProcedure[] procedures = {
        new MountNull(), new MountMnt(), new MountDump(), new MountUmnt(), new MountUmntAll(), new MountExport(),
    };

    public MountProgram(NfsExports exports) {
        this.exports = exports;
    }

    @Override
    public int program() {
        return Mount.PROGRAM;
    }

    @Override
    public String name() {
        return "mount";
    }

    @Override
    public int lowVersion() {
        return Mount.LOW_VERSION;
    }

    @Override
    public int highVersion() {
        return Mount.VERSION;
    }

    @Override
    public boolean isNonIdempotent(int version, int procedure) {
        return procedure == Mount.MNT || procedure == Mount.UMNT || procedure == Mount.UMNTALL;
    }

    @Override
    public XdrMessage handle(RpcCall call) throws XdrException, RpcErrorException {
        int p = call.procedure();
        if (p < 0 || p >= procedures.length) {
            throw RpcErrorException.procUnavailable(p);
        }
        return procedures[p].run(this, call);
    }

    NfsExports exports() {
        return exports;
    }

    public MountTable table() {
        return table;
    }

    /** The name a client is known by in the mount table: its address, as knfsd's rmtab has it. */
    static String host(RpcCall call) {
        return call.connection().peer().getAddress().getHostAddress();
    }
}
