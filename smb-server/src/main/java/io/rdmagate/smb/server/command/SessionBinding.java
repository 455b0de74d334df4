package io.rdmagate.smb.server.command;

import io.rdmagate.smb.mserref.NtStatus;
import io.rdmagate.smb.msnlmp.NtlmException;
import io.rdmagate.smb.msnlmp.NtlmServer;
import io.rdmagate.smb.msspng.Spnego;
import io.rdmagate.smb.msspng.SpnegoException;
import io.rdmagate.smb.mssmb2.NegotiateContext;
import io.rdmagate.smb.mssmb2.Smb2Dialect;
import io.rdmagate.smb.mssmb2.Smb2Header;
import io.rdmagate.smb.mssmb2.Smb2SessionSetup;
import io.rdmagate.smb.mssmb2.crypto.PreauthIntegrity;
import io.rdmagate.smb.mssmb2.crypto.Smb2Cipher;
import io.rdmagate.smb.mssmb2.crypto.Smb2Kdf;
import io.rdmagate.smb.mssmb2.crypto.Smb2Signer;
import io.rdmagate.smb.server.Ctx;
import io.rdmagate.smb.server.SmbConnection;
import io.rdmagate.smb.server.SmbException;
import io.rdmagate.smb.server.SmbSession;
import io.rdmagate.smb.server.SmbUser;
import java.nio.ByteBuffer;

/**
 * SESSION_SETUP with SMB2_SESSION_FLAG_BINDING (MS-SMB2 3.3.5.5, 3.3.5.5.2, 3.3.5.5.3): a new
 * connection of the same client joins an existing session as another channel (multichannel).
 *
 * <p>Operation: the session is found globally; the request must be signed with the session's key
 * and come on a connection of the session's dialect, cipher and a compatible signing algorithm; the
 * session must be valid, not anonymous or guest, and not bound here already. Then the same user
 * authenticates again (NTLMv2 in SPNEGO) on this connection; every response until the last is
 * signed with the session's key. The new channel signs with a key derived from this
 * authentication's session key — for 3.1.1 with the preauth hash of this connection's NEGOTIATE
 * and the binding's requests and interim responses (the final response excluded) — and the final
 * response is signed with it. A failed binding leaves the session as it was.
 */
public final class SessionBinding {
    private SessionBinding() {
    }

    /** A binding in progress on one connection (its PreauthSession entry and NTLM exchange). */
    public static final class InProgress {
        final PreauthIntegrity preauth;
        NtlmServer ntlm;
        byte[] mechTypes;

        InProgress(PreauthIntegrity preauth) {
            this.preauth = preauth;
        }
    }

    /** The signing algorithm of a connection's sessions: 3.1.1's negotiated one, AES-CMAC for 3.0.x, HMAC-SHA256 for 2.x. */
    private static int signingAlgorithm(SmbConnection c) {
        return c.dialect() == Smb2Dialect.SMB_3_1_1 ? c.signingAlgorithm
                : Smb2Dialect.is3(c.dialect()) ? NegotiateContext.SIGNING_AES_CMAC : NegotiateContext.SIGNING_HMAC_SHA256;
    }

    static void handle(Ctx c, Smb2SessionSetup.Request req) throws SmbException {
        SmbConnection conn = c.conn;
        long sid = Smb2Header.sessionId(c.msg);
        SmbSession s = sid == 0 ? null : c.server.globalSession(sid);
        if (s != null && s.hasSigner()) {
            c.reply.signWith = s; // refusals are signed with the session's key, so the client can trust them
        }
        if (sid == 0) {
            throw new SmbException(NtStatus.INVALID_PARAMETER, "binding to SessionId 0");
        }
        if (s == null) {
            throw new SmbException(NtStatus.USER_SESSION_DELETED, "binding to no session " + sid);
        }
        // the signing algorithms first, as Samba answers: a GMAC session binds only GMAC channels
        SmbConnection first = s.firstChannel();
        int ours = signingAlgorithm(conn);
        int theirs = signingAlgorithm(first);
        if (theirs == NegotiateContext.SIGNING_AES_GMAC && ours != theirs) {
            throw new SmbException(NtStatus.REQUEST_OUT_OF_SEQUENCE, "session signs with AES-GMAC");
        }
        if (ours == NegotiateContext.SIGNING_AES_GMAC && ours != theirs) {
            throw new SmbException(NtStatus.NOT_SUPPORTED, "AES-GMAC channel of a session that does not sign with it");
        }
        if (!Smb2Dialect.is3(conn.dialect()) || !c.server.config().multichannel().enabled()) {
            throw new SmbException(NtStatus.REQUEST_NOT_ACCEPTED, "binding on dialect 0x"
                    + Integer.toHexString(conn.dialect()) + (c.server.config().multichannel().enabled() ? "" : ": multichannel is off"));
        }
        if (!Smb2Header.isSigned(c.msg)) {
            throw new SmbException(NtStatus.INVALID_PARAMETER, "unsigned binding request");
        }
        if (!s.verifyOn(conn, c.msg)) {
            c.reply.signWith = null; // 3.3.5.2.4: a request that does not verify gets an unsigned refusal
            throw new SmbException(NtStatus.ACCESS_DENIED, "binding request does not verify with the session's key");
        }
        if (conn.dialect() == Smb2Dialect.SMB_3_1_1 && first.dialect() == Smb2Dialect.SMB_3_1_1
                && conn.cipherId != first.cipherId) {
            throw new SmbException(NtStatus.INVALID_PARAMETER, "cipher differs from the session's");
        }
        if (conn.dialect() != first.dialect()) {
            throw new SmbException(NtStatus.INVALID_PARAMETER, "dialect differs from the session's");
        }
        if (s.state() == SmbSession.State.IN_PROGRESS) {
            throw new SmbException(NtStatus.REQUEST_NOT_ACCEPTED, "session still being set up");
        }
        if (s.state() == SmbSession.State.EXPIRED) {
            throw new SmbException(NtStatus.NETWORK_SESSION_EXPIRED, "session expired");
        }
        if (s.isGuest()) {
            throw new SmbException(NtStatus.NOT_SUPPORTED, "anonymous or guest session");
        }
        if (s.boundTo(conn)) {
            throw new SmbException(NtStatus.REQUEST_NOT_ACCEPTED, "session already bound to this connection");
        }
        int max = c.server.config().multichannel().maxChannels();
        if (s.channels().size() >= max) {
            throw new SmbException(NtStatus.INSUFFICIENT_RESOURCES, "session has " + max + " channels already");
        }
        c.reply.sessionIdOverride(sid);
        boolean is311 = conn.dialect() == Smb2Dialect.SMB_3_1_1;
        try {
            Spnego.ClientToken token = Spnego.parse(req.securityBuffer());
            if (token.mechs() != null && !java.util.Arrays.equals(token.mechs().get(0), Spnego.NTLMSSP_OID)) {
                // a channel is bound with NTLMSSP; a client refused here goes on with the channels it has
                throw new SmbException(NtStatus.NOT_SUPPORTED, "binding a channel with a mechanism other than NTLMSSP");
            }
            byte[] ntlm = token.mechToken();
            if (ntlm == null || ntlm.length < 12) {
                throw new SmbException(NtStatus.INVALID_PARAMETER, "no NTLMSSP token");
            }
            int type = ntlm[8];
            if (type == 1) {
                InProgress b = new InProgress(conn.preauth.copy());
                conn.bindings.put(sid, b);
                if (is311) {
                    b.preauth.update(c.msg);
                }
                b.mechTypes = token.mechTypes();
                b.ntlm = new NtlmServer(c.server.config().serverName(), c.server.config().domain(), c.server.random());
                byte[] challenge = b.ntlm.challenge(ntlm);
                byte[] out = token.raw() ? challenge : Spnego.response(Spnego.ACCEPT_INCOMPLETE, true, challenge, null);
                write(c, 0, out);
                c.reply.status(NtStatus.MORE_PROCESSING_REQUIRED);
                if (is311) {
                    c.reply.afterBuild = b.preauth::update;
                }
                return;
            }
            InProgress b = conn.bindings.remove(sid);
            if (type != 3 || b == null) {
                throw new SmbException(NtStatus.INVALID_PARAMETER, "NTLMSSP message type " + type + " out of order");
            }
            if (is311) {
                b.preauth.update(c.msg); // the final request closes the hash; its response stays out
            }
            complete(c, s, b, token, ntlm, is311);
        } catch (SpnegoException e) {
            conn.bindings.remove(sid);
            throw new SmbException(NtStatus.INVALID_PARAMETER, e.getMessage());
        } catch (NtlmException e) {
            conn.bindings.remove(sid);
            if (e.malformed()) {
                throw new SmbException(NtStatus.INVALID_PARAMETER, e.getMessage());
            }
            c.server.throttle().failed(conn.client());
            throw new SmbException(NtStatus.LOGON_FAILURE, e.getMessage());
        }
    }

    private static void complete(Ctx c, SmbSession s, InProgress b, Spnego.ClientToken token, byte[] msg, boolean is311)
            throws NtlmException, SmbException {
        SmbConnection conn = c.conn;
        NtlmServer.Result r = b.ntlm.authenticate(msg, name -> {
            SmbUser u = c.server.config().user(name);
            return u == null ? null : u.ntHash();
        });
        // 3.3.5.5.3: only the session's own user may add a channel to it
        if (r.anonymous() || s.user() == null || !s.user().name().equalsIgnoreCase(r.user())) {
            throw new SmbException(NtStatus.ACCESS_DENIED, "binding authenticated another user");
        }
        byte[] serverMic = null;
        if (token.mechListMic() != null && b.mechTypes != null) {
            if (!b.ntlm.verifyMic(b.mechTypes, token.mechListMic())) {
                throw new NtlmException("SPNEGO mechListMIC does not verify", false);
            }
            serverMic = b.ntlm.mic(b.mechTypes);
        }
        int cipher = conn.cipherId;
        Smb2Kdf.Keys k = Smb2Kdf.serverKeys(r.sessionKey(), is311, is311 ? b.preauth.value() : null,
                cipher == 0 ? 128 : Smb2Cipher.keyBits(cipher));
        int algorithm = is311 ? conn.signingAlgorithm : NegotiateContext.SIGNING_AES_CMAC;
        Smb2Signer signer = switch (algorithm) {
            case NegotiateContext.SIGNING_AES_GMAC -> Smb2Signer.aesGmac(k.signing());
            case NegotiateContext.SIGNING_HMAC_SHA256 -> Smb2Signer.hmacSha256(k.signing());
            default -> Smb2Signer.aesCmac(k.signing());
        };
        conn.bindSession(s, signer); // the encryption keys stay the session's
        c.server.throttle().succeeded(conn.client());
        byte[] out = token.raw() ? new byte[0] : Spnego.response(Spnego.ACCEPT_COMPLETED, false, null, serverMic);
        write(c, s.encryptData ? Smb2SessionSetup.SESSION_FLAG_ENCRYPT_DATA : 0, out);
        c.reply.signWith = s; // now the channel's key (3.3.4.1.1)
    }

    private static void write(Ctx c, int flags, byte[] token) {
        ByteBuffer b = c.reply.body(9 + token.length);
        c.reply.length(Smb2SessionSetup.write(b, flags, token));
    }
}
