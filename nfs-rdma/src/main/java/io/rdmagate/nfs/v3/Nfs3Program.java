package io.rdmagate.nfs.v3;

import io.rdmagate.nfs.ConnectionAccounts;
import io.rdmagate.nfs.NfsExports;
import io.rdmagate.oncrpc.server.RpcCall;
import io.rdmagate.oncrpc.server.RpcErrorException;
import io.rdmagate.oncrpc.server.RpcProgram;
import io.rdmagate.oncrpc.xdr.XdrException;
import io.rdmagate.oncrpc.xdr.XdrMessage;
import io.rdmagate.vfs.memory.PayloadCopies;

/**
 * NFS version 3 (RFC 1813), program 100003: dispatches each procedure number to its class. A
 * number past COMMIT is PROC_UNAVAIL (RFC 5531 §9).
 */
public final class Nfs3Program implements RpcProgram {
    private final NfsExports exports;
    private final ConnectionAccounts accounts;
    private final PayloadCopies copies;
    private final int maxIoSize;
    private final Nfs3Procedure[] procedures = {
        new Nfs3Null(), new Nfs3Getattr(), new Nfs3Setattr(), new Nfs3Lookup(), new Nfs3Access(),
        new Nfs3Readlink(), new Nfs3Read(), new Nfs3Write(), new Nfs3Create(), new Nfs3Mkdir(),
        new Nfs3Symlink(), new Nfs3Mknod(), new Nfs3Remove(), new Nfs3Rmdir(), new Nfs3Rename(),
        new Nfs3Link(), new Nfs3Readdir(), new Nfs3Readdirplus(), new Nfs3Fsstat(), new Nfs3Fsinfo(),
        new Nfs3Pathconf(), new Nfs3Commit(),
    };

    /** @param maxIoSize the largest READ and WRITE (FSINFO rtmax/wtmax) */
    public Nfs3Program(NfsExports exports, ConnectionAccounts accounts, PayloadCopies copies, int maxIoSize) {
        this.exports = exports;
        this.accounts = accounts;
        this.copies = copies;
        this.maxIoSize = maxIoSize;
        for (int i = 0; i < procedures.length; i++) {
            if (procedures[i].number() != i) {
                throw new IllegalStateException("procedure table out of order at " + i);
            }
        }
    }

    @Override
    public int program() {
        return Nfs3.PROGRAM;
    }

    @Override
    public String name() {
        return "nfs";
    }

    @Override
    public int lowVersion() {
        return Nfs3.VERSION;
    }

    @Override
    public int highVersion() {
        return Nfs3.VERSION;
    }

    @Override
    public boolean isNonIdempotent(int version, int procedure) {
        return procedure >= 0 && procedure < procedures.length && procedures[procedure].nonIdempotent();
    }

    @Override
    public XdrMessage handle(RpcCall call) throws XdrException, RpcErrorException {
        int p = call.procedure();
        if (p < 0 || p >= procedures.length) {
            throw RpcErrorException.procUnavailable(p);
        }
        return procedures[p].run(new Nfs3Request(this, call));
    }

    NfsExports exports() {
        return exports;
    }

    @Override
    public void connectionOpened(io.rdmagate.oncrpc.server.Connection connection) {
        accounts.opened(connection);
    }

    @Override
    public void connectionClosed(io.rdmagate.oncrpc.server.Connection connection) {
        accounts.closed(connection);
    }

    ConnectionAccounts accounts() {
        return accounts;
    }

    PayloadCopies copies() {
        return copies;
    }

    int maxIoSize() {
        return maxIoSize;
    }
}
