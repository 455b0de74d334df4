package io.rdmagate.rdma.verbs;

import io.rdmagate.rdma.ConnectionRejectedException;
import io.rdmagate.rdma.QpConfig;
import io.rdmagate.rdma.QueuePair;
import io.rdmagate.rdma.QueuePairSetup;
import io.rdmagate.rdma.RdmaException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.concurrent.CompletableFuture;

/**
 * The active side of one connection, on the device's outbound rdma_cm event loop (rdma_cm(7),
 * "client operation"): {@code rdma_resolve_addr}, then at ADDR_RESOLVED {@code rdma_resolve_route},
 * then at ROUTE_RESOLVED the queue pair ({@code rdma_create_qp}), the caller's setup on it (receives
 * posted) and {@code rdma_connect} with the private data, IRD as responder resources and ORD as
 * initiator depth; at ESTABLISHED the future completes with the queue pair, whose events the id's
 * later events go to. REJECTED completes it with {@link ConnectionRejectedException} and the
 * peer's private data (over InfiniBand the whole 148-byte field, zero-padded); ADDR_ERROR,
 * ROUTE_ERROR, UNREACHABLE and CONNECT_ERROR with an {@link RdmaException} naming the event and
 * status. The future is completed off the event thread.
 *
 * <p>Reads at ESTABLISHED: InfiniBand's reply carries the peer's responder resources as the event's
 * {@code initiator_depth} (the IB CM swaps them for the receiver, as for a request); iWARP's
 * (cma_iw_handler, siw_cm_upcall) carries our own negotiated IRD as {@code initiator_depth} and ORD
 * as {@code responder_resources}. So the ORD is {@code min(ord, initiator_depth)} over InfiniBand and
 * {@code min(ord, responder_resources)} over iWARP.
 */
final class VerbsConnector implements CmEventLoop.Endpoint {
    /** Address and route resolution timeout (rping uses 2000 ms). */
    static final int RESOLVE_TIMEOUT_MS = 5000;
    private static final java.util.concurrent.Executor COMPLETIONS = r -> Thread.ofVirtual().name("verbs-connect").start(r);

    private final VerbsDevice device;
    private final CmEventLoop loop;
    private final InetSocketAddress remote;
    private final QpConfig config;
    private final byte[] privateData;
    private final QueuePairSetup setup;
    private final CompletableFuture<QueuePair> result = new CompletableFuture<>();
    private MemorySegment id;
    private VerbsQueuePair qp;
    private boolean done;

    private VerbsConnector(VerbsDevice device, CmEventLoop loop, InetSocketAddress remote, QpConfig config,
            byte[] privateData, QueuePairSetup setup) {
        this.device = device;
        this.loop = loop;
        this.remote = remote;
        this.config = config;
        this.privateData = privateData.clone();
        this.setup = setup;
    }

    static CompletableFuture<QueuePair> start(VerbsDevice device, InetSocketAddress remote, QpConfig config,
            byte[] privateData, QueuePairSetup setup) {
        CmEventLoop loop;
        try {
            device.check(config, privateData);
            loop = device.outbound();
        } catch (RdmaException e) {
            return CompletableFuture.failedFuture(e);
        }
        VerbsConnector c = new VerbsConnector(device, loop, remote, config, privateData, setup);
        c.begin();
        return c.result;
    }

    /** Creates the id and starts address resolution, on the caller's thread. */
    private synchronized void begin() {
        try (Arena arena = Arena.ofConfined()) {
            id = loop.createId(this);
            MemorySegment errno = Libibverbs.errnoBuffer(arena);
            int rc = (int) device.cm().resolveAddr.invokeExact(errno, id, MemorySegment.NULL, SockAddr.of(arena, remote),
                    RESOLVE_TIMEOUT_MS);
            if (rc != 0) {
                fail(new RdmaException("rdma_resolve_addr(" + remote + ") failed: errno " + Libibverbs.errno(errno)));
            }
        } catch (UnknownHostException e) {
            fail(new RdmaException("cannot connect to unresolved " + remote, e));
        } catch (RdmaException e) {
            fail(e);
        } catch (Throwable t) {
            fail(new RdmaException("connect to " + remote + " failed: " + t, t));
        }
    }

    @Override
    public synchronized void onCmEvent(CmEvent e) {
        if (done) {
            return;
        }
        try {
            switch (e.type()) {
                case RdmaCmAbi.ADDR_RESOLVED -> routeResolution();
                case RdmaCmAbi.ROUTE_RESOLVED -> connect();
                case RdmaCmAbi.ESTABLISHED -> established(e);
                case RdmaCmAbi.REJECTED -> fail(new ConnectionRejectedException("rejected by " + remote
                        + (e.status() != 0 ? " (status " + e.status() + ")" : ""), e.privateData()));
                default -> fail(new RdmaException("connect to " + remote + " failed: " + e.describe()));
            }
        } catch (RdmaException ex) {
            fail(ex);
        } catch (RuntimeException ex) {
            fail(new RdmaException("connect to " + remote + " failed: " + ex, ex));
        }
    }

    private void routeResolution() throws RdmaException {
        MemorySegment verbs = id.get(ValueLayout.ADDRESS, RdmaCmAbi.ID_VERBS);
        if (verbs.address() != device.context().address()) {
            throw new RdmaException(remote + " is reached through another RDMA device than " + device.name());
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment errno = Libibverbs.errnoBuffer(arena);
            int rc = (int) device.cm().resolveRoute.invokeExact(errno, id, RESOLVE_TIMEOUT_MS);
            if (rc != 0) {
                throw new RdmaException("rdma_resolve_route(" + remote + ") failed: errno " + Libibverbs.errno(errno));
            }
        } catch (RdmaException e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException("rdma_resolve_route", t);
        }
    }

    private void connect() throws RdmaException {
        qp = VerbsQueuePair.create(device, loop, id, config, "to " + remote);
        setup.setup(qp);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment errno = Libibverbs.errnoBuffer(arena);
            int rc = (int) device.cm().connect.invokeExact(errno, id,
                    ConnParam.of(arena, privateData, config.ird(), config.ord()));
            if (rc != 0) {
                throw new RdmaException("rdma_connect(" + remote + ") failed: errno " + Libibverbs.errno(errno));
            }
        } catch (RdmaException e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException("rdma_connect", t);
        }
        qp.cmConnecting(false);
    }

    private void established(CmEvent e) {
        int ord = Math.min(config.ord(), device.iwarp() ? e.responderResources() : e.initiatorDepth());
        int ird = device.iwarp() && e.initiatorDepth() > 0 ? Math.min(config.ird(), e.initiatorDepth()) : config.ird();
        done = true;
        loop.register(id, qp);
        qp.connected(e.privateData(), ird, ord);
        VerbsQueuePair established = qp;
        COMPLETIONS.execute(() -> result.complete(established));
    }

    /** Ends the attempt: the queue pair (which owns the id) or the bare id is torn down. */
    private void fail(RdmaException cause) {
        if (done) {
            return;
        }
        done = true;
        if (qp != null) {
            qp.abandon(cause.getMessage());
        } else if (id != null) {
            MemorySegment bare = id;
            device.background(() -> loop.destroyId(bare));
        }
        COMPLETIONS.execute(() -> result.completeExceptionally(cause));
    }
}
