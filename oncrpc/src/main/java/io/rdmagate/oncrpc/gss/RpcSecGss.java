package io.rdmagate.oncrpc.gss;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.rdmagate.gateway.spi.security.KerberosAcceptor;
import io.rdmagate.gateway.spi.security.KerberosException;
import io.rdmagate.gateway.spi.security.KerberosIdentities;
import io.rdmagate.oncrpc.rpc.AuthStat;
import io.rdmagate.oncrpc.rpc.AuthSys;
import io.rdmagate.oncrpc.rpc.CallHeader;
import io.rdmagate.oncrpc.rpc.GssPrincipal;
import io.rdmagate.oncrpc.rpc.ReplyHeaders;
import io.rdmagate.oncrpc.rpc.Rpc;
import io.rdmagate.oncrpc.rpc.RpcGssCred;
import io.rdmagate.oncrpc.rpc.RpcRejectedException;
import io.rdmagate.oncrpc.xdr.XdrDecoder;
import io.rdmagate.oncrpc.xdr.XdrException;
import io.rdmagate.oncrpc.xdr.XdrMessage;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.Iterator;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * RPCSEC_GSS version 1 on the server (RFC 2203) with the Kerberos V5 mechanism (RFC 1964/4121):
 * the contexts clients create, and the check of every call made under one.
 *
 * <p>Operation: an INIT or CONTINUE_INIT call to the NULL procedure carries a GSS token; the
 * acceptor answers rpc_gss_init_res (§5.2.3.1) with a new handle, the sequence window and the
 * AP-REP, and a verifier that is the MIC of the window once the context is established. A DATA
 * call names its context by handle: the MIC in its verifier must cover the call header through
 * the credential (§5.3.1, else RPCSEC_GSS_CREDPROBLEM); an unknown, expired or used-up context is
 * RPCSEC_GSS_CTXPROBLEM (the client makes a new one); a sequence number already seen or below the
 * window is dropped unanswered (§5.3.3.1), the window the server remembers being wider than the
 * one it advertises so that its own concurrency never drops a call; the reply's verifier is the MIC of the sequence number
 * (§5.3.3.2). DESTROY ends a context. With integrity (krb5i) the arguments arrive as
 * rpc_gss_integ_data, the sequence number and arguments under a MIC, and successful results go
 * back the same way (§5.3.2.2); with privacy (krb5p) both are wrapped, encrypted (§5.3.2.3). A body
 * whose MIC or wrapping does not verify, or whose sequence number is not the credential's, is
 * GARBAGE_ARGS (as knfsd answers). Contexts are bounded in number (the least recently used goes
 * first) and expire with their ticket or after {@code idle} unused.
 */
public final class RpcSecGss {
    private static final Logger LOG = LoggerFactory.getLogger(RpcSecGss.class);
    /** §5.2.3.1 seq_window: as Linux's knfsd (GSS_SEQ_WIN). */
    public static final int SEQ_WINDOW = 128;
    /**
     * How many sequence numbers below the highest a context remembers, beyond the window it
     * advertises: the calls of a connection run concurrently, so the server itself may check a call
     * after many later ones; remembering more than the client keeps in flight means that reordering
     * never drops a call, while a replay of any remembered number is still dropped.
     */
    static final int SEQ_REMEMBERED = 8 * SEQ_WINDOW;
    private static final int GSS_S_COMPLETE = 0;
    private static final int GSS_S_CONTINUE_NEEDED = 1;
    private static final int GSS_S_FAILURE = 13 << 16;
    /** The longest checksum token taken: a Kerberos MIC is 28 to 44 bytes. */
    private static final int MAX_TOKEN = 1024;
    /** Who a principal that maps to no account acts as: null, so the export's anonymous ids apply. */
    private static final AuthSys UNMAPPED = null;

    private final KerberosAcceptor acceptor;
    private final KerberosIdentities identities;
    private final int maxContexts;
    private final long idleNanos;
    private final Map<Handle, Context> contexts = new ConcurrentHashMap<>();
    private final byte[] prefix = new byte[4];
    private final AtomicInteger next = new AtomicInteger();

    public RpcSecGss(KerberosAcceptor acceptor, KerberosIdentities identities, int maxContexts, Duration idle) {
        if (maxContexts < 1) {
            throw new IllegalArgumentException("maxContexts " + maxContexts);
        }
        this.acceptor = acceptor;
        this.identities = identities;
        this.maxContexts = maxContexts;
        this.idleNanos = idle.toNanos();
        new SecureRandom().nextBytes(prefix);
    }

    /** The service principal clients must have tickets for (nfs/FQDN@REALM). */
    public String principal() {
        return acceptor.principal();
    }

    /** Contexts open now. */
    public int contexts() {
        return contexts.size();
    }

    /**
     * A checked call: the credential the program sees, the MIC of the sequence number its reply's
     * verifier carries, and what {@link #arguments} and {@link #reply} need.
     */
    public record Verified(CallHeader header, byte[] replyVerifier, Context context, int seqNum, int service) {
    }

    /**
     * The procedure's arguments: {@code record} itself under service none; the arguments inside
     * rpc_gss_integ_data (their MIC checked) or rpc_gss_priv_data (unwrapped), after the
     * sequence number, which must be the credential's (RFC 2203 §5.3.2.2, §5.3.2.3).
     */
    public ByteBuf arguments(Verified v, ByteBuf record) throws XdrException {
        if (v.service() == RpcGssCred.SERVICE_NONE) {
            return record;
        }
        XdrDecoder x = new XdrDecoder(record);
        Context ctx = v.context();
        byte[] body;
        if (v.service() == RpcGssCred.SERVICE_INTEGRITY) {
            body = x.readOpaque(record.readableBytes());
            byte[] checksum = x.readOpaque(MAX_TOKEN);
            ctx.lock.lock();
            try {
                if (!ctx.exchange.verifyMic(body, checksum)) {
                    throw new XdrException("rpc_gss_integ_data: the checksum does not verify");
                }
            } finally {
                ctx.lock.unlock();
            }
        } else {
            byte[] token = x.readOpaque(record.readableBytes());
            try {
                ctx.lock.lock();
                try {
                    body = ctx.exchange.unwrap(token, true);
                } finally {
                    ctx.lock.unlock();
                }
            } catch (KerberosException e) {
                throw new XdrException("rpc_gss_priv_data: " + e.getMessage());
            }
        }
        if (body.length < 4 || java.nio.ByteBuffer.wrap(body).getInt() != v.seqNum()) {
            throw new XdrException("the body's sequence number is not the credential's " + Integer.toUnsignedString(v.seqNum()));
        }
        return Unpooled.wrappedBuffer(body, 4, body.length - 4);
    }

    /**
     * The reply as sent: {@code m} itself under service none, or for a reply with results (accept
     * state SUCCESS), the sequence number and the results under a MIC (integrity) or wrapped and
     * encrypted (privacy). Other replies go as they are (§5.3.3.4). The results are copied once,
     * into the array the checksum or the encryption covers, and that array (or the token wrapped
     * from it) goes out as it is, after the reply header.
     */
    public XdrMessage reply(Verified v, XdrMessage m, ByteBufAllocator alloc) throws KerberosException {
        if (m == null || v.service() == RpcGssCred.SERVICE_NONE) {
            return m;
        }
        int headerLength = 24 + v.replyVerifier().length + (-v.replyVerifier().length & 3);
        if (m.length() < headerLength) {
            return m;
        }
        if (m.head().readableBytes() < headerLength) { // the reply header in one piece, to read and keep
            byte[] all = m.toBytes();
            m.release();
            m = new XdrMessage(Unpooled.wrappedBuffer(all), null, -1, Unpooled.EMPTY_BUFFER);
        }
        ByteBuf head = m.head();
        if (head.getInt(head.readerIndex() + headerLength - 4) != Rpc.SUCCESS) {
            return m;
        }
        byte[] body = m.toBytes(headerLength, 4); // rpc_gss_data_t: the sequence number, then the results
        java.nio.ByteBuffer.wrap(body).putInt(v.seqNum());
        ByteBuf header = alloc.buffer(headerLength + 4);
        header.writeBytes(head, head.readerIndex(), headerLength);
        m.release();
        Context ctx = v.context();
        byte[] token;
        boolean integrity = v.service() == RpcGssCred.SERVICE_INTEGRITY;
        ctx.lock.lock();
        try {
            token = integrity ? ctx.exchange.mic(body) : ctx.exchange.wrap(body, true);
        } catch (KerberosException e) {
            header.release();
            throw e;
        } finally {
            ctx.lock.unlock();
        }
        io.netty.buffer.CompositeByteBuf out = alloc.compositeBuffer(3);
        if (integrity) { // rpc_gss_integ_data: the body, then its checksum (§5.3.2.2)
            header.writeInt(body.length);
            ByteBuf checksum = alloc.buffer(12 + token.length);
            checksum.writeZero(-body.length & 3);
            opaque(checksum, token);
            out.addComponents(true, header, Unpooled.wrappedBuffer(body), checksum);
        } else { // rpc_gss_priv_data: the wrap token (§5.3.2.3)
            header.writeInt(token.length);
            out.addComponents(true, header, Unpooled.wrappedBuffer(token), Unpooled.wrappedBuffer(new byte[-token.length & 3]));
        }
        return new XdrMessage(out, null, -1, Unpooled.EMPTY_BUFFER);
    }

    /**
     * INIT and CONTINUE_INIT (§5.2.2): {@code args} holds the GSS token; the reply is
     * rpc_gss_init_res. A token the acceptor refuses is answered with its major status, as the
     * RFC asks, and the context is dropped.
     */
    public XdrMessage init(CallHeader h, RpcGssCred cred, ByteBuf args, ByteBufAllocator alloc) throws RpcRejectedException {
        if (h.procedure() != 0) {
            throw RpcRejectedException.authError(AuthStat.AUTH_BADCRED, "RPCSEC_GSS context creation to procedure "
                    + h.procedure() + ", not NULL");
        }
        byte[] token;
        try {
            token = new XdrDecoder(args).readOpaque(64 << 10);
        } catch (XdrException e) {
            throw RpcRejectedException.authError(AuthStat.AUTH_BADCRED, "RPCSEC_GSS init token: " + e.getMessage());
        }
        Context ctx;
        Handle handle;
        if (cred.gssProc() == RpcGssCred.INIT) {
            try {
                ctx = new Context(acceptor.begin());
            } catch (KerberosException e) {
                return initResult(h, alloc, null, GSS_S_FAILURE, null, null);
            }
            handle = newHandle();
        } else {
            handle = new Handle(cred.handle());
            ctx = contexts.get(handle);
            if (ctx == null || ctx.established) {
                throw RpcRejectedException.authError(AuthStat.RPCSEC_GSS_CTXPROBLEM, "CONTINUE_INIT of no context in progress");
            }
        }
        byte[] out;
        try {
            ctx.lock.lock();
            try {
                out = ctx.exchange.accept(token);
                if (ctx.exchange.established()) {
                    ctx.establish(identities);
                }
            } finally {
                ctx.lock.unlock();
            }
        } catch (KerberosException e) {
            contexts.remove(handle);
            ctx.exchange.dispose();
            LOG.info("RPCSEC_GSS context refused: {}", e.getMessage());
            return initResult(h, alloc, null, GSS_S_FAILURE, null, null);
        }
        contexts.put(handle, ctx);
        evict();
        if (!ctx.established) {
            return initResult(h, alloc, handle.bytes, GSS_S_CONTINUE_NEEDED, out, null);
        }
        byte[] window = {0, 0, 0, (byte) SEQ_WINDOW};
        byte[] mic;
        try {
            ctx.lock.lock();
            try {
                mic = ctx.exchange.mic(window);
            } finally {
                ctx.lock.unlock();
            }
        } catch (KerberosException e) {
            contexts.remove(handle);
            return initResult(h, alloc, null, GSS_S_FAILURE, null, null);
        }
        return initResult(h, alloc, handle.bytes, GSS_S_COMPLETE, out, mic);
    }

    private static XdrMessage initResult(CallHeader h, ByteBufAllocator alloc, byte[] handle, int major, byte[] token,
            byte[] verifier) {
        ByteBuf b = ReplyHeaders.accepted(alloc.buffer(128 + (token == null ? 0 : token.length)), h.xid(), Rpc.SUCCESS,
                verifier);
        opaque(b, handle == null ? new byte[0] : handle);
        b.writeInt(major);
        b.writeInt(0); // gss_minor
        b.writeInt(SEQ_WINDOW);
        opaque(b, token == null ? new byte[0] : token);
        return new XdrMessage(b, null, -1, Unpooled.EMPTY_BUFFER);
    }

    private static void opaque(ByteBuf b, byte[] v) {
        b.writeInt(v.length);
        b.writeBytes(v);
        b.writeZero(-v.length & 3);
    }

    /**
     * DATA and DESTROY (§5.3): the context, the header's MIC, the sequence number. Null when the
     * call is to be dropped unanswered (a replay, or below the window).
     */
    public Verified verify(CallHeader h, RpcGssCred cred) throws RpcRejectedException {
        Handle handle = new Handle(cred.handle());
        Context ctx = contexts.get(handle);
        if (ctx == null || !ctx.established) {
            throw RpcRejectedException.authError(AuthStat.RPCSEC_GSS_CTXPROBLEM, "no RPCSEC_GSS context of that handle");
        }
        if (ctx.expires && System.nanoTime() - ctx.expiresAt > 0
                || Integer.toUnsignedLong(cred.seqNum()) >= RpcGssCred.MAXSEQ) {
            contexts.remove(handle);
            ctx.exchange.dispose();
            throw RpcRejectedException.authError(AuthStat.RPCSEC_GSS_CTXPROBLEM, "the RPCSEC_GSS context expired");
        }
        byte[] seq = {(byte) (cred.seqNum() >>> 24), (byte) (cred.seqNum() >>> 16), (byte) (cred.seqNum() >>> 8),
            (byte) cred.seqNum()};
        byte[] mic;
        ctx.lock.lock();
        try {
            if (!ctx.exchange.verifyMic(cred.signedHeader(), cred.verifier())) {
                throw RpcRejectedException.authError(AuthStat.RPCSEC_GSS_CREDPROBLEM, "the call header's MIC does not verify");
            }
            if (!ctx.window.admit(Integer.toUnsignedLong(cred.seqNum()))) {
                return null;
            }
            ctx.lastUsed = System.nanoTime();
            try {
                mic = ctx.exchange.mic(seq);
            } catch (KerberosException e) {
                throw RpcRejectedException.authError(AuthStat.RPCSEC_GSS_CTXPROBLEM, e.getMessage());
            }
        } finally {
            ctx.lock.unlock();
        }
        CallHeader checked = new CallHeader(h.xid(), h.program(), h.version(), h.procedure(),
                new GssPrincipal(ctx.principal, cred.service(), ctx.identity), h.verifierFlavor());
        return new Verified(checked, mic, ctx, cred.seqNum(), cred.gssProc() == RpcGssCred.DESTROY
                ? RpcGssCred.SERVICE_NONE : cred.service());
    }

    /** Ends the context of {@code cred} after its DESTROY was answered, forgetting its keys. */
    public void destroyed(RpcGssCred cred) {
        Context ctx = contexts.remove(new Handle(cred.handle()));
        if (ctx != null) {
            ctx.exchange.dispose();
        }
    }

    private Handle newHandle() {
        byte[] h = new byte[8];
        System.arraycopy(prefix, 0, h, 0, 4);
        int n = next.incrementAndGet();
        h[4] = (byte) (n >>> 24);
        h[5] = (byte) (n >>> 16);
        h[6] = (byte) (n >>> 8);
        h[7] = (byte) n;
        return new Handle(h);
    }

    /** Drops contexts idle too long, then the least recently used ones beyond the bound. */
    private void evict() {
        long now = System.nanoTime();
        for (Iterator<Map.Entry<Handle, Context>> it = contexts.entrySet().iterator(); it.hasNext(); ) {
            Map.Entry<Handle, Context> e = it.next();
            if (now - e.getValue().lastUsed > idleNanos) {
                it.remove();
                e.getValue().exchange.dispose();
            }
        }
        while (contexts.size() > maxContexts) {
            Map.Entry<Handle, Context> oldest = null;
            for (Map.Entry<Handle, Context> e : contexts.entrySet()) {
                if (oldest == null || e.getValue().lastUsed - oldest.getValue().lastUsed < 0) {
                    oldest = e;
                }
            }
            if (oldest == null || contexts.remove(oldest.getKey()) == null) {
                break;
            }
            oldest.getValue().exchange.dispose();
        }
    }

    private record Handle(byte[] bytes) {
        @Override
        public boolean equals(Object o) {
            return o instanceof Handle h && java.util.Arrays.equals(bytes, h.bytes);
        }

        @Override
        public int hashCode() {
            return java.util.Arrays.hashCode(bytes);
        }
    }

    /** One context: its GSS exchange, its window, the principal and the identity it maps to. */
    static final class Context {
        final KerberosAcceptor.Exchange exchange;
        final SequenceWindow window = new SequenceWindow(SEQ_REMEMBERED);
        /** Guards the GSS context (not thread-safe) and the window; fair, so calls are checked in the order they wait. */
        final java.util.concurrent.locks.ReentrantLock lock = new java.util.concurrent.locks.ReentrantLock(true);
        volatile long lastUsed = System.nanoTime();
        volatile boolean established;
        volatile boolean expires;
        volatile long expiresAt;
        String principal;
        AuthSys identity;

        Context(KerberosAcceptor.Exchange exchange) {
            this.exchange = exchange;
        }

        void establish(KerberosIdentities ids) throws KerberosException {
            principal = exchange.client();
            identity = ids.map(principal).map(a -> new AuthSys(0, "", a.uid(), a.gid(), new int[] {a.gid()}))
                    .orElse(UNMAPPED);
            exchange.ticketEndNanoTime().ifPresent(end -> {
                expiresAt = end;
                expires = true;
            });
            established = true;
        }
    }
}
