package io.rdmagate.nfs.v4.op;

import static io.rdmagate.nfs.v4.Nfs4.*;

import io.rdmagate.nfs.v4.Compound;
import io.rdmagate.nfs.v4.Nfs4Exception;
import io.rdmagate.nfs.v4.Nfs4Op;
import io.rdmagate.nfs.v4.Nfs4Server;
import io.rdmagate.nfs.v4.state.ClientRecord;
import io.rdmagate.nfs.v4.state.Nfs4State;
import io.rdmagate.oncrpc.xdr.XdrDecoder;
import io.rdmagate.oncrpc.xdr.XdrEncoder;
import io.rdmagate.oncrpc.xdr.XdrException;

/**
 * RFC 8881 §18.36 CREATE_SESSION: args clientid, sequence, flags, fore and back channel_attrs4, callback
 * program, callback security; resok sessionid, sequence, flags, fore and back channel_attrs4.
 *
 * <p>The fore channel gets what the client asked within the server's limits: requests and replies up
 * to the largest READ or WRITE plus 8 KiB of operations, replies kept for replay up to
 * {@code maxCachedReply}, {@code maxOperations} operations, {@code maxSlots} slots. No back channel is
 * offered yet (CONN_BACK_CHAN and PERSIST are cleared, so the client expects no callbacks and the
 * server hands out no delegations); the back channel's attributes are echoed. A retry of the last
 * CREATE_SESSION gets the same result (§18.36.4).
 */
public final class OpCreateSession extends Nfs4Op {
    private static final int OP_HEADROOM = 8192;

    public OpCreateSession() {
        super(OP_CREATE_SESSION, "CREATE_SESSION");
    }

    @Override
    public boolean sessionless() {
        return true;
    }

    @Override
    public void run(Compound c) throws Nfs4Exception, XdrException {
        XdrDecoder in = c.in();
        long clientId = in.readHyper();
        int sequence = in.readInt();
        int flags = in.readInt();
        ChannelAttrs fore = ChannelAttrs.read(in);
        ChannelAttrs back = ChannelAttrs.read(in);
        in.readInt(); // csa_cb_program: no callbacks yet
        int secParms = in.readLength(16);
        for (int i = 0; i < secParms; i++) {
            skipCallbackSec(in);
        }
        Nfs4Server server = c.server();
        Nfs4Server.Options o = server.options();
        if (fore.maxRequests() == 0) {
            throw new Nfs4Exception(NFS4ERR_INVAL, "ca_maxrequests 0");
        }
        int io = server.maxIoSize() + OP_HEADROOM;
        Nfs4State.ChannelGrant grant = new Nfs4State.ChannelGrant(ChannelAttrs.min(fore.maxRequest(), io),
                ChannelAttrs.min(fore.maxResponse(), io), ChannelAttrs.min(fore.maxResponseCached(), o.maxCachedReply()),
                ChannelAttrs.min(fore.maxOperations(), o.maxOperations()), ChannelAttrs.min(fore.maxRequests(), o.maxSlots()));
        String principal = OpExchangeId.principal(c);
        Nfs4State.Created created = server.state().createSession(clientId, sequence, principal, grant);
        XdrEncoder out = c.out();
        if (created.replay() != null) {
            out.writeFixedOpaque(created.replay());
            return;
        }
        int start = out.position();
        out.writeFixedOpaque(created.session().id());
        out.writeInt(sequence);
        out.writeInt(flags & ~(CREATE_SESSION4_FLAG_PERSIST | CREATE_SESSION4_FLAG_CONN_BACK_CHAN));
        new ChannelAttrs(0, grant.maxRequest(), grant.maxResponse(), grant.maxCached(), grant.maxOperations(),
                grant.slots(), fore.rdmaIrd() >= 0 ? 0 : -1).write(out);
        back.write(out);
        ClientRecord client = created.session().client();
        server.state().createSessionReplied(client, out.copyRange(start, out.position()));
    }

    /** callback_sec_parms4: AUTH_NONE, AUTH_SYS's authsys_parms, RPCSEC_GSS's gss_cb_handles4. */
    static void skipCallbackSec(XdrDecoder in) throws XdrException {
        int flavor = in.readInt();
        switch (flavor) {
            case AUTH_NONE -> {
            }
            case AUTH_SYS -> {
                in.readInt(); // stamp
                in.skipOpaque(255); // machine name
                in.readInt(); // uid
                in.readInt(); // gid
                int gids = in.readLength(16);
                in.skip(4 * gids);
            }
            case 6 -> { // RPCSEC_GSS
                in.readInt(); // service
                in.skipOpaque(NFS4_OPAQUE_LIMIT);
                in.skipOpaque(NFS4_OPAQUE_LIMIT);
            }
            default -> throw new XdrException("callback flavor " + flavor);
        }
    }
}
