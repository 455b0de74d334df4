package io.rdmagate.nfs.v4.op;

import static io.rdmagate.nfs.v4.Nfs4.*;

import io.rdmagate.nfs.v4.Compound;
import io.rdmagate.nfs.v4.callback.Callbacks;
import io.rdmagate.nfs.v4.Nfs4Exception;
import io.rdmagate.nfs.v4.Nfs4Op;
import io.rdmagate.nfs.v4.Nfs4Server;
import io.rdmagate.nfs.v4.state.ClientRecord;
import io.rdmagate.nfs.v4.state.Nfs4State;
import io.rdmagate.oncrpc.rpc.AuthSys;
import io.rdmagate.oncrpc.rpc.Credentials;
import io.rdmagate.oncrpc.server.Backchannel;
import io.rdmagate.oncrpc.xdr.XdrDecoder;
import io.rdmagate.oncrpc.xdr.XdrEncoder;
import io.rdmagate.oncrpc.xdr.XdrException;

/**
 * RFC 8881 §18.36 CREATE_SESSION: args clientid, sequence, flags, fore and back channel_attrs4, callback
 * program, callback security; resok sessionid, sequence, flags, fore and back channel_attrs4.
 *
 * <p>The fore channel gets what the client asked within the server's limits: requests and replies up
 * to the largest READ or WRITE plus 8 KiB of operations, replies kept for replay up to
 * {@code maxCachedReply}, {@code maxOperations} operations, {@code maxSlots} slots. A back channel
 * is granted (CONN_BACK_CHAN kept) when the client asks for one, the connection can carry calls to
 * the client (TCP; RPC-over-RDMA with RFC 8167) and csa_sec_parms offers AUTH_NONE or AUTH_SYS
 * (RPCSEC_GSS callbacks are not made); it is then probed with CB_NULL ({@link Callbacks#probe}).
 * The back channel's attributes are echoed: the client sizes the slot table it serves, and the
 * server uses one slot of it. PERSIST is cleared. A retry of the last CREATE_SESSION gets the same
 * result (§18.36.4).
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
        int cbProgram = in.readInt();
        Credentials cbCredentials = readCallbackSecs(in);
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
        Backchannel connection = c.call().connection().backchannel();
        boolean backGranted = (flags & CREATE_SESSION4_FLAG_CONN_BACK_CHAN) != 0 && cbCredentials != null
                && connection.isOpen();
        if (backGranted) {
            created.session().back().grant(connection, cbProgram, cbCredentials, c.minor());
        }
        int start = out.position();
        out.writeFixedOpaque(created.session().id());
        out.writeInt(sequence);
        out.writeInt(flags & ~(CREATE_SESSION4_FLAG_PERSIST | (backGranted ? 0 : CREATE_SESSION4_FLAG_CONN_BACK_CHAN)));
        new ChannelAttrs(0, grant.maxRequest(), grant.maxResponse(), grant.maxCached(), grant.maxOperations(),
                grant.slots(), fore.rdmaIrd() >= 0 ? 0 : -1).write(out);
        back.write(out);
        ClientRecord client = created.session().client();
        server.state().createSessionReplied(client, out.copyRange(start, out.position()));
        if (backGranted) {
            Callbacks.probe(created.session().back());
        }
    }

    /**
     * csa_sec_parms (callback_sec_parms4 list): the first AUTH_NONE or AUTH_SYS entry as the
     * credential callbacks carry, or null when the list offers neither.
     */
    static Credentials readCallbackSecs(XdrDecoder in) throws XdrException {
        int n = in.readLength(16);
        Credentials chosen = null;
        for (int i = 0; i < n; i++) {
            Credentials c = readCallbackSec(in);
            if (chosen == null) {
                chosen = c;
            }
        }
        return chosen;
    }

    /**
     * callback_sec_parms4: AUTH_NONE, AUTH_SYS's authsys_parms (as the credential), RPCSEC_GSS's
     * gss_cb_handles4 (skipped: null).
     */
    static Credentials readCallbackSec(XdrDecoder in) throws XdrException {
        int flavor = in.readInt();
        switch (flavor) {
            case AUTH_NONE -> {
                return Credentials.NONE;
            }
            case AUTH_SYS -> {
                return AuthSys.decode(in);
            }
            case 6 -> { // RPCSEC_GSS, passed over as knfsd does (no client offers it alone)
                int service = in.readInt();
                if (service < 1 || service > 3) { // rpc_gss_svc_t: none, integrity, privacy
                    throw new XdrException("gcbp_service " + service);
                }
                in.skipOpaque(NFS4_OPAQUE_LIMIT);
                in.skipOpaque(NFS4_OPAQUE_LIMIT);
                return null;
            }
            default -> throw new XdrException("callback flavor " + flavor);
        }
    }
}
