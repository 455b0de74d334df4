package io.rdmagate.nfs.v4.op;

import static io.rdmagate.nfs.v4.Nfs4.*;

import io.rdmagate.nfs.v4.Compound;
import io.rdmagate.nfs.v4.Nfs4Exception;
import io.rdmagate.nfs.v4.Nfs4Op;
import io.rdmagate.nfs.v4.state.Nfs4State;
import io.rdmagate.oncrpc.rpc.AuthSys;
import io.rdmagate.oncrpc.xdr.XdrDecoder;
import io.rdmagate.oncrpc.xdr.XdrEncoder;
import io.rdmagate.oncrpc.xdr.XdrException;

/**
 * RFC 8881 §18.35 EXCHANGE_ID: args client_owner4, eia_flags, state_protect4_a, client impl id;
 * resok clientid, sequenceid, flags, state_protect4_r, server_owner4, server scope, impl id.
 *
 * <p>Only SP4_NONE state protection: SP4_MACH_CRED and SP4_SSV need RPCSEC_GSS, which this server
 * does not speak, and are NFS4ERR_INVAL. The principal that owns a client record is the call's
 * flavor and uid ("sys:1000"). The server offers neither pNFS nor migration (USE_NON_PNFS).
 */
public final class OpExchangeId extends Nfs4Op {
    public OpExchangeId() {
        super(OP_EXCHANGE_ID, "EXCHANGE_ID");
    }

    @Override
    public boolean sessionless() {
        return true;
    }

    @Override
    public void run(Compound c) throws Nfs4Exception, XdrException {
        XdrDecoder in = c.in();
        byte[] verifier = in.readFixedOpaque(NFS4_VERIFIER_SIZE);
        byte[] owner = in.readOpaque(NFS4_OPAQUE_LIMIT);
        int flags = in.readInt();
        int protect = in.readInt();
        if (protect != SP4_NONE) {
            throw new Nfs4Exception(NFS4ERR_INVAL, "state protection " + protect + " needs RPCSEC_GSS");
        }
        int impls = in.readLength(1);
        for (int i = 0; i < impls; i++) {
            in.skipOpaque(NFS4_OPAQUE_LIMIT); // nii_domain
            in.skipOpaque(NFS4_OPAQUE_LIMIT); // nii_name
            in.skip(12); // nii_date
        }
        if ((flags & ~EXCHGID4_FLAG_MASK_A) != 0) {
            throw new Nfs4Exception(NFS4ERR_INVAL, "eia_flags " + Integer.toHexString(flags));
        }
        if (owner.length == 0) {
            throw new Nfs4Exception(NFS4ERR_INVAL, "empty co_ownerid");
        }
        Nfs4State.Exchange x = c.server().state().exchangeId(owner, verifier, principal(c),
                (flags & EXCHGID4_FLAG_UPD_CONFIRMED_REC_A) != 0, c.server().now());
        XdrEncoder out = c.out();
        out.writeHyper(x.clientId());
        out.writeInt(x.sequence());
        out.writeInt(EXCHGID4_FLAG_USE_NON_PNFS | (x.confirmed() ? EXCHGID4_FLAG_CONFIRMED_R : 0));
        out.writeInt(SP4_NONE);
        out.writeHyper(0); // so_minor_id
        out.writeOpaque(c.server().serverOwner()); // so_major_id
        out.writeOpaque(c.server().serverOwner()); // eir_server_scope
        out.writeInt(0); // no eir_server_impl_id
    }

    /** The principal of a call: its flavor and, for AUTH_SYS, its uid. */
    static String principal(Compound c) {
        return c.call().credentials() instanceof AuthSys sys ? "sys:" + sys.uid()
                : "flavor:" + c.call().credentials().flavor();
    }
}
