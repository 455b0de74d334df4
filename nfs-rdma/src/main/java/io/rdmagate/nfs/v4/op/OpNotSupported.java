package io.rdmagate.nfs.v4.op;

import static io.rdmagate.nfs.v4.Nfs4.*;

import io.rdmagate.nfs.v4.Compound;
import io.rdmagate.nfs.v4.Nfs4Exception;
import io.rdmagate.nfs.v4.Nfs4Op;

/**
 * An operation of NFSv4.1 this server does not perform: NFS4ERR_NOTSUPP. Among them the NFSv4.0
 * operations NFSv4.1 servers must not implement (SETCLIENTID, SETCLIENTID_CONFIRM, RENEW,
 * OPEN_CONFIRM, RELEASE_LOCKOWNER: "MNI" in RFC 8881 §17) and pNFS's (no layout types are offered).
 */
public final class OpNotSupported extends Nfs4Op {
    public OpNotSupported(int number) {
        super(number, "OP" + number);
    }

    @Override
    public void run(Compound c) throws Nfs4Exception {
        throw new Nfs4Exception(NFS4ERR_NOTSUPP, "operation " + number() + " is not supported");
    }
}
