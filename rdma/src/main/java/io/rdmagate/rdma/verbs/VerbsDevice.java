package io.rdmagate.rdma.verbs;

import io.rdmagate.rdma.CompletionHandler;
import io.rdmagate.rdma.CompletionQueue;
import io.rdmagate.rdma.ConnectionRequestHandler;
import io.rdmagate.rdma.DeviceLimits;
import io.rdmagate.rdma.ProtectionDomain;
import io.rdmagate.rdma.QpConfig;
import io.rdmagate.rdma.QueuePair;
import io.rdmagate.rdma.QueuePairSetup;
import io.rdmagate.rdma.RdmaDevice;
import io.rdmagate.rdma.RdmaException;
import io.rdmagate.rdma.RdmaListener;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A hardware RDMA device (InfiniBand, RoCE, iWARP: anything rdma-core drives, rxe and siw
 * included) through libibverbs and librdmacm, with no native code of ours.
 *
 * <p>Operation: {@link #open} takes the device's context from {@code rdma_get_devices} (librdmacm's
 * own, which every rdma_cm_id bound to the device uses, so that {@code rdma_create_qp} accepts our
 * protection domains and CQs), reads its limits ({@code ibv_query_device}, {@code ibv_query_port} of
 * port 1) and starts its {@link CompletionPoller}. Protection domains, CQs, listeners and connects
 * are made on it; {@link VerbsListener} serves incoming connections on its own rdma_cm event loop,
 * {@link VerbsConnector} outgoing ones on the device's. One worker thread makes the calls that may
 * block and must not run on the event threads (QP shutdown and destruction, id destruction).
 *
 * <p>Private data: rdma_cm over InfiniBand and RoCE carries at most 56 bytes in a connect, 196 in
 * an accept and 148 in a reject, and delivers the whole fixed-size field, zero-padded (man
 * rdma_connect, rdma_accept; rdma_get_cm_event: "the size of the private data buffer may be larger
 * than the amount of private data sent"); iWARP (MPA) carries what was sent. {@link #limits()} gives
 * the smallest.
 */
public final class VerbsDevice implements RdmaDevice {
    private static final Logger log = LoggerFactory.getLogger(VerbsDevice.class);
    /** rdma_cm's private data limits (man rdma_connect): IB and RoCE connect, iWARP kept below MPA's 256 with v2. */
    static final int IB_PRIVATE_DATA = 56;
    static final int IWARP_PRIVATE_DATA = 196;

    private final String name;
    private final Libibverbs ib;
    private final Librdmacm cm;
    private final MemorySegment deviceList;
    private final MemorySegment context;
    private final ContextOps ops;
    private final boolean iwarp;
    private final DeviceLimits limits;
    private final int maxSgeRead;
    private final int maxCqe;
    private final long maxMrSize;
    private final CompletionPoller poller;
    private final ScheduledThreadPoolExecutor worker;
    private final QueuePairTable queuePairs = new QueuePairTable();
    private final Map<Integer, VerbsMemoryRegion> regionsByRkey = new ConcurrentHashMap<>();
    private final Set<VerbsProtectionDomain> domains = ConcurrentHashMap.newKeySet();
    private final Set<VerbsListener> listeners = ConcurrentHashMap.newKeySet();
    private CmEventLoop outbound;
    private volatile boolean closed;

    private VerbsDevice(String name, Libibverbs ib, Librdmacm cm, MemorySegment deviceList, MemorySegment context,
            boolean iwarp, MemorySegment attr, long maxMessage) throws VerbsUnavailableException {
        this.name = name;
        this.ib = ib;
        this.cm = cm;
        this.deviceList = deviceList;
        this.context = context;
        this.iwarp = iwarp;
        this.ops = ContextOps.of(context, name);
        int maxQpWr = attr.get(ValueLayout.JAVA_INT, IbvAbi.ATTR_MAX_QP_WR);
        // rdma_conn_param carries IRD and ORD in a byte each; 255 means "the device's maximum" (RDMA_MAX_RESP_RES)
        this.limits = new DeviceLimits(maxQpWr, maxQpWr, attr.get(ValueLayout.JAVA_INT, IbvAbi.ATTR_MAX_SGE),
                Math.min(attr.get(ValueLayout.JAVA_INT, IbvAbi.ATTR_MAX_QP_RD_ATOM), 254),
                Math.min(attr.get(ValueLayout.JAVA_INT, IbvAbi.ATTR_MAX_QP_INIT_RD_ATOM), 254), maxMessage,
                iwarp ? IWARP_PRIVATE_DATA : IB_PRIVATE_DATA);
        this.maxSgeRead = attr.get(ValueLayout.JAVA_INT, IbvAbi.ATTR_MAX_SGE_RD);
        this.maxCqe = attr.get(ValueLayout.JAVA_INT, IbvAbi.ATTR_MAX_CQE);
        this.maxMrSize = attr.get(ValueLayout.JAVA_LONG, IbvAbi.ATTR_MAX_MR_SIZE);
        this.worker = new ScheduledThreadPoolExecutor(1,
                r -> Thread.ofPlatform().daemon().name("verbs-worker-" + name).unstarted(r));
        this.worker.setRemoveOnCancelPolicy(true);
        this.poller = CompletionPoller.start(this);
    }

    /**
     * Opens the RDMA device called {@code name} ({@code rxe0}, {@code siw0}, {@code mlx5_0}: as
     * {@code ibv_devices} and {@code rdmagate rdma devices} list them).
     *
     * @throws VerbsUnavailableException no library, an unsupported platform, no RDMA in the kernel, or no
     *         such device (the message lists those there are)
     */
    public static VerbsDevice open(String name) throws VerbsUnavailableException {
        Libibverbs ib = Libibverbs.get();
        Librdmacm cm = Librdmacm.get();
        MemorySegment list;
        int n;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment errno = Libibverbs.errnoBuffer(arena);
            MemorySegment count = arena.allocate(ValueLayout.JAVA_INT);
            list = (MemorySegment) cm.getDevices.invokeExact(errno, count);
            if (list.equals(MemorySegment.NULL)) {
                throw new VerbsUnavailableException("rdma_get_devices failed: errno " + Libibverbs.errno(errno)
                        + ": no RDMA device, or rdma_cm (rdma_ucm) not loaded");
            }
            n = count.get(ValueLayout.JAVA_INT, 0);
        } catch (VerbsUnavailableException e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException("rdma_get_devices", t);
        }
        list = list.reinterpret((n + 1) * ValueLayout.ADDRESS.byteSize());
        List<String> names = new ArrayList<>(n);
        try {
            for (int i = 0; i < n; i++) {
                MemorySegment context = list.getAtIndex(ValueLayout.ADDRESS, i).reinterpret(IbvAbi.CONTEXT_OPS);
                MemorySegment device = context.get(ValueLayout.ADDRESS, IbvAbi.CONTEXT_DEVICE)
                        .reinterpret(IbvAbi.DEVICE_NAME + IbvAbi.DEVICE_NAME_BYTES);
                String deviceName = cString(device, IbvAbi.DEVICE_NAME, IbvAbi.DEVICE_NAME_BYTES);
                names.add(deviceName);
                if (deviceName.equals(name)) {
                    boolean iwarp = device.get(ValueLayout.JAVA_INT, IbvAbi.DEVICE_TRANSPORT_TYPE) == IbvAbi.TRANSPORT_IWARP;
                    return open(name, ib, cm, list, context, iwarp);
                }
            }
        } catch (VerbsUnavailableException | RuntimeException e) {
            free(cm, list);
            throw e;
        }
        free(cm, list);
        throw new VerbsUnavailableException("no RDMA device " + name + "; rdma_cm has " + (names.isEmpty() ? "none" : names));
    }

    private static VerbsDevice open(String name, Libibverbs ib, Librdmacm cm, MemorySegment list, MemorySegment context,
            boolean iwarp) throws VerbsUnavailableException {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment errno = Libibverbs.errnoBuffer(arena);
            MemorySegment attr = arena.allocate(IbvAbi.FILL_BYTES, 8);
            int rc = (int) ib.queryDevice.invokeExact(errno, context, attr);
            if (rc != 0) {
                throw new VerbsUnavailableException("ibv_query_device(" + name + ") failed: " + rc);
            }
            MemorySegment port = arena.allocate(IbvAbi.FILL_BYTES, 8);
            rc = (int) ib.queryPort.invokeExact(errno, context, (byte) 1, port);
            if (rc != 0) {
                throw new VerbsUnavailableException("ibv_query_port(" + name + ", 1) failed: " + rc);
            }
            long maxMessage = Integer.toUnsignedLong(port.get(ValueLayout.JAVA_INT, IbvAbi.PORT_MAX_MSG_SZ));
            return new VerbsDevice(name, ib, cm, list, context, iwarp, attr, maxMessage);
        } catch (VerbsUnavailableException e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException("opening " + name, t);
        }
    }

    // ------------------------------------------------------------------ RdmaDevice

    @Override
    public String name() {
        return name;
    }

    @Override
    public DeviceLimits limits() {
        return limits;
    }

    /** SGEs an RDMA Read may scatter into (max_sge_rd; siw: 1). */
    public int maxSgeRead() {
        return maxSgeRead;
    }

    /** Whether the device is iWARP (siw, cxgb4, ...) rather than InfiniBand or RoCE (rxe, mlx5, ...). */
    public boolean iwarp() {
        return iwarp;
    }

    @Override
    public ProtectionDomain allocateProtectionDomain() {
        ensureOpen();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment errno = Libibverbs.errnoBuffer(arena);
            MemorySegment pd = (MemorySegment) ib.allocPd.invokeExact(errno, context);
            if (pd.equals(MemorySegment.NULL)) {
                throw new IllegalStateException("ibv_alloc_pd on " + name + " failed: errno " + Libibverbs.errno(errno));
            }
            VerbsProtectionDomain d = new VerbsProtectionDomain(this, pd);
            domains.add(d);
            return d;
        } catch (IllegalStateException e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException("ibv_alloc_pd", t);
        }
    }

    /** A CQ of at least {@code capacity} entries (at most the device's max_cqe). */
    @Override
    public CompletionQueue createCompletionQueue(int capacity, CompletionHandler handler) {
        ensureOpen();
        return poller.create(capacity, handler);
    }

    @Override
    public RdmaListener listen(InetSocketAddress address, ConnectionRequestHandler handler) throws RdmaException {
        ensureOpenChecked();
        VerbsListener l = VerbsListener.open(this, address, handler);
        listeners.add(l);
        return l;
    }

    @Override
    public CompletableFuture<QueuePair> connect(InetSocketAddress remote, QpConfig config, byte[] privateData,
            QueuePairSetup setup) {
        return VerbsConnector.start(this, remote, config, privateData, setup);
    }

    /**
     * Refuses a configuration this device cannot build: objects of another device, limits out of
     * range, private data over the limit (as {@link io.rdmagate.rdma.spi.QpChecks} does for the
     * software providers).
     */
    void check(QpConfig c, byte[] privateData) throws RdmaException {
        ensureOpenChecked();
        if (!(c.pd() instanceof VerbsProtectionDomain p) || p.device != this) {
            throw new RdmaException("protection domain of another device");
        }
        if (!(c.sendCq() instanceof VerbsCompletionQueue s) || s.device != this
                || !(c.recvCq() instanceof VerbsCompletionQueue r) || r.device != this) {
            throw new RdmaException("completion queues of another device");
        }
        if (c.maxSendWr() <= 0 || c.maxSendWr() > limits.maxSendWr() || c.maxRecvWr() <= 0
                || c.maxRecvWr() > limits.maxRecvWr()) {
            throw new RdmaException("work request limits out of range for " + name + " (at most " + limits.maxSendWr() + ")");
        }
        if (c.maxSge() <= 0 || c.maxSge() > limits.maxSge()) {
            throw new RdmaException("SGE limit " + c.maxSge() + " out of range (device: " + limits.maxSge() + ")");
        }
        if (c.ird() < 0 || c.ird() > limits.maxInboundReads() || c.ord() < 0 || c.ord() > limits.maxOutboundReads()) {
            throw new RdmaException("IRD/ORD out of range for " + name + " (at most " + limits.maxInboundReads() + "/"
                    + limits.maxOutboundReads() + ")");
        }
        if (privateData.length > limits.maxPrivateDataBytes()) {
            throw new RdmaException("private data of " + privateData.length + " bytes; the limit is "
                    + limits.maxPrivateDataBytes());
        }
    }

    // ------------------------------------------------------------------ for the provider's classes

    Libibverbs ib() {
        return ib;
    }

    Librdmacm cm() {
        return cm;
    }

    MemorySegment context() {
        return context;
    }

    ContextOps ops() {
        return ops;
    }

    CompletionPoller poller() {
        return poller;
    }

    QueuePairTable queuePairs() {
        return queuePairs;
    }

    int maxCqe() {
        return maxCqe;
    }

    long maxMrSize() {
        return maxMrSize;
    }

    /** The rdma_cm event loop of the connections this device initiates, started on first use. */
    synchronized CmEventLoop outbound() throws RdmaException {
        ensureOpenChecked();
        if (outbound == null) {
            outbound = CmEventLoop.open(name + "-connect");
        }
        return outbound;
    }

    /** Runs {@code task} on the worker thread (calls that may block: QP shutdown, destruction). */
    void background(Runnable task) {
        try {
            worker.execute(guard(task));
        } catch (java.util.concurrent.RejectedExecutionException e) {
            guard(task).run(); // closing: the caller's thread does it
        }
    }

    /** Runs {@code task} on the worker thread after {@code delay}. */
    ScheduledFuture<?> schedule(Duration delay, Runnable task) {
        try {
            return worker.schedule(guard(task), delay.toNanos(), TimeUnit.NANOSECONDS);
        } catch (java.util.concurrent.RejectedExecutionException e) {
            return null; // closing: the close tears everything down itself
        }
    }

    private Runnable guard(Runnable task) {
        return () -> {
            try {
                task.run();
            } catch (RuntimeException e) {
                log.error("{}: worker task failed", name, e);
            }
        };
    }

    void registered(VerbsMemoryRegion r) {
        regionsByRkey.put(r.rkey(), r);
    }

    void deregistered(VerbsMemoryRegion r) {
        regionsByRkey.remove(r.rkey(), r);
    }

    /** A receive completion said the device invalidated {@code rkey} (Send with Invalidate). */
    void invalidatedByPeer(int rkey) {
        VerbsMemoryRegion r = regionsByRkey.get(rkey);
        if (r != null) {
            r.invalidatedByPeer();
        }
    }

    void forget(VerbsProtectionDomain pd) {
        domains.remove(pd);
    }

    void forget(VerbsListener l) {
        listeners.remove(l);
    }

    private void ensureOpen() {
        if (closed) {
            throw new IllegalStateException(name + " is closed");
        }
    }

    private void ensureOpenChecked() throws RdmaException {
        if (closed) {
            throw new RdmaException(name + " is closed");
        }
    }

    /**
     * Closes the listeners, disconnects every queue pair and waits (up to their teardown grace) for
     * them to be destroyed, closes what domains are left, stops the threads and gives the device list
     * back to librdmacm. The context itself stays open: it is librdmacm's (man rdma_get_devices:
     * "Devices remain opened while the librdmacm is loaded"). It waits, so it is for the owner's
     * shutdown, never for a completion handler or a connection event (their threads do the teardown).
     */
    @Override
    public void close() {
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
        }
        for (VerbsListener l : List.copyOf(listeners)) {
            l.close();
        }
        for (VerbsQueuePair qp : queuePairs.snapshot()) {
            qp.disconnect();
        }
        try {
            queuePairs.awaitEmpty(VerbsQueuePair.TEARDOWN_GRACE.plusSeconds(2).toNanos());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (queuePairs.size() > 0) {
            log.warn("{} closed with {} queue pairs not yet destroyed", name, queuePairs.size());
        }
        for (VerbsProtectionDomain pd : List.copyOf(domains)) {
            pd.close();
        }
        synchronized (this) {
            if (outbound != null) {
                outbound.closeWhenIdle();
            }
        }
        worker.shutdown();
        try {
            if (!worker.awaitTermination(5, TimeUnit.SECONDS)) {
                log.warn("{}: the worker did not finish within 5 s", name);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        poller.stop();
        free(cm, deviceList);
    }

    private static void free(Librdmacm cm, MemorySegment list) {
        try (Arena arena = Arena.ofConfined()) {
            cm.freeDevices.invokeExact(Libibverbs.errnoBuffer(arena), list);
        } catch (Throwable t) {
            throw new IllegalStateException("rdma_free_devices", t);
        }
    }

    private static String cString(MemorySegment s, long offset, int max) {
        byte[] b = s.asSlice(offset, max).toArray(ValueLayout.JAVA_BYTE);
        int n = 0;
        while (n < b.length && b[n] != 0) {
            n++;
        }
        return new String(b, 0, n, StandardCharsets.US_ASCII);
    }

    @Override
    public String toString() {
        return "verbs device " + name + (iwarp ? " (iWARP)" : " (InfiniBand/RoCE)");
    }
}
