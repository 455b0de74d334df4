package io.rdmagate.nfs.v4.op;

import static io.rdmagate.nfs.v4.Nfs4.*;

import io.rdmagate.nfs.v4.Compound;
import io.rdmagate.nfs.v4.Nfs4Exception;
import io.rdmagate.nfs.v4.Nfs4Op;
import io.rdmagate.nfs.v4.state.ClientRecord;
import io.rdmagate.nfs.v4.state.Nfs4State;
import io.rdmagate.oncrpc.xdr.XdrDecoder;
import io.rdmagate.oncrpc.xdr.XdrException;

/**
 * RFC 7530 §16.33 SETCLIENTID (NFSv4.0): args nfs_client_id4 (verifier, id), cb_client4 (program,
 * netaddr4), callback_ident; resok clientid and the setclientid_confirm verifier; NFS4ERR_CLID_INUSE
 * carries the callback address of the client holding the id.
 *
 * <p>The record stays unconfirmed until SETCLIENTID_CONFIRM ({@link Nfs4State#setClientId} has the
 * cases). The principal owning it is the call's, as for EXCHANGE_ID. The callback address is kept;
 * this server makes no callbacks to NFSv4.0 clients, so it hands them no delegations.
 */
public final class OpSetClientId extends Nfs4Op {
    /** netid and universal address strings at most (RFC 5665: "tcp6" and an IPv6 address with port). */
    private static final int MAX_NETADDR = 128;

    public OpSetClientId() {
        super(OP_SETCLIENTID, "SETCLIENTID");
    }

    @Override
    public void run(Compound c) throws Nfs4Exception, XdrException {
        XdrDecoder in = c.in();
        byte[] verifier = in.readFixedOpaque(NFS4_VERIFIER_SIZE);
        byte[] id = in.readOpaque(NFS4_OPAQUE_LIMIT);
        int program = in.readInt();
        String netid = in.readString(MAX_NETADDR);
        String address = in.readString(MAX_NETADDR);
        int ident = in.readInt();
        if (id.length == 0) {
            throw new Nfs4Exception(NFS4ERR_INVAL, "empty nfs_client_id4 id");
        }
        Nfs4State.SetClientId r = c.server().state().setClientId(id, verifier, OpExchangeId.principal(c),
                new ClientRecord.Callback40(program, netid, address, ident), c.server().now());
        c.out().writeHyper(r.clientId());
        c.out().writeFixedOpaque(r.confirm());
    }

    @Override
    public void failed(Compound c, Exception cause, int status) {
        if (cause instanceof Nfs4State.ClientIdInUse inUse) {
            ClientRecord.Callback40 holder = inUse.holder();
            c.out().writeString(holder == null ? "" : holder.netid());
            c.out().writeString(holder == null ? "" : holder.address());
        }
    }
}
