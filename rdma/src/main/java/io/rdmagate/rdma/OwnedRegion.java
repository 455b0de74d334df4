package io.rdmagate.rdma;

import java.lang.foreign.MemorySegment;
import java.util.Set;

/** A slab registration of the pool {@link RdmaResources} registers: itself, so users know its keys are the domain's. */
record OwnedRegion(MemoryRegion region, Set<MemoryRegion> owners) implements MemoryRegion {
    OwnedRegion {
        owners.add(region);
    }

    @Override
    public int lkey() {
        return region.lkey();
    }

    @Override
    public int rkey() {
        return region.rkey();
    }

    @Override
    public long address() {
        return region.address();
    }

    @Override
    public long length() {
        return region.length();
    }

    @Override
    public MemorySegment segment() {
        return region.segment();
    }

    @Override
    public Set<Access> access() {
        return region.access();
    }

    @Override
    public boolean isValid() {
        return region.isValid();
    }

    @Override
    public void invalidate() {
        region.invalidate();
    }

    @Override
    public void close() {
        owners.remove(region);
        region.close();
    }
}
