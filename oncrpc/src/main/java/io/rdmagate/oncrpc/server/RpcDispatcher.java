package io.rdmagate.oncrpc.server;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.rdmagate.oncrpc.rpc.AuthStat;
import io.rdmagate.oncrpc.rpc.CallHeader;
import io.rdmagate.oncrpc.rpc.CallHeaderDecoder;
import io.rdmagate.oncrpc.rpc.ReplyHeaders;
import io.rdmagate.oncrpc.rpc.Rpc;
import io.rdmagate.oncrpc.rpc.RpcGssCred;
import io.rdmagate.oncrpc.rpc.RpcRejectedException;
import io.rdmagate.oncrpc.xdr.XdrException;
import io.rdmagate.oncrpc.xdr.XdrMessage;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns one record into one reply (or none), whatever the transport.
 *
 * <p>Operation: a record too short for xid and msg_type, or that is not a CALL, is dropped
 * (RFC 5531 §9: a server has no reply to send). The header is decoded (GARBAGE_ARGS when it is
 * truncated, MSG_DENIED for RPC_MISMATCH and auth errors), the program looked up (PROG_UNAVAIL,
 * PROG_MISMATCH with its version range), the duplicate request cache consulted for a
 * non-idempotent procedure (a retransmission is dropped while the original runs, or answered
 * with the cached bytes), then the program runs. Its exceptions become GARBAGE_ARGS, its typed
 * accept_stat, MSG_DENIED, or SYSTEM_ERR (logged); nothing escapes, so the connection keeps
 * working. Thread-safe; called on virtual threads.
 */
public final class RpcDispatcher {
    private static final Logger LOG = LoggerFactory.getLogger(RpcDispatcher.class);

    private final Map<Integer, RpcProgram> programs = new ConcurrentHashMap<>();
    private final DuplicateRequestCache drc;
    private final ByteBufAllocator alloc;
    private final RpcObserver observer;
    private volatile io.rdmagate.oncrpc.gss.RpcSecGss gss;

    /** @param drc null to run without a duplicate request cache */
    public RpcDispatcher(DuplicateRequestCache drc, ByteBufAllocator alloc) {
        this(drc, alloc, RpcObserver.NONE);
    }

    /** @param observer told of every record handled (metrics); {@link RpcObserver#NONE} for none */
    public RpcDispatcher(DuplicateRequestCache drc, ByteBufAllocator alloc, RpcObserver observer) {
        this.drc = drc;
        this.alloc = alloc;
        this.observer = observer;
    }

    /** Who is told of the records handled, and of the connections of the transports that feed this dispatcher. */
    public RpcObserver observer() {
        return observer;
    }

    /**
     * RPCSEC_GSS (RFC 2203) for every program of this dispatcher: contexts are created and checked
     * here, and programs see a call's verified {@link io.rdmagate.oncrpc.rpc.GssPrincipal}. Without
     * it, RPCSEC_GSS calls are AUTH_REJECTEDCRED.
     */
    public RpcDispatcher gss(io.rdmagate.oncrpc.gss.RpcSecGss gss) {
        this.gss = gss;
        return this;
    }

    public RpcDispatcher register(RpcProgram program) {
        if (programs.putIfAbsent(program.program(), program) != null) {
            throw new IllegalArgumentException("program " + program.program() + " is registered already");
        }
        return this;
    }

    public Map<Integer, RpcProgram> programs() {
        return Map.copyOf(programs);
    }

    public DuplicateRequestCache drc() {
        return drc;
    }

    /**
     * A transport established {@code connection}: every program hears of it
     * ({@link RpcProgram#connectionOpened}). Transports call this once per connection, before its
     * first call is dispatched.
     */
    public void connectionOpened(Connection connection) {
        for (RpcProgram p : programs.values()) {
            try {
                p.connectionOpened(connection);
            } catch (RuntimeException e) {
                LOG.warn("program {} failed on the opening of connection {}", p.name(), connection.id(), e);
            }
        }
    }

    /**
     * {@code connection} ended: every program releases what it kept for it
     * ({@link RpcProgram#connectionClosed}). Transports call this exactly once per connection
     * they opened, when it is gone.
     */
    public void connectionClosed(Connection connection) {
        for (RpcProgram p : programs.values()) {
            try {
                p.connectionClosed(connection);
            } catch (RuntimeException e) {
                LOG.warn("program {} failed on the closing of connection {}", p.name(), connection.id(), e);
            }
        }
    }

    /**
     * The reply to {@code record}, or null for none. The record stays the caller's (it releases it
     * after this returns); its reader index moves.
     */
    public XdrMessage dispatch(ByteBuf record, Connection connection) {
        long start = System.nanoTime();
        int bytes = record.readableBytes();
        int at = record.readerIndex();
        if (bytes < 8 || record.getInt(at + 4) != Rpc.CALL) {
            observer.completed(connection, null, null, bytes, null, start);
            return null;
        }
        int xid = record.getInt(at);
        CallHeader h;
        XdrMessage reply;
        try {
            h = new CallHeaderDecoder().decode(record);
        } catch (XdrException e) {
            LOG.debug("{}: garbage call header from {}: {}", connection.transport(), connection.peer(), e.getMessage());
            reply = accepted(xid, Rpc.GARBAGE_ARGS);
            observer.completed(connection, null, null, bytes, reply, start);
            return reply;
        } catch (RpcRejectedException e) {
            LOG.debug("{}: call from {} denied: {}", connection.transport(), connection.peer(), e.getMessage());
            reply = denied(xid, e);
            observer.completed(connection, null, null, bytes, reply, start);
            return reply;
        }
        RpcProgram p = programs.get(h.program());
        GssCall gssCall = null;
        if (p != null && h.credentials() instanceof RpcGssCred g) {
            var sec = gss;
            try {
                if (sec == null) {
                    throw RpcRejectedException.authError(AuthStat.AUTH_REJECTEDCRED, "RPCSEC_GSS: no Kerberos configured");
                }
                if (g.gssProc() == RpcGssCred.INIT || g.gssProc() == RpcGssCred.CONTINUE_INIT) {
                    reply = sec.init(h, g, record, alloc);
                    observer.completed(connection, p, h, bytes, reply, start);
                    return reply;
                }
                var checked = sec.verify(h, g);
                if (checked == null) {
                    observer.completed(connection, p, h, bytes, null, start);
                    return null; // RFC 2203 §5.3.3.1: a replay or a call below the window is dropped
                }
                if (g.gssProc() == RpcGssCred.DESTROY) {
                    sec.destroyed(g);
                    reply = message(ReplyHeaders.accepted(alloc.buffer(64), xid, Rpc.SUCCESS, checked.replyVerifier()));
                    observer.completed(connection, p, h, bytes, reply, start);
                    return reply;
                }
                h = checked.header();
                gssCall = new GssCall(sec, checked);
            } catch (RpcRejectedException e) {
                LOG.debug("{}: RPCSEC_GSS call from {} denied: {}", connection.transport(), connection.peer(), e.getMessage());
                reply = denied(xid, e);
                observer.completed(connection, p, h, bytes, reply, start);
                return reply;
            }
        }
        reply = p == null ? accepted(xid, Rpc.PROG_UNAVAIL) : call(p, h, record, connection, gssCall);
        observer.completed(connection, p, h, bytes, reply, start);
        return reply;
    }

    /** A call checked under RPCSEC_GSS: whose arguments and results its service unwraps and wraps. */
    private record GssCall(io.rdmagate.oncrpc.gss.RpcSecGss sec, io.rdmagate.oncrpc.gss.RpcSecGss.Verified verified) {
    }

    private XdrMessage call(RpcProgram p, CallHeader h, ByteBuf record, Connection connection, GssCall gss) {
        int xid = h.xid();
        if (h.version() < p.lowVersion() || h.version() > p.highVersion()) {
            return message(ReplyHeaders.progMismatch(alloc.buffer(32), xid, p.lowVersion(), p.highVersion()));
        }
        if (drc == null || !p.isNonIdempotent(h.version(), h.procedure())) {
            return protect(p, h, gss, run(p, h, record, connection, gss));
        }
        DuplicateRequestCache.Key key = drc.key(connection.peer(), xid, h.program(), h.version(), h.procedure(), record);
        DuplicateRequestCache.Lookup hit = drc.begin(key);
        switch (hit.state()) {
            case IN_PROGRESS -> {
                return null;
            }
            case DONE -> {
                // the cache keeps replies as the program made them: an RPCSEC_GSS retransmission has a
                // new sequence number, so its verifier and protection are made for it now, as knfsd does
                byte[] cached = gss == null ? hit.reply() : ReplyHeaders.withVerifier(hit.reply(), gss.verified().replyVerifier());
                return protect(p, h, gss, new XdrMessage(Unpooled.wrappedBuffer(cached), null, -1, Unpooled.EMPTY_BUFFER));
            }
            default -> {
                XdrMessage reply = null;
                try {
                    reply = run(p, h, record, connection, gss);
                } finally {
                    drc.complete(key, reply);
                }
                return protect(p, h, gss, reply);
            }
        }
    }

    /** The reply under the call's RPCSEC_GSS service (integrity, privacy); as it is otherwise. */
    private XdrMessage protect(RpcProgram p, CallHeader h, GssCall gss, XdrMessage reply) {
        if (gss == null || reply == null) {
            return reply;
        }
        try {
            return gss.sec().reply(gss.verified(), reply, alloc);
        } catch (io.rdmagate.gateway.spi.security.KerberosException e) {
            LOG.warn("{} v{} proc {}: cannot protect the reply: {}", p.name(), h.version(), h.procedure(), e.getMessage());
            return message(ReplyHeaders.accepted(alloc.buffer(64), h.xid(), Rpc.SYSTEM_ERR, gss.verified().replyVerifier()));
        }
    }

    private XdrMessage run(RpcProgram p, CallHeader h, ByteBuf record, Connection connection, GssCall gss) {
        int xid = h.xid();
        byte[] verifier = gss == null ? null : gss.verified().replyVerifier();
        try {
            ByteBuf args = gss == null ? record : gss.sec().arguments(gss.verified(), record);
            return p.handle(new RpcCall(h, args, connection, alloc, verifier));
        } catch (XdrException e) {
            LOG.debug("{} v{} proc {}: garbage arguments from {}: {}", p.name(), h.version(), h.procedure(),
                    connection.peer(), e.getMessage());
            return message(ReplyHeaders.accepted(alloc.buffer(64), xid, Rpc.GARBAGE_ARGS, verifier));
        } catch (RpcErrorException e) {
            return message(ReplyHeaders.accepted(alloc.buffer(64), xid, e.acceptStat(), verifier));
        } catch (RpcRejectedException e) {
            return denied(xid, e);
        } catch (RuntimeException | Error e) {
            if (e instanceof VirtualMachineError vme && !(e instanceof OutOfMemoryError)) {
                throw vme;
            }
            LOG.warn("{} v{} proc {} from {} failed; replying SYSTEM_ERR", p.name(), h.version(), h.procedure(),
                    connection.peer(), e);
            return message(ReplyHeaders.accepted(alloc.buffer(64), xid, Rpc.SYSTEM_ERR, verifier));
        }
    }

    private XdrMessage accepted(int xid, int acceptStat) {
        return message(ReplyHeaders.accepted(alloc.buffer(24), xid, acceptStat));
    }

    private XdrMessage denied(int xid, RpcRejectedException e) {
        ByteBuf b = alloc.buffer(24);
        if (e.rejectStat() == Rpc.RPC_MISMATCH) {
            ReplyHeaders.rpcMismatch(b, xid);
        } else {
            ReplyHeaders.authError(b, xid, e.authStat());
        }
        return message(b);
    }

    private static XdrMessage message(ByteBuf head) {
        return new XdrMessage(head, null, -1, Unpooled.EMPTY_BUFFER);
    }
}
