package io.rdmagate.nfs.v4;

import io.rdmagate.oncrpc.xdr.XdrException;
import io.rdmagate.vfs.VfsException;

/**
 * One RFC 8881 §18 operation, as nfs4j has one class per operation. {@link #run} decodes the
 * operation's arguments from the COMPOUND, acts, and writes its resok after the NFS4_OK the
 * {@link Compound} wrote; it throws for any failure, and what it wrote is then taken back and
 * replaced by the failure's status.
 */
public abstract class Nfs4Op {
    private final int number;
    private final String name;

    protected Nfs4Op(int number, String name) {
        this.number = number;
        this.name = name;
    }

    public final int number() {
        return number;
    }

    public final String name() {
        return name;
    }

    /**
     * Whether the operation may open a COMPOUND without SEQUENCE, as its only operation (RFC 8881
     * §2.10.6.2: EXCHANGE_ID, CREATE_SESSION, DESTROY_SESSION, BIND_CONN_TO_SESSION, DESTROY_CLIENTID).
     */
    public boolean sessionless() {
        return false;
    }

    public abstract void run(Compound c) throws Nfs4Exception, VfsException, XdrException;

    /**
     * Writes what the operation's result carries after a failure status (SETATTR's attrsset, LOCK's
     * holder); most carry nothing.
     */
    public void failed(Compound c, Exception cause, int status) {
    }
}
