package io.rdmagate.rdma.spi;

import io.rdmagate.rdma.Access;
import io.rdmagate.rdma.MemoryRegion;
import io.rdmagate.rdma.ProtectionDomain;
import io.rdmagate.rdma.RdmaException;
import io.rdmagate.rdma.Sge;
import io.rdmagate.rdma.WcStatus;
import java.lang.foreign.MemorySegment;
import java.security.SecureRandom;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The memory regions of one device, by key, and the checks every access makes.
 *
 * <p>Keys are iWARP STags: a 24-bit index and an 8-bit key (RFC 5040 §2.1), the same value for
 * local and remote use. A tagged access is refused unless the STag is valid (registered, not
 * invalidated), belongs to the accessing queue pair's protection domain, grants the right, and
 * the whole range lies inside the region (RFC 5040 §5.2.1 checks).
 */
public final class RegionTable {
    private static final SecureRandom RANDOM = new SecureRandom();
    private final Map<Integer, Region> regions = new ConcurrentHashMap<>();
    private final AtomicInteger nextIndex = new AtomicInteger(1);

    /** A region of this table. */
    public final class Region implements MemoryRegion {
        private final ProtectionDomain pd;
        private final MemorySegment segment;
        private final Set<Access> access;
        private final int stag;
        private volatile boolean valid = true;

        Region(ProtectionDomain pd, MemorySegment segment, Set<Access> access, int stag) {
            this.pd = pd;
            this.segment = segment;
            this.access = access;
            this.stag = stag;
        }

        public ProtectionDomain pd() {
            return pd;
        }

        @Override
        public int lkey() {
            return stag;
        }

        @Override
        public int rkey() {
            return stag;
        }

        @Override
        public long address() {
            return segment.address();
        }

        @Override
        public long length() {
            return segment.byteSize();
        }

        @Override
        public MemorySegment segment() {
            return segment;
        }

        @Override
        public Set<Access> access() {
            return access;
        }

        @Override
        public boolean isValid() {
            return valid;
        }

        @Override
        public void invalidate() {
            valid = false;
        }

        @Override
        public void close() {
            valid = false;
            regions.remove(stag, this);
        }
    }

    /** The outcome of a check: the memory, or why not. */
    public record Checked(MemorySegment memory, WcStatus error, String reason) {
        public boolean ok() {
            return error == null;
        }
    }

    /** A protection domain whose regions live in this table. */
    public ProtectionDomain newProtectionDomain() {
        return new ProtectionDomain() {
            @Override
            public MemoryRegion register(MemorySegment segment, Set<Access> access) throws RdmaException {
                return RegionTable.this.register(this, segment, access);
            }

            @Override
            public void close() {
                closeAll(this);
            }
        };
    }

    public Region register(ProtectionDomain pd, MemorySegment segment, Set<Access> access) throws RdmaException {
        if (!segment.isNative()) {
            throw new RdmaException("only native memory can be registered");
        }
        if (segment.byteSize() == 0) {
            throw new RdmaException("empty region");
        }
        int index = nextIndex.getAndIncrement();
        if (index >= 1 << 24) {
            throw new RdmaException("out of memory region indexes");
        }
        int stag = (index << 8) | RANDOM.nextInt(256);
        Set<Access> rights = access.isEmpty() ? EnumSet.noneOf(Access.class) : EnumSet.copyOf(access);
        Region r = new Region(pd, segment, Set.copyOf(rights), stag);
        regions.put(stag, r);
        return r;
    }

    public Region lookup(int stag) {
        return regions.get(stag);
    }

    /** Local side of an access: an SGE list against this device's regions. */
    public Checked local(ProtectionDomain pd, Sge sge, boolean write) {
        Region r = regions.get(sge.lkey());
        if (r == null || !r.valid || r.pd != pd) {
            return new Checked(null, WcStatus.LOCAL_PROTECTION_ERROR, "invalid lkey " + Integer.toHexString(sge.lkey()));
        }
        if (write && !r.access.contains(Access.LOCAL_WRITE)) {
            return new Checked(null, WcStatus.LOCAL_PROTECTION_ERROR, "region without local write");
        }
        MemorySegment m = slice(r, sge.address(), sge.length());
        return m == null ? new Checked(null, WcStatus.LOCAL_PROTECTION_ERROR, "SGE outside its region")
                : new Checked(m, null, null);
    }

    /** Remote side of a tagged access (RDMA Read source or RDMA Write target). */
    public Checked remote(ProtectionDomain pd, int rkey, long address, long length, Access right) {
        Region r = regions.get(rkey);
        if (r == null || !r.valid) {
            return new Checked(null, WcStatus.REMOTE_ACCESS_ERROR, "invalid STag " + Integer.toHexString(rkey));
        }
        if (r.pd != pd) {
            return new Checked(null, WcStatus.REMOTE_ACCESS_ERROR, "STag of another protection domain");
        }
        if (!r.access.contains(right)) {
            return new Checked(null, WcStatus.REMOTE_ACCESS_ERROR, "STag without " + right);
        }
        MemorySegment m = slice(r, address, length);
        return m == null ? new Checked(null, WcStatus.REMOTE_ACCESS_ERROR, "tagged access out of bounds")
                : new Checked(m, null, null);
    }

    /** Send with Invalidate: the receiver invalidates its own STag (RFC 5040 §6.4.1). */
    public boolean invalidateRemote(ProtectionDomain pd, int stag) {
        Region r = regions.get(stag);
        if (r == null || !r.valid || r.pd != pd) {
            return false;
        }
        r.valid = false;
        return true;
    }

    /** Closes every region of a protection domain. */
    public void closeAll(ProtectionDomain pd) {
        for (Region r : List.copyOf(regions.values())) {
            if (r.pd == pd) {
                r.close();
            }
        }
    }

    private static MemorySegment slice(Region r, long address, long length) {
        long off = address - r.address();
        if (off < 0 || length < 0 || off > r.length() || length > r.length() - off) {
            return null;
        }
        return r.segment.asSlice(off, length);
    }
}
