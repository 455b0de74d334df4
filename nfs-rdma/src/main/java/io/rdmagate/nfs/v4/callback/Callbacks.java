package io.rdmagate.nfs.v4.callback;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.rdmagate.nfs.v4.state.BackChannel;
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
 */
public final class Callbacks {
    private static final Logger LOG = LoggerFactory.getLogger(Callbacks.class);
    /** RFC 8881 §20: the callback program's version. */
    public static final int CB_VERSION = 1;
    public static final int CB_NULL = 0;
    public static final int CB_COMPOUND = 1;
    private static final AtomicInteger XIDS = new AtomicInteger(ThreadLocalRandom.current().nextInt());

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
                if (!ok) {
                    LOG.info("callback path to an NFSv4.1 client is down: CB_NULL {}",
                            failure != null ? "failed: " + failure.getMessage() : "was not accepted");
                }
                done.complete(ok);
            });
        });
        return done;
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
