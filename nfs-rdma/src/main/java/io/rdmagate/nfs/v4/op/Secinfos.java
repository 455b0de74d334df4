package io.rdmagate.nfs.v4.op;

import static io.rdmagate.nfs.v4.Nfs4.*;

import io.rdmagate.oncrpc.xdr.XdrEncoder;

/** SECINFO4resok (RFC 8881 §18.29): the flavors this server takes, AUTH_SYS only (no RPCSEC_GSS yet). */
final class Secinfos {
    private Secinfos() {
    }

    static void write(XdrEncoder out) {
        out.writeInt(1);
        out.writeInt(AUTH_SYS);
    }
}
