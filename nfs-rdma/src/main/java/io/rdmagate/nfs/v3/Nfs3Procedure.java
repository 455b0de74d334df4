package io.rdmagate.nfs.v3;

import io.rdmagate.oncrpc.xdr.XdrException;
import io.rdmagate.oncrpc.xdr.XdrMessage;

/**
 * One RFC 1813 procedure, as nfs4j has one class per operation. {@link #run} first decodes every
 * argument (an {@link XdrException} then becomes GARBAGE_ARGS before any reply is built), then
 * acts on the vfs and encodes the whole result, resok or resfail, itself.
 */
public abstract class Nfs3Procedure {
    private final int number;
    private final String name;
    private final boolean nonIdempotent;

    protected Nfs3Procedure(int number, String name, boolean nonIdempotent) {
        this.number = number;
        this.name = name;
        this.nonIdempotent = nonIdempotent;
    }

    public final int number() {
        return number;
    }

    public final String name() {
        return name;
    }

    /** Whether a retransmission must get the first reply from the duplicate request cache. */
    public final boolean nonIdempotent() {
        return nonIdempotent;
    }

    public abstract XdrMessage run(Nfs3Request r) throws XdrException;
}
