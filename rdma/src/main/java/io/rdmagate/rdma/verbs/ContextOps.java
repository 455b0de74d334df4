package io.rdmagate.rdma.verbs;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;

/**
 * The data-path verbs of one device context: {@code ibv_poll_cq}, {@code ibv_req_notify_cq},
 * {@code ibv_post_send} and {@code ibv_post_recv} are {@code static inline} in
 * {@code <infiniband/verbs.h>} (rdma-core 44, lines 2886-2903 and 3339-3352): each calls the function
 * pointer the provider put in {@code context->ops} ({@code cq->context->ops.poll_cq(cq, n, wc)},
 * {@code qp->context->ops.post_send(qp, wr, bad_wr)}, ...). This reads those four pointers once,
 * from the context every CQ and QP of the device belongs to, and binds a downcall handle to each.
 *
 * <p>Operation: a poster calls {@link #postSend}/{@link #postRecv} with a chain of work requests it
 * laid out in native memory; the completion poller calls {@link #reqNotifyCq} and {@link #pollCq}.
 * These calls report failure in their return value (an errno value for posts, a negative count for
 * polls: man ibv_post_send, ibv_poll_cq), so no errno is captured and nothing is allocated per call.
 */
final class ContextOps {
    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT;
    private static final ValueLayout PTR = ValueLayout.ADDRESS;

    /** {@code int poll_cq(struct ibv_cq *cq, int num_entries, struct ibv_wc *wc)}. */
    private final MethodHandle pollCq;
    /** {@code int req_notify_cq(struct ibv_cq *cq, int solicited_only)}. */
    private final MethodHandle reqNotifyCq;
    /** {@code int post_send(struct ibv_qp *qp, struct ibv_send_wr *wr, struct ibv_send_wr **bad_wr)}. */
    private final MethodHandle postSend;
    /** {@code int post_recv(struct ibv_qp *qp, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad_wr)}. */
    private final MethodHandle postRecv;

    private ContextOps(MethodHandle pollCq, MethodHandle reqNotifyCq, MethodHandle postSend, MethodHandle postRecv) {
        this.pollCq = pollCq;
        this.reqNotifyCq = reqNotifyCq;
        this.postSend = postSend;
        this.postRecv = postRecv;
    }

    /** The ops of {@code context} (a {@code struct ibv_context *}); refuses a provider that left one empty. */
    static ContextOps of(MemorySegment context, String device) throws VerbsUnavailableException {
        MemorySegment ops = context.reinterpret(IbvAbi.CONTEXT_OPS + IbvAbi.CONTEXT_OPS_BYTES)
                .asSlice(IbvAbi.CONTEXT_OPS, IbvAbi.CONTEXT_OPS_BYTES);
        return new ContextOps(
                bind(ops, IbvAbi.OPS_POLL_CQ, "poll_cq", device, FunctionDescriptor.of(INT, PTR, INT, PTR)),
                bind(ops, IbvAbi.OPS_REQ_NOTIFY_CQ, "req_notify_cq", device, FunctionDescriptor.of(INT, PTR, INT)),
                bind(ops, IbvAbi.OPS_POST_SEND, "post_send", device, FunctionDescriptor.of(INT, PTR, PTR, PTR)),
                bind(ops, IbvAbi.OPS_POST_RECV, "post_recv", device, FunctionDescriptor.of(INT, PTR, PTR, PTR)));
    }

    private static MethodHandle bind(MemorySegment ops, long offset, String name, String device, FunctionDescriptor d)
            throws VerbsUnavailableException {
        MemorySegment fn = ops.get(ValueLayout.ADDRESS, offset);
        if (fn.equals(MemorySegment.NULL)) {
            throw new VerbsUnavailableException("the libibverbs provider of " + device + " has no ops." + name);
        }
        return Linker.nativeLinker().downcallHandle(fn, d);
    }

    /** Polls up to {@code n} completions into {@code wc} (n * 48 bytes); the count, or negative on error. */
    int pollCq(MemorySegment cq, int n, MemorySegment wc) {
        try {
            return (int) pollCq.invokeExact(cq, n, wc);
        } catch (Throwable t) {
            throw new IllegalStateException("poll_cq", t);
        }
    }

    /** Arms the CQ: its next completion (of any kind) puts an event on its completion channel. */
    int reqNotifyCq(MemorySegment cq) {
        try {
            return (int) reqNotifyCq.invokeExact(cq, 0);
        } catch (Throwable t) {
            throw new IllegalStateException("req_notify_cq", t);
        }
    }

    /** Posts the chain starting at {@code wr}; 0, or an errno value with {@code *badWr} the first not posted. */
    int postSend(MemorySegment qp, MemorySegment wr, MemorySegment badWr) {
        try {
            return (int) postSend.invokeExact(qp, wr, badWr);
        } catch (Throwable t) {
            throw new IllegalStateException("post_send", t);
        }
    }

    /** Posts the receive chain starting at {@code wr}; as {@link #postSend}. */
    int postRecv(MemorySegment qp, MemorySegment wr, MemorySegment badWr) {
        try {
            return (int) postRecv.invokeExact(qp, wr, badWr);
        } catch (Throwable t) {
            throw new IllegalStateException("post_recv", t);
        }
    }
}
