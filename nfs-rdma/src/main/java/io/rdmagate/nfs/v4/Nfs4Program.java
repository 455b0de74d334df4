package io.rdmagate.nfs.v4;

import io.rdmagate.nfs.ConnectionAccounts;
import io.rdmagate.oncrpc.server.Connection;
import io.rdmagate.oncrpc.server.RpcCall;
import io.rdmagate.oncrpc.server.RpcErrorException;
import io.rdmagate.oncrpc.server.RpcProgram;
import io.rdmagate.oncrpc.xdr.XdrException;
import io.rdmagate.oncrpc.xdr.XdrMessage;

/**
 * NFS version 4 (RFC 8881 §16), program 100003 version 4: NULL and COMPOUND. One per transport,
 * over the transport's pool account; every one shares the {@link Nfs4Server}. COMPOUNDs bypass the
 * duplicate request cache: NFSv4.1 keeps replies per session slot instead (§2.10.6).
 */
public final class Nfs4Program implements RpcProgram {
    private final Nfs4Server server;
    private final ConnectionAccounts accounts;
    private final io.rdmagate.vfs.memory.PayloadCopies copies;

    public Nfs4Program(Nfs4Server server, ConnectionAccounts accounts, io.rdmagate.vfs.memory.PayloadCopies copies) {
        this.server = server;
        this.accounts = accounts;
        this.copies = copies;
    }

    @Override
    public int program() {
        return Nfs4.PROGRAM;
    }

    @Override
    public String name() {
        return "nfs4";
    }

    @Override
    public int lowVersion() {
        return Nfs4.VERSION;
    }

    @Override
    public int highVersion() {
        return Nfs4.VERSION;
    }

    @Override
    public XdrMessage handle(RpcCall call) throws XdrException, RpcErrorException {
        return switch (call.procedure()) {
            case Nfs4.PROC_NULL -> call.success().finish();
            case Nfs4.PROC_COMPOUND -> Compound.serve(server, call, accounts, copies);
            default -> throw RpcErrorException.procUnavailable(call.procedure());
        };
    }

    @Override
    public void connectionOpened(Connection connection) {
        accounts.opened(connection);
    }

    @Override
    public void connectionClosed(Connection connection) {
        accounts.closed(connection);
    }
}
