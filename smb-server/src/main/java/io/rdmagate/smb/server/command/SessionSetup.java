package io.rdmagate.smb.server.command;

import io.rdmagate.gateway.spi.log.RateLimitedLog;
import io.rdmagate.gateway.spi.security.KerberosException;
import io.rdmagate.smb.mserref.NtStatus;
import io.rdmagate.smb.msnlmp.NtlmException;
import io.rdmagate.smb.msnlmp.NtlmServer;
import io.rdmagate.smb.msspng.Spnego;
import io.rdmagate.smb.msspng.SpnegoException;
import io.rdmagate.smb.mssmb2.NegotiateContext;
import io.rdmagate.smb.mssmb2.Smb2DecodeException;
import io.rdmagate.smb.mssmb2.Smb2Dialect;
import io.rdmagate.smb.mssmb2.Smb2Header;
import io.rdmagate.smb.mssmb2.Smb2SessionSetup;
import io.rdmagate.smb.mssmb2.crypto.Smb2Cipher;
import io.rdmagate.smb.mssmb2.crypto.Smb2Kdf;
import io.rdmagate.smb.mssmb2.crypto.Smb2Signer;
import io.rdmagate.smb.server.Command;
import io.rdmagate.smb.server.Ctx;
import io.rdmagate.smb.server.SmbConnection;
import io.rdmagate.smb.server.SmbException;
import io.rdmagate.smb.server.SmbKerberos;
import io.rdmagate.smb.server.SmbServerConfig;
import io.rdmagate.smb.server.SmbSession;
import io.rdmagate.smb.server.SmbUser;
import java.nio.ByteBuffer;

/**
 * SESSION_SETUP (MS-SMB2 3.3.5.5): through SPNEGO, Kerberos (an AP-REQ for the gateway's cifs
 * principal, when configured) or NTLMv2 against the configured users; on success the signing and
 * encryption keys of the dialect (3.3.5.5.3). A failed logon is STATUS_LOGON_FAILURE, answered
 * only after the client's throttle delay.
 */
public final class SessionSetup implements Command {
    @Override
    public Needs needs() {
        return Needs.NOTHING;
    }

    @Override
    public void handle(Ctx c) throws SmbException, Smb2DecodeException {
        SmbConnection conn = c.conn;
        Smb2SessionSetup.Request req = Smb2SessionSetup.decode(c.msg);
        if ((req.flags() & Smb2SessionSetup.FLAG_BINDING) != 0) {
            SessionBinding.handle(c, req); // MS-SMB2 3.3.5.5.2: another channel of an existing session
            return;
        }
        long sid = Smb2Header.sessionId(c.msg);
        SmbSession s;
        boolean is311 = conn.dialect() == Smb2Dialect.SMB_3_1_1;
        if (sid == 0) {
            s = conn.newSession();
        } else {
            s = conn.sessions.get(sid);
            if (s == null) {
                SmbSession other = c.server.globalSession(sid);
                if (other != null && other.hasSigner()) {
                    c.reply.signWith = other; // MS-SMB2 3.3.5.5: found globally, so the refusal is signed
                }
            }
            if (s == null || s.state() == SmbSession.State.EXPIRED) {
                throw new SmbException(NtStatus.USER_SESSION_DELETED, "no session " + sid);
            }
        }
        c.reply.sessionIdOverride(s.id());
        boolean reauth = s.state() == SmbSession.State.VALID;
        if (reauth && s.hasSigner() && !c.encrypted()) {
            // 3.3.5.2.4: a re-authentication is verified with this channel's key like any request
            // (an encrypted one was verified when it was decrypted, 3.3.5.2.1.1)
            boolean signed = Smb2Header.isSigned(c.msg);
            if (signed ? !s.verifyOn(conn, c.msg) : s.signingRequired) {
                throw new SmbException(NtStatus.ACCESS_DENIED, signed ? "re-authentication does not verify"
                        : "unsigned re-authentication of a session that requires signing");
            }
        }
        if (s.state() == SmbSession.State.IN_PROGRESS && is311) {
            s.preauth.update(c.msg);
        }
        try {
            Spnego.ClientToken token = Spnego.parse(req.securityBuffer());
            if (token.mechTypes() != null) {
                s.mechTypes = token.mechTypes();
                s.mech = Spnego.choose(token.mechs(), c.server.config().kerberos() != null);
                if (s.mech == null) {
                    throw new SpnegoException("the client offers no mechanism the server has"
                            + (c.server.config().kerberos() == null ? " (Kerberos is not configured)" : ""));
                }
                if (!java.util.Arrays.equals(s.mech, token.mechs().get(0))) {
                    // RFC 4178 3.2: the optimistic token (if any) was for another mechanism; the client starts again
                    write(c, 0, Spnego.response(Spnego.ACCEPT_INCOMPLETE, s.mech, null, null));
                    c.reply.status(NtStatus.MORE_PROCESSING_REQUIRED);
                    afterChallenge(c, s, is311);
                    return;
                }
            }
            if (s.mech != null && Spnego.isKerberos(s.mech) && !token.raw()) {
                kerberos(c, s, req, token);
                return;
            }
            byte[] ntlm = token.mechToken();
            if (ntlm == null || ntlm.length < 12) {
                throw new SmbException(NtStatus.INVALID_PARAMETER, "no NTLMSSP token");
            }
            int type = ntlm[8];
            if (type == 1) {
                s.ntlm = new NtlmServer(c.server.config().serverName(), c.server.config().domain(), c.server.random());
                byte[] challenge = s.ntlm.challenge(ntlm);
                byte[] out = token.raw() ? challenge : Spnego.response(Spnego.ACCEPT_INCOMPLETE, true, challenge, null);
                write(c, 0, out);
                c.reply.status(NtStatus.MORE_PROCESSING_REQUIRED);
                afterChallenge(c, s, is311);
                return;
            }
            if (type != 3 || s.ntlm == null) {
                throw new SmbException(NtStatus.INVALID_PARAMETER, "NTLMSSP message type " + type + " out of order");
            }
            authenticate(c, s, req, token, ntlm);
        } catch (SpnegoException e) {
            end(conn, s, reauth);
            throw new SmbException(NtStatus.INVALID_PARAMETER, e.getMessage());
        } catch (NtlmException e) {
            end(conn, s, reauth);
            if (e.malformed()) {
                throw new SmbException(NtStatus.INVALID_PARAMETER, e.getMessage());
            }
            logonFailure(c, s, e.getMessage());
            c.server.throttle().failed(conn.client());
            throw new SmbException(NtStatus.LOGON_FAILURE, e.getMessage());
        } catch (KerberosException e) {
            end(conn, s, reauth);
            logonFailure(c, s, "Kerberos: " + e.getMessage());
            c.server.throttle().failed(conn.client());
            throw new SmbException(NtStatus.LOGON_FAILURE, e.getMessage());
        } catch (SmbException e) {
            if (s.state() == SmbSession.State.IN_PROGRESS) {
                conn.dropSession(s);
            }
            throw e;
        }
    }

    /** 3.1.1: a response that continues the exchange enters the session's preauth hash. */
    private static void afterChallenge(Ctx c, SmbSession s, boolean is311) {
        if (is311 && s.state() == SmbSession.State.IN_PROGRESS) {
            c.reply.afterBuild = m -> s.preauth.update(m);
        }
    }

    /**
     * A failed setup ends the session (MS-SMB2 3.3.5.5.3); a failed re-authentication ends it on
     * every channel, which keep it as expired so later requests get a signed USER_SESSION_DELETED.
     */
    private static void end(SmbConnection conn, SmbSession s, boolean reauth) {
        if (reauth) {
            conn.expireSession(s);
        } else {
            conn.dropSession(s);
        }
    }

    /** A failed logon is logged with the user and domain the client named and its address, rate-limited per address. */
    private static void logonFailure(Ctx c, SmbSession s, String why) {
        String client = c.conn.client().getHostAddress();
        String user = s.ntlm == null ? s.krb5Client : s.ntlm.attemptedUser();
        String domain = s.ntlm == null ? null : s.ntlm.attemptedDomain();
        c.server.denials().log(RateLimitedLog.Level.WARN, client, "SMB logon failure: user {} domain {} from {}: {}",
                user == null || user.isEmpty() ? "(anonymous)" : user, domain == null || domain.isEmpty() ? "-" : domain,
                client, why);
    }

    private static void write(Ctx c, int flags, byte[] token) {
        ByteBuffer b = c.reply.body(9 + token.length);
        c.reply.length(Smb2SessionSetup.write(b, flags, token));
    }

    private void authenticate(Ctx c, SmbSession s, Smb2SessionSetup.Request req, Spnego.ClientToken token, byte[] msg)
            throws NtlmException, SmbException {
        SmbServerConfig cfg = c.server.config();
        NtlmServer.Result r = s.ntlm.authenticate(msg, name -> {
            SmbUser u = cfg.user(name);
            return u == null ? null : u.ntHash();
        });
        SmbUser user;
        boolean anonymous = r.anonymous();
        if (anonymous) {
            if (cfg.guest() == null) {
                throw new NtlmException("anonymous logon refused: no guest account", false);
            }
            user = cfg.guest();
        } else {
            user = cfg.user(r.user());
        }
        byte[] serverMic = null;
        if (token.mechListMic() != null && s.mechTypes != null && !anonymous) {
            if (!s.ntlm.verifyMic(s.mechTypes, token.mechListMic())) {
                throw new NtlmException("SPNEGO mechListMIC does not verify", false);
            }
            serverMic = s.ntlm.mic(s.mechTypes);
        }
        byte[] out = token.raw() ? new byte[0] : Spnego.response(Spnego.ACCEPT_COMPLETED, false, null, serverMic);
        establish(c, s, req, user, anonymous, r.sessionKey(), r.domain() + "\\" + (anonymous ? "(anonymous)" : r.user()), out);
        s.expiresAt(java.util.OptionalLong.empty()); // an NTLM logon has no end
    }

    /**
     * Kerberos (MS-KILE 3.4.5.1 through SPNEGO): the AP-REQ is verified with the keytab's key of
     * the gateway's principal; the AP-REP goes back when the client asked for mutual
     * authentication. The session key is the context key, which for a client that sent an
     * authenticator subkey (MIT, Heimdal, Windows) is that subkey: the gateway makes no acceptor
     * subkey, so every client derives the same key, also cifs.upcall, which reads no AP-REP.
     */
    private void kerberos(Ctx c, SmbSession s, Smb2SessionSetup.Request req, Spnego.ClientToken token)
            throws KerberosException, SmbException {
        SmbKerberos krb = c.server.config().kerberos();
        byte[] apReq = token.mechToken();
        if (apReq == null) {
            // the client named Kerberos first but sent no token yet: it sends the AP-REQ next (RFC 4178 3.2)
            write(c, 0, Spnego.response(Spnego.ACCEPT_INCOMPLETE, s.mech, null, null));
            c.reply.status(NtStatus.MORE_PROCESSING_REQUIRED);
            afterChallenge(c, s, c.conn.dialect() == Smb2Dialect.SMB_3_1_1);
            return;
        }
        if (s.krb5 == null) {
            s.krb5 = krb.acceptor().begin();
        }
        byte[] apRep;
        String principal;
        byte[] key;
        java.util.OptionalLong ticketEnd;
        try {
            apRep = s.krb5.accept(apReq);
            if (!s.krb5.established()) {
                throw new KerberosException("the Kerberos context needs another round trip, which SMB logons do not take");
            }
            principal = s.krb5.client();
            s.krb5Client = principal;
            if (token.mechListMic() != null && s.mechTypes != null && !s.krb5.verifyMic(s.mechTypes, token.mechListMic())) {
                throw new KerberosException("SPNEGO mechListMIC does not verify");
            }
            key = s.krb5.sessionKey();
            ticketEnd = s.krb5.ticketEndNanoTime();
        } finally {
            s.krb5.dispose();
            s.krb5 = null;
        }
        var account = krb.identities().map(principal).orElseThrow(() -> new KerberosException("no local user for "
                + principal + " (security.kerberos.idmap, an SMB user or a host account of that name)"));
        SmbUser user = new SmbUser(account.name(), account.uid(), account.gid(), new byte[16]);
        s.kerberosLogon = true;
        // Samba's and ksmbd's answer: accept-completed, the client's own OID, the AP-REP, no MIC
        establish(c, s, req, user, false, key, principal, Spnego.response(Spnego.ACCEPT_COMPLETED, s.mech, apRep, null));
        s.expiresAt(ticketEnd); // MS-SMB2 3.3.5.5.3: Session.ExpirationTime is the ticket's end
    }

    /**
     * The common end of a logon: the dialect's keys from the session key (MS-SMB2 3.3.5.5.3),
     * the encryption requirement, the previous session of the same user, the signed response.
     */
    private static void establish(Ctx c, SmbSession s, Smb2SessionSetup.Request req, SmbUser user, boolean anonymous,
            byte[] key, String who, byte[] out) throws SmbException {
        SmbConnection conn = c.conn;
        SmbServerConfig cfg = c.server.config();
        int dialect = conn.dialect();
        boolean signs = !anonymous;
        // MS-SMB2 3.3.5.5.3: a re-authentication keeps the session's keys
        boolean reauth = s.state() == SmbSession.State.VALID;
        boolean canEncrypt = reauth && s.encryptor != null;
        if (signs && !reauth) {
            if (!Smb2Dialect.is3(dialect)) {
                s.setSigner(Smb2Signer.hmacSha256(Smb2Kdf.sessionKey(key)));
            } else {
                boolean is311 = dialect == Smb2Dialect.SMB_3_1_1;
                int cipher = conn.cipherId;
                Smb2Kdf.Keys k = Smb2Kdf.serverKeys(key, is311, is311 ? s.preauth.value() : null,
                        cipher == 0 ? 128 : Smb2Cipher.keyBits(cipher));
                // MS-SMB2 3.1.4.1: 3.1.1 signs with what SMB2_SIGNING_CAPABILITIES chose (AES-CMAC by default)
                int algorithm = is311 ? conn.signingAlgorithm : NegotiateContext.SIGNING_AES_CMAC;
                s.setSigner(switch (algorithm) {
                    case NegotiateContext.SIGNING_AES_GMAC -> Smb2Signer.aesGmac(k.signing());
                    case NegotiateContext.SIGNING_HMAC_SHA256 -> Smb2Signer.hmacSha256(k.signing());
                    default -> Smb2Signer.aesCmac(k.signing());
                });
                if (cipher != 0) {
                    s.encryptor = new Smb2Cipher(cipher, k.encryption(), c.server.random());
                    s.decryptor = new Smb2Cipher(cipher, k.decryption(), c.server.random());
                    canEncrypt = true;
                }
            }
        }
        // 3.3.5.5.3: a server that rejects unencrypted access refuses clients that cannot encrypt
        if (cfg.encryptAll() && !canEncrypt) {
            String client = conn.client().getHostAddress();
            c.server.denials().log(RateLimitedLog.Level.WARN, client,
                    "SMB logon of {} from {} refused: encryption is required and the client cannot encrypt", who, client);
            throw new SmbException(NtStatus.ACCESS_DENIED, "encryption is required and the client cannot encrypt");
        }
        s.authenticated(user, anonymous, cfg.signingRequired() || (req.securityMode() & Smb2Dialect.SIGNING_REQUIRED) != 0,
                cfg.encryptAll() && canEncrypt);
        c.server.throttle().succeeded(conn.client());
        if (req.previousSessionId() != 0 && req.previousSessionId() != s.id()) {
            // MS-SMB2 3.3.5.5.3: the client reconnected; its previous session of the same user ends
            SmbSession prev = c.server.globalSession(req.previousSessionId());
            if (prev != null && prev.user() != null && !anonymous && prev.user().name().equalsIgnoreCase(user.name())) {
                prev.expireFromElsewhere();
            }
        }
        int flags = (anonymous ? Smb2SessionSetup.SESSION_FLAG_IS_NULL : 0)
                | (cfg.encryptAll() && canEncrypt ? Smb2SessionSetup.SESSION_FLAG_ENCRYPT_DATA : 0);
        write(c, flags, out);
        if (signs) {
            c.reply.signWith = s; // 3.3.5.5.3: the final response is signed
        }
    }
}
