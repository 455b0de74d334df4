package io.rdmagate.rdma.verbs;

import io.rdmagate.rdma.Access;
import io.rdmagate.rdma.MemoryRegion;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.EnumSet;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A region registered with {@code ibv_reg_mr}: its keys are the {@code lkey} and {@code rkey} of
 * {@code struct ibv_mr}, its address the segment's (the iova of a plain registration).
 *
 * <p>Invalidation: a region made by {@code ibv_reg_mr} is not one a Local Invalidate work request
 * can invalidate (that needs a memory window or a fast-registration MR, which this provider does not
 * make), so {@link #invalidate} deregisters it: both keys stop working at once, as the SPI asks; the
 * memory stays the caller's. A Send with Invalidate naming its rkey that the device honoured (the
 * receive completion says so) marks it invalid too. {@link #close} deregisters if not done yet.
 */
final class VerbsMemoryRegion implements MemoryRegion {
    private static final Logger log = LoggerFactory.getLogger(VerbsMemoryRegion.class);

    private final VerbsProtectionDomain pd;
    private final MemorySegment mr;
    private final MemorySegment segment;
    private final Set<Access> access;
    private final int lkey;
    private final int rkey;
    private final AtomicBoolean registered = new AtomicBoolean(true);
    private volatile boolean valid = true;

    VerbsMemoryRegion(VerbsProtectionDomain pd, MemorySegment mr, MemorySegment segment, Set<Access> access) {
        this.pd = pd;
        this.mr = mr;
        this.segment = segment;
        this.access = Set.copyOf(access.isEmpty() ? EnumSet.noneOf(Access.class) : EnumSet.copyOf(access));
        this.lkey = mr.get(ValueLayout.JAVA_INT, IbvAbi.MR_LKEY);
        this.rkey = mr.get(ValueLayout.JAVA_INT, IbvAbi.MR_RKEY);
    }

    @Override
    public int lkey() {
        return lkey;
    }

    @Override
    public int rkey() {
        return rkey;
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

    /** Deregisters: a plain MR cannot be invalidated by a verb (see the class comment). */
    @Override
    public void invalidate() {
        deregister();
    }

    /** The device invalidated the rkey on a Send with Invalidate. */
    void invalidatedByPeer() {
        valid = false;
    }

    @Override
    public void close() {
        deregister();
    }

    private void deregister() {
        valid = false;
        if (!registered.compareAndSet(true, false)) {
            return;
        }
        pd.deregistered(this);
        pd.device.deregistered(this);
        try (Arena arena = Arena.ofConfined()) {
            int rc = (int) pd.device.ib().deregMr.invokeExact(Libibverbs.errnoBuffer(arena), mr);
            if (rc != 0) {
                log.warn("ibv_dereg_mr (lkey {}) failed: {}", Integer.toHexString(lkey), rc);
            }
        } catch (Throwable t) {
            throw new IllegalStateException("ibv_dereg_mr", t);
        }
    }
}
