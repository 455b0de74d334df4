package io.rdmagate.nfs.v3;

import io.rdmagate.oncrpc.xdr.XdrMessage;

/** RFC 1813 §3.3.0 NULL: no arguments, no results; clients ping with it. */
public final class Nfs3Null extends Nfs3Procedure {
    public Nfs3Null() {
        super(Nfs3.NULL, "NULL", false);
    }

    @Override
    public XdrMessage run(Nfs3Request r) {
        return r.call().success().finish();
    }
}
