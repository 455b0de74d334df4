package io.rdmagate.rdma.verbs;

import io.rdmagate.rdma.ConnectionRequestHandler;
import io.rdmagate.rdma.RdmaException;
import io.rdmagate.rdma.RdmaListener;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A listening rdma_cm_id ({@code rdma_bind_addr}, {@code rdma_listen}) on its own event loop.
 *
 * <p>Operation: the loop's thread gets each RDMA_CM_EVENT_CONNECT_REQUEST with a new id (man
 * rdma_accept: "Connection request events give the user a newly created rdma_cm_id, similar to a
 * new socket, but the rdma_cm_id is bound to a specific RDMA device"); a request that arrived on
 * another device (a listener bound to a wildcard address hears every device) is rejected; the rest
 * go to the handler as a {@link VerbsConnectionRequest}, on this thread. Accepted connections stay
 * on this loop (their ids are on its channel), so closing the listener destroys the listening id at
 * once and the loop ends after the last of its connections.
 */
final class VerbsListener implements RdmaListener, CmEventLoop.Endpoint {
    private static final Logger log = LoggerFactory.getLogger(VerbsListener.class);
    static final int BACKLOG = 128;

    private final VerbsDevice device;
    private final CmEventLoop loop;
    private final ConnectionRequestHandler handler;
    private MemorySegment id;
    private InetSocketAddress address;
    private volatile boolean closed;

    private VerbsListener(VerbsDevice device, CmEventLoop loop, ConnectionRequestHandler handler) {
        this.device = device;
        this.loop = loop;
        this.handler = handler;
    }

    static VerbsListener open(VerbsDevice device, InetSocketAddress address, ConnectionRequestHandler handler)
            throws RdmaException {
        CmEventLoop loop = CmEventLoop.open(device.name() + "-listen-" + address.getPort());
        VerbsListener l = new VerbsListener(device, loop, handler);
        MemorySegment id;
        try {
            id = loop.createId(l);
        } catch (RdmaException e) {
            loop.closeWhenIdle();
            throw e;
        }
        try {
            l.bind(id, address);
        } catch (RdmaException | RuntimeException e) {
            loop.destroyId(id);
            loop.closeWhenIdle();
            throw e;
        }
        return l;
    }

    private void bind(MemorySegment listenId, InetSocketAddress requested) throws RdmaException {
        Librdmacm cm = device.cm();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment errno = Libibverbs.errnoBuffer(arena);
            MemorySegment sa = SockAddr.of(arena, requested);
            int rc = (int) cm.bindAddr.invokeExact(errno, listenId, sa);
            if (rc != 0) {
                throw new RdmaException("cannot listen on " + requested + ": rdma_bind_addr failed: errno "
                        + Libibverbs.errno(errno) + " (98: in use; 99: no RDMA device has that address)");
            }
            // a specific address binds the id to that address's device (man rdma_listen); a wildcard binds none
            MemorySegment verbs = listenId.get(ValueLayout.ADDRESS, RdmaCmAbi.ID_VERBS);
            if (!verbs.equals(MemorySegment.NULL) && verbs.address() != device.context().address()) {
                throw new RdmaException(requested + " belongs to another RDMA device than " + device.name());
            }
            rc = (int) cm.listen.invokeExact(errno, listenId, BACKLOG);
            if (rc != 0) {
                throw new RdmaException("rdma_listen on " + requested + " failed: errno " + Libibverbs.errno(errno));
            }
        } catch (UnknownHostException e) {
            throw new RdmaException("cannot listen on unresolved " + requested, e);
        } catch (RdmaException e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException("rdma_bind_addr/rdma_listen", t);
        }
        this.id = listenId;
        InetSocketAddress bound = SockAddr.local(listenId);
        this.address = bound != null ? bound : requested;
    }

    @Override
    public InetSocketAddress localAddress() {
        return address;
    }

    @Override
    public void onCmEvent(CmEvent e) {
        switch (e.type()) {
            case RdmaCmAbi.CONNECT_REQUEST -> request(e);
            case RdmaCmAbi.DEVICE_REMOVAL -> log.warn("{}: device removed under the listener on {}", device.name(), address);
            default -> log.debug("{}: listener on {}: {}", device.name(), address, e.describe());
        }
    }

    private void request(CmEvent e) {
        MemorySegment requestId = e.idSegment();
        MemorySegment verbs = requestId.get(ValueLayout.ADDRESS, RdmaCmAbi.ID_VERBS);
        if (closed || verbs.address() != device.context().address()) {
            log.debug("{}: connect request on {} refused ({})", device.name(), address,
                    closed ? "listener closed" : "it came in on another device");
            loop.rejectAndDestroy(requestId);
            return;
        }
        VerbsConnectionRequest request = new VerbsConnectionRequest(device, loop, requestId, e);
        loop.register(requestId, request);
        try {
            handler.onRequest(request);
        } catch (RuntimeException ex) {
            log.warn("{}: connection request handler failed; the request is rejected", device.name(), ex);
            request.reject(new byte[0]);
        }
    }

    /** Destroys the listening id; connections accepted through it go on until they end. */
    @Override
    public void close() {
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
        }
        loop.destroyId(id);
        loop.closeWhenIdle();
        device.forget(this);
    }
}
