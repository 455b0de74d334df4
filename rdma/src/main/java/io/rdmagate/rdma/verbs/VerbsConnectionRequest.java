package io.rdmagate.rdma.verbs;

import io.rdmagate.rdma.ConnectionRequest;
import io.rdmagate.rdma.QpConfig;
import io.rdmagate.rdma.QueuePair;
import io.rdmagate.rdma.QueuePairSetup;
import io.rdmagate.rdma.RdmaException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An RDMA_CM_EVENT_CONNECT_REQUEST, its private data copied out before the event was acked.
 *
 * <p>Operation: {@link #accept} makes the queue pair on the request's id ({@code rdma_create_qp}),
 * runs the setup on it (receives posted) and only then calls {@code rdma_accept} with the private
 * data, IRD and ORD, so whatever the peer sends first finds its receive; the id's later events go
 * to the queue pair. {@link #reject} calls {@code rdma_reject} with the private data and destroys
 * the id. Either may be called from any thread, once.
 *
 * <p>IRD and ORD (man rdma_get_cm_event, CONN EVENT DATA): the request's {@code responder_resources}
 * "matches the initiator depth specified by the remote node" (the peer's ORD) and its
 * {@code initiator_depth} "the responder resources specified by the remote node" (the peer's IRD);
 * the kernel fills them so for InfiniBand and for iWARP alike (siw_cm_upcall swaps MPA's IRD and ORD
 * for a connect request). Our ORD must not exceed the peer's IRD (man rdma_accept).
 */
final class VerbsConnectionRequest implements ConnectionRequest, CmEventLoop.Endpoint {
    private static final Logger log = LoggerFactory.getLogger(VerbsConnectionRequest.class);

    private final VerbsDevice device;
    private final CmEventLoop loop;
    private final MemorySegment id;
    private final CmEvent request;
    private final InetSocketAddress remote;
    private final InetSocketAddress local;
    private final AtomicBoolean answered = new AtomicBoolean();
    private volatile String gone;

    VerbsConnectionRequest(VerbsDevice device, CmEventLoop loop, MemorySegment id, CmEvent request) {
        this.device = device;
        this.loop = loop;
        this.id = id;
        this.request = request;
        this.remote = SockAddr.peer(id);
        this.local = SockAddr.local(id);
    }

    @Override
    public InetSocketAddress remoteAddress() {
        return remote;
    }

    @Override
    public InetSocketAddress localAddress() {
        return local;
    }

    /** As received; over InfiniBand and RoCE the whole 56-byte field, zero-padded. */
    @Override
    public byte[] privateData() {
        return request.privateData().clone();
    }

    /** The peer's IRD: how many reads we may have outstanding against it. */
    @Override
    public int requestedIrd() {
        return request.initiatorDepth();
    }

    /** The peer's ORD: how many reads it wants outstanding against us. */
    @Override
    public int requestedOrd() {
        return request.responderResources();
    }

    @Override
    public QueuePair accept(QpConfig config, byte[] privateData, QueuePairSetup setup) throws RdmaException {
        device.check(config, privateData);
        if (!answered.compareAndSet(false, true)) {
            throw new RdmaException("connection request already answered");
        }
        if (gone != null) {
            throw new RdmaException("the connect request from " + remote + " ended: " + gone);
        }
        VerbsQueuePair qp;
        try {
            qp = VerbsQueuePair.create(device, loop, id, config, "from " + remote);
        } catch (RdmaException | RuntimeException e) {
            refuse(new byte[0]);
            throw e;
        }
        int ird = config.ird();
        int ord = Math.min(config.ord(), requestedIrd());
        qp.accepting(request.privateData(), ird, ord);
        try {
            setup.setup(qp);
        } catch (RdmaException | RuntimeException e) {
            rejectOnly(new byte[0]);
            qp.abandon("setup failed: " + e.getMessage());
            throw e;
        }
        loop.register(id, qp); // from here the id's events (ESTABLISHED, ...) go to the queue pair
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment errno = Libibverbs.errnoBuffer(arena);
            int rc = (int) device.cm().accept.invokeExact(errno, id, ConnParam.of(arena, privateData, ird, ord));
            if (rc != 0) {
                int e = Libibverbs.errno(errno);
                qp.abandon("rdma_accept failed: errno " + e);
                throw new RdmaException("rdma_accept of " + remote + " failed: errno " + e);
            }
        } catch (RdmaException e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException("rdma_accept", t);
        }
        qp.cmConnecting(true);
        return qp;
    }

    @Override
    public void reject(byte[] privateData) {
        if (answered.compareAndSet(false, true)) {
            refuse(privateData.length > device.limits().maxPrivateDataBytes() ? new byte[0] : privateData);
        }
    }

    /** rdma_reject, then the id goes (on the worker: the caller may be anywhere). */
    private void refuse(byte[] privateData) {
        rejectOnly(privateData);
        device.background(() -> loop.destroyId(id));
    }

    private void rejectOnly(byte[] privateData) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment errno = Libibverbs.errnoBuffer(arena);
            MemorySegment data = MemorySegment.NULL;
            if (privateData.length > 0) {
                data = arena.allocate(privateData.length);
                MemorySegment.copy(privateData, 0, data, ValueLayout.JAVA_BYTE, 0, privateData.length);
            }
            int rc = (int) device.cm().reject.invokeExact(errno, id, data, (byte) privateData.length);
            if (rc != 0) {
                log.debug("{}: rdma_reject of {} failed: errno {}", device.name(), remote, Libibverbs.errno(errno));
            }
        } catch (Throwable t) {
            throw new IllegalStateException("rdma_reject", t);
        }
    }

    /** Events before the request is answered: the peer gave up (or the device went). */
    @Override
    public void onCmEvent(CmEvent e) {
        gone = e.describe();
        if (answered.compareAndSet(false, true)) {
            log.debug("{}: connect request from {} ended unanswered: {}", device.name(), remote, e.describe());
            device.background(() -> loop.destroyId(id));
        }
    }
}
