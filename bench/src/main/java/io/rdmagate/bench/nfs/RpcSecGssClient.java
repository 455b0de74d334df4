package io.rdmagate.bench.nfs;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicInteger;
import javax.security.auth.Subject;
import org.ietf.jgss.GSSContext;
import org.ietf.jgss.GSSCredential;
import org.ietf.jgss.GSSException;
import org.ietf.jgss.GSSManager;
import org.ietf.jgss.MessageProp;
import org.ietf.jgss.Oid;

/**
 * The client side of RPCSEC_GSS version 1 (RFC 2203) with Kerberos V5, for the load generator,
 * as the Linux client does it with gssd: a principal logged in with the JDK's GSS-API initiator
 * makes a context through RPCSEC_GSS_INIT on the NULL procedure (§5.2.2, no sequence or replay
 * detection in the per-message tokens, as the kernel asks), then every call carries the MIC of
 * its header as its verifier (§5.3.1) and its arguments plain (krb5), checksummed (krb5i,
 * §5.3.2.2) or wrapped (krb5p, §5.3.2.3). Every reply's verifier (the MIC of the call's sequence
 * number) and protected results are checked the same way before the results count.
 */
final class RpcSecGssClient {
    static final int RPCSEC_GSS = 6;
    static final int AUTH_NONE = 0;
    private static final int VERSION = 1;
    private static final int DATA = 0;
    private static final int INIT = 1;
    private static final int NULLPROC = 0;
    private static final Oid KRB5;
    private static final Oid KRB5_PRINCIPAL;

    static {
        try {
            KRB5 = new Oid("1.2.840.113554.1.2.2");
            KRB5_PRINCIPAL = new Oid("1.2.840.113554.1.2.2.1");
        } catch (GSSException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** The three services of RFC 2203 §5.3.2 and the flavor names Linux mounts give them. */
    enum Service {
        KRB5(1), KRB5I(2), KRB5P(3);

        final int code;

        Service(int code) {
            this.code = code;
        }
    }

    private final Subject subject;
    private final String servicePrincipal;

    /** {@code subject} logged in as an initiator; {@code servicePrincipal} is the server's, {@code nfs/HOST@REALM}. */
    RpcSecGssClient(Subject subject, String servicePrincipal) {
        this.subject = subject;
        this.servicePrincipal = servicePrincipal;
    }

    /** An established context on the connection of {@code stream}, for calls to {@code program} {@code version}. */
    Context establish(RecordStream stream, int program, int version, Service service) throws IOException {
        try {
            GSSManager m = GSSManager.getInstance();
            GSSContext gss = Subject.callAs(subject, () -> {
                GSSCredential cred = m.createCredential(null, GSSCredential.DEFAULT_LIFETIME, KRB5,
                        GSSCredential.INITIATE_ONLY);
                GSSContext c = m.createContext(m.createName(servicePrincipal, KRB5_PRINCIPAL), KRB5, cred,
                        GSSContext.DEFAULT_LIFETIME);
                c.requestMutualAuth(true);
                c.requestSequenceDet(false);
                c.requestReplayDet(false);
                c.requestConf(true);
                c.requestInteg(true);
                return c;
            });
            byte[] token = Subject.callAs(subject, () -> gss.initSecContext(new byte[0], 0, 0));
            ByteBuffer call = ByteBuffer.allocate(72 + token.length);
            int xid = (int) (System.nanoTime() & 0x3fffffff);
            call.putInt(xid).putInt(0).putInt(2).putInt(program).putInt(version).putInt(NULLPROC);
            credential(call, INIT, 0, Service.KRB5.code, new byte[0]);
            call.putInt(AUTH_NONE).putInt(0);
            opaque(call, token, token.length);
            stream.send(call, null, 0);
            stream.flush();
            int length = stream.receive();
            ByteBuffer r = stream.reply().duplicate().limit(length);
            if (r.getInt() != xid || r.getInt() != 1 || r.getInt() != 0) {
                throw new IOException("RPCSEC_GSS_INIT: not an accepted reply");
            }
            r.getInt();
            byte[] verifier = opaque(r);
            if (r.getInt() != 0) {
                throw new IOException("RPCSEC_GSS_INIT: accept_stat " + r.getInt(r.position() - 4));
            }
            byte[] handle = opaque(r);
            int major = r.getInt();
            int minor = r.getInt();
            int window = r.getInt();
            byte[] reply = opaque(r);
            if (major != 0) {
                throw new IOException("RPCSEC_GSS_INIT: gss_major " + major + " minor " + minor);
            }
            Subject.callAs(subject, () -> gss.initSecContext(reply, 0, reply.length));
            if (!gss.isEstablished()) {
                throw new IOException("RPCSEC_GSS_INIT: the context needs more than one round trip");
            }
            gss.verifyMIC(verifier, 0, verifier.length, ByteBuffer.allocate(4).putInt(window).array(), 0, 4,
                    new MessageProp(0, false));
            return new Context(gss, handle, service, window);
        } catch (java.util.concurrent.CompletionException e) {
            throw new IOException("RPCSEC_GSS_INIT: " + e.getCause(), e.getCause());
        } catch (GSSException e) {
            throw new IOException("RPCSEC_GSS_INIT: " + e.getMessage(), e);
        }
    }

    private static void credential(ByteBuffer b, int gssProc, int seq, int service, byte[] handle) {
        b.putInt(RPCSEC_GSS).putInt(4 * 5 + NfsCalls.pad(handle.length));
        b.putInt(VERSION).putInt(gssProc).putInt(seq).putInt(service);
        opaque(b, handle, handle.length);
    }

    static void opaque(ByteBuffer b, byte[] v, int length) {
        b.putInt(length).put(v, 0, length);
        for (int i = length; (i & 3) != 0; i++) {
            b.put((byte) 0);
        }
    }

    static byte[] opaque(ByteBuffer r) throws IOException {
        int n = r.getInt();
        if (n < 0 || n > r.remaining()) {
            throw new IOException("opaque of " + n + " bytes in a reply of " + r.remaining() + " left");
        }
        byte[] v = new byte[n];
        r.get(v);
        r.position(r.position() + NfsCalls.pad(n) - n);
        return v;
    }

    /**
     * One context: the client's half of the GSS context, the server's handle, the service its
     * calls use and the sequence numbers it gives them (§5.3.3.1: one per call, increasing).
     */
    static final class Context {
        private final GSSContext gss;
        private final byte[] handle;
        private final Service service;
        private final int window;
        private final AtomicInteger seq = new AtomicInteger();
        private final MessageProp mic = new MessageProp(0, false);

        Context(GSSContext gss, byte[] handle, Service service, int window) {
            this.gss = gss;
            this.handle = handle;
            this.service = service;
            this.window = window;
        }

        int window() {
            return window;
        }

        /**
         * Encodes into {@code out} the call whose AUTH_SYS form {@link NfsCalls} put in {@code sysCall}
         * (header of {@link NfsCalls#HEADER} bytes, then the arguments), followed by
         * {@code data[0, count)}; returns the sequence number it carries.
         */
        int encode(ByteBuffer out, ByteBuffer sysCall, byte[] data, int count, byte[] scratch) throws IOException {
            int s = seq.incrementAndGet();
            out.clear();
            out.put(sysCall.array(), 0, 24); // xid .. procedure
            credential(out, DATA, s, service.code, handle);
            byte[] header = out.array();
            int argsAt = NfsCalls.HEADER;
            int argsLength = sysCall.position() - argsAt;
            try {
                byte[] verifier = sign(header, 0, out.position());
                out.putInt(RPCSEC_GSS);
                opaque(out, verifier, verifier.length);
                if (service == Service.KRB5) {
                    out.put(sysCall.array(), argsAt, argsLength);
                    if (count > 0) {
                        out.put(data, 0, count);
                    }
                } else {
                    // rpc_gss_data_t: the sequence number, then the arguments (§5.3.2.2)
                    ByteBuffer body = ByteBuffer.wrap(scratch);
                    body.putInt(s).put(sysCall.array(), argsAt, argsLength);
                    if (count > 0) {
                        body.put(data, 0, count);
                    }
                    if (service == Service.KRB5I) {
                        opaque(out, scratch, body.position());
                        byte[] checksum = sign(scratch, 0, body.position());
                        opaque(out, checksum, checksum.length);
                    } else {
                        byte[] wrapped;
                        synchronized (gss) {
                            wrapped = gss.wrap(scratch, 0, body.position(), new MessageProp(0, true));
                        }
                        opaque(out, wrapped, wrapped.length);
                    }
                }
            } catch (GSSException e) {
                throw new IOException("RPCSEC_GSS: " + e.getMessage(), e);
            }
            sysCall.clear();
            return s;
        }

        private byte[] sign(byte[] b, int offset, int length) throws GSSException {
            synchronized (gss) {
                return gss.getMIC(b, offset, length, mic);
            }
        }

        private void verify(byte[] token, byte[] b, int offset, int length) throws GSSException {
            synchronized (gss) {
                gss.verifyMIC(token, 0, token.length, b, offset, length, new MessageProp(0, false));
            }
        }

        /**
         * Checks the accepted reply in {@code reply[0, length)} to the call of sequence number
         * {@code s}: its verifier, then its protected results; returns the procedure's results
         * (from the nfsstat3 on).
         */
        ByteBuffer results(ByteBuffer reply, int length, int s) throws IOException {
            ByteBuffer r = reply.duplicate().limit(length).position(0);
            int xid = r.getInt();
            if (length < 24 || r.getInt() != 1 || r.getInt() != 0) {
                throw new IOException("xid " + xid + ": not an accepted reply");
            }
            try {
                if (r.getInt() != RPCSEC_GSS) {
                    throw new IOException("xid " + xid + ": the reply's verifier is not RPCSEC_GSS");
                }
                byte[] verifier = opaque(r);
                verify(verifier, ByteBuffer.allocate(4).putInt(s).array(), 0, 4);
                int stat = r.getInt();
                if (stat != 0) {
                    throw new IOException("xid " + xid + ": accept_stat " + stat);
                }
                if (service == Service.KRB5) {
                    return r.slice();
                }
                int n = r.getInt();
                if (n < 4 || n > r.remaining()) {
                    throw new IOException("xid " + xid + ": protected results of " + n + " bytes");
                }
                ByteBuffer body;
                if (service == Service.KRB5I) {
                    int at = r.position();
                    r.position(at + NfsCalls.pad(n));
                    byte[] checksum = opaque(r);
                    verify(checksum, r.array(), at, n);
                    body = r.duplicate().limit(at + n).position(at).slice();
                } else {
                    byte[] clear;
                    synchronized (gss) {
                        clear = gss.unwrap(r.array(), r.position(), n, new MessageProp(0, true));
                    }
                    body = ByteBuffer.wrap(clear);
                }
                if (body.getInt() != s) {
                    throw new IOException("xid " + xid + ": the results carry another sequence number");
                }
                return body.slice();
            } catch (GSSException e) {
                throw new IOException("xid " + xid + ": " + e.getMessage(), e);
            }
        }
    }
}
