package io.rdmagate.nfs.v4.callback;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.rdmagate.nfs.v4.state.BackChannel;
import io.rdmagate.nfs.v4.state.Stateid;
import io.rdmagate.oncrpc.rpc.CallHeaders;
import io.rdmagate.oncrpc.rpc.ReplyHeader;
import io.rdmagate.oncrpc.server.Backchannel;
import io.rdmagate.oncrpc.xdr.XdrDecoder;
import io.rdmagate.oncrpc.xdr.XdrException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Calls to a client's NFSv4.1 callback service (RFC 8881 §20: program csa_cb_program, version 1)
 * on its session's back channel.
 *
 * <p>Operation: a call is encoded whole (RPC call header with the credential the client asked for
 * in csa_sec_parms, then the arguments) and handed to the session's {@link BackChannel}
 * connection, which frames it for its transport (a TCP record, or an RPC-over-RDMA inline Send)
 * and matches the reply by xid. {@link #probe} sends CB_NULL, as knfsd probes a new back channel,
 * on a virtual thread, and records whether the client answered: SEQUENCE reports the path down
 * otherwise, and the client binds another connection (BIND_CONN_TO_SESSION).
 *
 * <p>CB_COMPOUNDs (RFC 8881 §20.2) open with CB_SEQUENCE on slot 0 of the back channel's slot
 * table: one at a time per session (the slot is held until the reply or the failure), its
 * sequence id advanced by each reply. A call that gets no reply puts the path down, as a failed
 * probe does.
 */
public final class Callbacks {
    private static final Logger LOG = LoggerFactory.getLogger(Callbacks.class);
    /** RFC 8881 §20: the callback program's version. */
    public static final int CB_VERSION = 1;
    public static final int CB_NULL = 0;
    public static final int CB_COMPOUND = 1;
    static final int OP_CB_SEQUENCE = 11;
    static final int OP_CB_RECALL = 4;
    static final int OP_CB_RECALL_ANY = 8;
    /** RFC 8881 §20.6.3: read and write delegations of files (RCA4_TYPE_MASK_RDATA_DLG, _WDATA_DLG). */
    static final int RCA4_TYPE_MASK_FILE_DELEGATIONS = 0b11;
    static final int OP_CB_NOTIFY_LOCK = 13;
    private static final AtomicInteger XIDS = new AtomicInteger(ThreadLocalRandom.current().nextInt());
    /** Calls made in this process, by kind ({@link #CB_NULL}, {@link #OP_CB_NOTIFY_LOCK}, {@link #OP_CB_RECALL}) and outcome. */
    private static final java.util.concurrent.ConcurrentHashMap<String, java.util.concurrent.atomic.LongAdder> SENT =
            new java.util.concurrent.ConcurrentHashMap<>();

    /** How many calls named {@code name} ("CB_NULL", "CB_NOTIFY_LOCK", "CB_RECALL") this process made with this outcome. */
    public static long sent(String name, boolean ok) {
        var n = SENT.get(name + (ok ? ":ok" : ":failed"));
        return n == null ? 0 : n.sum();
    }

    private static void count(String name, boolean ok) {
        SENT.computeIfAbsent(name + (ok ? ":ok" : ":failed"), k -> new java.util.concurrent.atomic.LongAdder()).increment();
    }

    private Callbacks() {
    }

    /**
     * CB_NULL on the back channel as it is now; the outcome goes into {@code back} and completes
     * the future (true when the client answered with success). Never fails the future.
     */
    public static CompletableFuture<Boolean> probe(BackChannel back) {
        Backchannel c = back.connection();
        CompletableFuture<Boolean> done = new CompletableFuture<>();
        Thread.ofVirtual().name("nfs4-cb-probe").start(() -> {
            ByteBuf call = CallHeaders.write(Unpooled.buffer(128), XIDS.incrementAndGet(), back.program(), CB_VERSION,
                    CB_NULL, back.credentials());
            c.call(call).whenComplete((reply, failure) -> {
                boolean ok = failure == null && accepted(reply);
                if (reply != null) {
                    reply.release();
                }
                back.probed(c, ok);
                count("CB_NULL", ok);
                if (!ok) {
                    LOG.info("callback path to an NFSv4.1 client is down: CB_NULL {}",
                            failure != null ? "failed: " + failure.getMessage() : "was not accepted");
                }
                done.complete(ok);
            });
        });
        return done;
    }

    /**
     * CB_NOTIFY_LOCK (RFC 8881 §20.11): the lock {@code owner} of {@code clientId} waited for on
     * {@code fh} may be free now; the client tries its LOCK again. Sent on a virtual thread;
     * completes with whether the client accepted it, never fails.
     */
    public static CompletableFuture<Boolean> notifyLock(BackChannel back, byte[] sessionId, byte[] fh, long clientId,
            byte[] owner) {
        return compound(back, sessionId, OP_CB_NOTIFY_LOCK, "CB_NOTIFY_LOCK", b -> {
            opaque(b, fh);
            b.writeLong(clientId);
            opaque(b, owner);
        }).thenApply(status -> status == 0);
    }

    /**
     * CB_RECALL (RFC 8881 §20.2): the client returns the delegation {@code stateid} of {@code fh}
     * (DELEGRETURN), flushing what it changed first; {@code truncate} tells it the file will be
     * truncated to zero. Completes with the CB_COMPOUND's status (NFS4_OK: the client will return
     * it), or -1 when no reply came; never fails.
     */
    public static CompletableFuture<Integer> recall(BackChannel back, byte[] sessionId, Stateid stateid, boolean truncate,
            byte[] fh) {
        return compound(back, sessionId, OP_CB_RECALL, "CB_RECALL", b -> {
            b.writeInt(stateid.seqid()).writeBytes(stateid.other());
            b.writeInt(truncate ? 1 : 0);
            opaque(b, fh);
        });
    }

    /**
     * CB_RECALL_ANY (RFC 8881 §20.6): the client keeps at most {@code keep} of its file delegations
     * and returns the others (DELEGRETURN). Completes with the CB_COMPOUND's status, -1 when no
     * reply came; never fails.
     */
    public static CompletableFuture<Integer> recallAny(BackChannel back, byte[] sessionId, int keep) {
        return compound(back, sessionId, OP_CB_RECALL_ANY, "CB_RECALL_ANY", b -> {
            b.writeInt(keep);
            b.writeInt(1).writeInt(RCA4_TYPE_MASK_FILE_DELEGATIONS); // bitmap4 of one word
        });
    }

    /**
     * One CB_COMPOUND of CB_SEQUENCE and operation {@code op} with these arguments, on slot 0;
     * completes with the compound's status, -1 when no reply came.
     */
    private static CompletableFuture<Integer> compound(BackChannel back, byte[] sessionId, int op, String name,
            java.util.function.Consumer<ByteBuf> args) {
        CompletableFuture<Integer> done = new CompletableFuture<>();
        Thread.ofVirtual().name("nfs4-cb").start(() -> {
            int status = -1;
            try {
                back.acquireSlot();
            } catch (InterruptedException e) {
                done.complete(-1);
                return;
            }
            Backchannel c = back.connection();
            try {
                int seq = back.slotSequence() + 1;
                ByteBuf call = CallHeaders.write(Unpooled.buffer(256), XIDS.incrementAndGet(), back.program(),
                        CB_VERSION, CB_COMPOUND, back.credentials());
                call.writeInt(0); // tag
                call.writeInt(back.minorVersion()); // the session's minor version
                call.writeInt(0); // callback_ident: not used by 4.1
                call.writeInt(2);
                call.writeInt(OP_CB_SEQUENCE);
                call.writeBytes(sessionId);
                call.writeInt(seq);
                call.writeInt(0); // slot
                call.writeInt(0); // highest slot
                call.writeInt(0); // cachethis: false
                call.writeInt(0); // referring_call_lists
                call.writeInt(op);
                args.accept(call);
                ByteBuf reply = c.call(call).get();
                try {
                    back.sequenced(seq); // the client saw this sequence id, whatever it answered
                    status = compoundStatus(reply);
                } finally {
                    reply.release();
                }
            } catch (java.util.concurrent.ExecutionException e) {
                back.probed(c, false);
                LOG.info("callback path to an NFSv4.1 client is down: {}", e.getCause().getMessage());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } finally {
                back.releaseSlot();
                count(name, status == 0);
                done.complete(status);
            }
        });
        return done;
    }

    /**
     * CB_COMPOUND4res's status after a reply accepted with SUCCESS; -1 for any other reply, or one
     * that does not decode. Reads a duplicate: {@code reply} is left as it was.
     */
    public static int compoundStatus(ByteBuf reply) {
        try {
            XdrDecoder d = new XdrDecoder(reply.duplicate());
            return ReplyHeader.decode(d).isSuccess() ? d.readInt() : -1;
        } catch (XdrException e) {
            return -1;
        }
    }

    private static void opaque(ByteBuf b, byte[] data) {
        b.writeInt(data.length).writeBytes(data).writeZero(-data.length & 3);
    }

    /** Whether a reply message is MSG_ACCEPTED with SUCCESS (RFC 5531 §9). */
    static boolean accepted(ByteBuf reply) {
        try {
            return ReplyHeader.decode(new XdrDecoder(reply.duplicate())).isSuccess();
        } catch (XdrException e) {
            return false;
        }
    }
}
