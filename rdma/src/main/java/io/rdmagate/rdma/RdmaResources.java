package io.rdmagate.rdma;

import io.rdmagate.vfs.memory.MemoryRegistrar;
import java.lang.foreign.MemorySegment;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * One opened RDMA device and its one protection domain, shared by every RDMA listener of the
 * process (NFS over RDMA, SMB Direct). It is the {@link MemoryRegistrar} of the process's one I/O
 * memory pool: every slab is registered with the domain once, when the pool creates it, so any
 * lease of that pool is a ready DMA source or sink, whichever protocol leased it.
 *
 * <p>Closing it closes the domain and the device; the pool registered here must be closed first.
 */
public final class RdmaResources implements MemoryRegistrar, AutoCloseable {
    private final RdmaDevice device;
    private final ProtectionDomain pd;
    private final boolean ownsDevice;
    private final Set<MemoryRegion> slabs = ConcurrentHashMap.newKeySet();

    private RdmaResources(RdmaDevice device, boolean ownsDevice) {
        this.device = device;
        this.ownsDevice = ownsDevice;
        this.pd = device.allocateProtectionDomain();
    }

    /** Opens a domain on {@code device}; {@link #close()} closes both. */
    public static RdmaResources open(RdmaDevice device) {
        return new RdmaResources(device, true);
    }

    /** A domain on a device its caller keeps open (tests that run several servers on one device). */
    public static RdmaResources onShared(RdmaDevice device) {
        return new RdmaResources(device, false);
    }

    public RdmaDevice device() {
        return device;
    }

    public ProtectionDomain pd() {
        return pd;
    }

    @Override
    public MemoryRegion register(MemorySegment slab) throws RdmaException {
        return new OwnedRegion(pd.register(slab), slabs);
    }

    /** Whether {@code mr} is a slab registration of this domain's pool, still valid: its lkey serves any of its queue pairs. */
    public boolean owns(MemoryRegion mr) {
        return mr instanceof OwnedRegion o && slabs.contains(o.region()) && mr.isValid();
    }

    /** Slabs registered now. */
    public int registeredSlabs() {
        return slabs.size();
    }

    /** Bytes registered now through the pool. */
    public long registeredBytes() {
        long n = 0;
        for (MemoryRegion r : slabs) {
            n += r.length();
        }
        return n;
    }

    @Override
    public void close() {
        pd.close();
        if (ownsDevice) {
            device.close();
        }
    }
}
