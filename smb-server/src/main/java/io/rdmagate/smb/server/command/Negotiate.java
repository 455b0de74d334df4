package io.rdmagate.smb.server.command;

import io.rdmagate.smb.msdtyp.FileTime;
import io.rdmagate.smb.mserref.NtStatus;
import io.rdmagate.smb.msspng.Spnego;
import io.rdmagate.smb.mssmb2.NegotiateContext;
import io.rdmagate.smb.mssmb2.Smb2Dialect;
import io.rdmagate.smb.mssmb2.Smb2Header;
import io.rdmagate.smb.mssmb2.Smb2Negotiate;
import io.rdmagate.smb.server.Command;
import io.rdmagate.smb.server.Ctx;
import io.rdmagate.smb.server.SmbConnection;
import io.rdmagate.smb.server.SmbException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;

/** NEGOTIATE (MS-SMB2 3.3.5.4): picks the dialect, capabilities and, for 3.1.1, the negotiate contexts. */
public final class Negotiate implements Command {
    /** Server preference, best first. */
    static final int[] DIALECTS = {Smb2Dialect.SMB_3_1_1, Smb2Dialect.SMB_3_0_2, Smb2Dialect.SMB_3_0,
        Smb2Dialect.SMB_2_1, Smb2Dialect.SMB_2_0_2};
    static final int[] CIPHERS = {NegotiateContext.CIPHER_AES128_GCM, NegotiateContext.CIPHER_AES128_CCM,
        NegotiateContext.CIPHER_AES256_GCM, NegotiateContext.CIPHER_AES256_CCM};

    @Override
    public Needs needs() {
        return Needs.NOTHING;
    }

    @Override
    public void handle(Ctx c) throws SmbException, io.rdmagate.smb.mssmb2.Smb2DecodeException {
        SmbConnection conn = c.conn;
        if (conn.negotiated) {
            c.reply.disconnect = true; // 3.3.5.3.1: a second NEGOTIATE ends the connection
            return;
        }
        Smb2Negotiate.Request req = Smb2Negotiate.decode(c.msg);
        int dialect = 0;
        for (int d : DIALECTS) {
            if (req.dialects().contains(d)) {
                dialect = d;
                break;
            }
        }
        if (dialect == 0) {
            throw new SmbException(NtStatus.NOT_SUPPORTED, "no common dialect in " + req.dialects());
        }
        List<Object[]> contexts = new ArrayList<>();
        if (dialect == Smb2Dialect.SMB_3_1_1) {
            // 3.3.5.4: preauth integrity with SHA-512 is mandatory
            NegotiateContext pre = find(req.contexts(), NegotiateContext.PREAUTH_INTEGRITY_CAPABILITIES);
            if (pre == null || !pre.ids().contains(NegotiateContext.HASH_SHA512)) {
                throw new SmbException(NtStatus.INVALID_PARAMETER, "3.1.1 without SHA-512 preauth integrity");
            }
            byte[] salt = new byte[32];
            c.server.random().nextBytes(salt);
            ByteBuffer p = ByteBuffer.allocate(38).order(ByteOrder.LITTLE_ENDIAN);
            p.putShort((short) 1).putShort((short) 32).putShort((short) NegotiateContext.HASH_SHA512).put(salt);
            contexts.add(new Object[] {NegotiateContext.PREAUTH_INTEGRITY_CAPABILITIES, p.array()});
            NegotiateContext enc = find(req.contexts(), NegotiateContext.ENCRYPTION_CAPABILITIES);
            conn.cipherId = 0;
            if (enc != null) {
                List<Integer> offered = enc.ids();
                for (int cipher : CIPHERS) {
                    if (offered.contains(cipher)) {
                        conn.cipherId = cipher;
                        break;
                    }
                }
                contexts.add(new Object[] {NegotiateContext.ENCRYPTION_CAPABILITIES,
                    new byte[] {1, 0, (byte) conn.cipherId, 0}});
            }
            NegotiateContext sig = find(req.contexts(), NegotiateContext.SIGNING_CAPABILITIES);
            conn.signingAlgorithm = NegotiateContext.SIGNING_AES_CMAC;
            if (sig != null) {
                // 3.3.5.4: the first of the client's SigningAlgorithms the server supports (all three)
                for (int id : sig.ids()) {
                    if (id == NegotiateContext.SIGNING_AES_GMAC || id == NegotiateContext.SIGNING_AES_CMAC
                            || id == NegotiateContext.SIGNING_HMAC_SHA256) {
                        conn.signingAlgorithm = id;
                        break;
                    }
                }
                contexts.add(new Object[] {NegotiateContext.SIGNING_CAPABILITIES,
                    new byte[] {1, 0, (byte) conn.signingAlgorithm, 0}});
            }
        } else if (Smb2Dialect.is3(dialect) && (req.capabilities() & Smb2Dialect.CAP_ENCRYPTION) != 0) {
            conn.cipherId = NegotiateContext.CIPHER_AES128_CCM; // 3.0 and 3.0.2 know only AES-128-CCM
        }
        conn.clientGuid = req.clientGuid();
        conn.clientCapabilities = req.capabilities();
        conn.clientSecurityMode = req.securityMode();
        conn.clientDialects = req.dialects();
        if (dialect == Smb2Dialect.SMB_3_1_1) {
            conn.preauth.update(c.msg);
            c.reply.afterBuild = m -> conn.preauth.update(m);
        }
        ByteBuffer out = response(c, dialect, contexts);
        c.reply.length(out.limit() - Smb2Header.SIZE);
        conn.dialect = dialect;
        conn.negotiated = true;
    }

    static NegotiateContext find(List<NegotiateContext> list, int type) {
        for (NegotiateContext n : list) {
            if (n.type() == type) {
                return n;
            }
        }
        return null;
    }

    /** Writes a NEGOTIATE response body into the reply; returns the message (header + body). */
    public static ByteBuffer response(Ctx c, int dialect, List<Object[]> contexts) {
        SmbConnection conn = c.conn;
        int caps = 0;
        if (dialect != Smb2Dialect.SMB_2_0_2 && dialect != Smb2Dialect.SMB_2_WILDCARD) {
            caps |= Smb2Dialect.CAP_LARGE_MTU | Smb2Dialect.CAP_LEASING; // MS-SMB2 3.3.5.4: leases from 2.1 on
        }
        if ((dialect == Smb2Dialect.SMB_3_0 || dialect == Smb2Dialect.SMB_3_0_2)
                && (conn.clientCapabilities & Smb2Dialect.CAP_ENCRYPTION) != 0) {
            caps |= Smb2Dialect.CAP_ENCRYPTION;
        }
        // 3.3.5.4: multichannel for 3.x clients that offer it, when the server binds sessions
        if (Smb2Dialect.is3(dialect) && c.server.config().multichannel().enabled()
                && (conn.clientCapabilities & Smb2Dialect.CAP_MULTI_CHANNEL) != 0) {
            caps |= Smb2Dialect.CAP_MULTI_CHANNEL;
        }
        int security = Smb2Dialect.SIGNING_ENABLED | (c.server.config().signingRequired() ? Smb2Dialect.SIGNING_REQUIRED : 0);
        conn.serverCapabilities = caps;
        conn.serverSecurityMode = security;
        int io = (caps & Smb2Dialect.CAP_LARGE_MTU) != 0 ? c.server.config().maxIo() : 65536;
        byte[] sec = Spnego.serverInit(c.server.config().kerberos() != null);
        ByteBuffer b = c.reply.body(65 + sec.length + 8 + 64 * (contexts.size() + 1));
        int len = Smb2Negotiate.write(b, new Smb2Negotiate.Response(security, dialect, c.server.serverGuid(), caps, io,
                io, io, FileTime.fromUnixNanos(System.currentTimeMillis() * 1_000_000L), sec, contexts));
        c.reply.length(len);
        return b.slice(0, Smb2Header.SIZE + len).order(ByteOrder.LITTLE_ENDIAN);
    }
}
