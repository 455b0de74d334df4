package io.rdmagate.rdma.verbs;

import io.rdmagate.rdma.Access;
import io.rdmagate.rdma.MemoryRegion;
import io.rdmagate.rdma.ProtectionDomain;
import io.rdmagate.rdma.RdmaException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A protection domain ({@code ibv_alloc_pd} on the device's rdma_cm context) and the memory
 * registered in it.
 *
 * <p>Operation: {@link #register} pins and registers a native segment with {@code ibv_reg_mr} and
 * the {@code IBV_ACCESS_*} flags its {@link Access} set asks for (man ibv_reg_mr: remote write
 * requires local write, so REMOTE_WRITE registers LOCAL_WRITE too; local read is always granted).
 * {@link #close} deregisters every region at once; the domain itself is deallocated when the last
 * queue pair using it is destroyed ({@code ibv_dealloc_pd} refuses with EBUSY while a QP or MR
 * still refers to it), possibly after close returns.
 */
final class VerbsProtectionDomain implements ProtectionDomain {
    private static final Logger log = LoggerFactory.getLogger(VerbsProtectionDomain.class);
    private static final int ENOMEM = 12;
    private static final int EPERM = 1;

    final VerbsDevice device;
    final MemorySegment pd;
    private final Set<VerbsMemoryRegion> regions = ConcurrentHashMap.newKeySet();
    /** Guarded by this. */
    private int queuePairs;
    private boolean closed;
    private boolean deallocated;

    VerbsProtectionDomain(VerbsDevice device, MemorySegment pd) {
        this.device = device;
        this.pd = pd;
    }

    @Override
    public MemoryRegion register(MemorySegment segment, Set<Access> access) throws RdmaException {
        if (!segment.isNative()) {
            throw new RdmaException("only native memory can be registered");
        }
        if (segment.byteSize() == 0) {
            throw new RdmaException("empty region");
        }
        if (Long.compareUnsigned(segment.byteSize(), device.maxMrSize()) > 0) { // max_mr_size is a u64 (often ~0)
            throw new RdmaException("region of " + segment.byteSize() + " bytes; " + device.name() + " registers at most "
                    + Long.toUnsignedString(device.maxMrSize()));
        }
        synchronized (this) {
            if (closed) {
                throw new RdmaException("protection domain closed");
            }
        }
        int flags = flags(access);
        Libibverbs ib = device.ib();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment errno = Libibverbs.errnoBuffer(arena);
            MemorySegment mr = (MemorySegment) ib.regMr.invokeExact(errno, pd, segment, segment.byteSize(), flags);
            if (mr.equals(MemorySegment.NULL)) {
                int e = Libibverbs.errno(errno);
                throw new RdmaException("ibv_reg_mr of " + segment.byteSize() + " bytes on " + device.name()
                        + " failed: errno " + e + (e == ENOMEM || e == EPERM ? "; " + VerbsDevices.memlockAdvice() : ""));
            }
            VerbsMemoryRegion r = new VerbsMemoryRegion(this, mr.reinterpret(IbvAbi.MR_BYTES), segment, access);
            boolean closedMeanwhile;
            synchronized (this) {
                closedMeanwhile = closed;
                if (!closedMeanwhile) {
                    regions.add(r); // close() deregisters every region it finds here
                }
            }
            if (closedMeanwhile) {
                r.close();
                throw new RdmaException("protection domain closed");
            }
            device.registered(r);
            return r;
        } catch (RdmaException e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException("ibv_reg_mr", t);
        }
    }

    /** IBV_ACCESS_* for {@code access}; remote write brings local write (man ibv_reg_mr). */
    static int flags(Set<Access> access) {
        int flags = 0;
        if (access.contains(Access.LOCAL_WRITE) || access.contains(Access.REMOTE_WRITE)) {
            flags |= IbvAbi.ACCESS_LOCAL_WRITE;
        }
        if (access.contains(Access.REMOTE_WRITE)) {
            flags |= IbvAbi.ACCESS_REMOTE_WRITE;
        }
        if (access.contains(Access.REMOTE_READ)) {
            flags |= IbvAbi.ACCESS_REMOTE_READ;
        }
        return flags;
    }

    void deregistered(VerbsMemoryRegion r) {
        regions.remove(r);
    }

    /** A queue pair is made in this domain; refused once closed. */
    synchronized void attach() throws RdmaException {
        if (closed) {
            throw new RdmaException("protection domain closed");
        }
        queuePairs++;
    }

    /** A queue pair of this domain was destroyed. */
    void detach() {
        boolean dealloc;
        synchronized (this) {
            queuePairs--;
            dealloc = closed && queuePairs == 0 && !deallocated;
            deallocated |= dealloc;
        }
        if (dealloc) {
            dealloc();
        }
    }

    @Override
    public void close() {
        boolean dealloc;
        List<VerbsMemoryRegion> registered;
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            dealloc = queuePairs == 0;
            deallocated = dealloc;
            registered = List.copyOf(regions);
        }
        for (VerbsMemoryRegion r : registered) {
            r.close();
        }
        if (dealloc) {
            dealloc();
        }
        device.forget(this);
    }

    private void dealloc() {
        try (Arena arena = Arena.ofConfined()) {
            int rc = (int) device.ib().deallocPd.invokeExact(Libibverbs.errnoBuffer(arena), pd);
            if (rc != 0) {
                log.warn("ibv_dealloc_pd on {} failed: {}", device.name(), rc);
            }
        } catch (Throwable t) {
            throw new IllegalStateException("ibv_dealloc_pd", t);
        }
    }
}
