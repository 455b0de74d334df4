package io.rdmagate.vfs.memory;

import io.rdmagate.vfs.VfsError;
import io.rdmagate.vfs.VfsException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A bounded pool of off-heap I/O buffers carved from fixed-size slabs.
 *
 * <p>Operation: a slab is allocated (page aligned) and registered with the
 * {@link MemoryRegistrar} once, then cut into equal buffers of one power-of-two size class.
 * {@link Account#lease} takes the smallest class that fits, from its free list, else from a new
 * slab while the pool is under {@link PoolLimits#maxBytes}, else by reclaiming a wholly free slab
 * of another class; failing all three it waits up to {@link PoolLimits#leaseWait} and then throws
 * {@link PoolExhaustedException}. Each account (one per client connection) is bounded by
 * {@link PoolLimits#maxBytesPerAccount}. The last release of a buffer returns it to its free list.
 */
public final class IoMemoryPool implements AutoCloseable {
    private final PoolLimits limits;
    private final MemoryRegistrar registrar;
    private final int minShift;
    private final SizeClass[] classes;
    private final List<Slab> slabs = new ArrayList<>();
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition freed = lock.newCondition();
    private final LongAdder exhausted = new LongAdder();
    private long slabBytes;
    private long leasedBytes;
    private boolean closed;

    public IoMemoryPool(PoolLimits limits, MemoryRegistrar registrar) {
        this.limits = limits;
        this.registrar = registrar;
        this.minShift = Integer.numberOfTrailingZeros(limits.minBufferBytes());
        int maxShift = Integer.numberOfTrailingZeros(limits.maxBufferBytes());
        this.classes = new SizeClass[maxShift - minShift + 1];
        for (int i = 0; i < classes.length; i++) {
            classes[i] = new SizeClass(1 << (minShift + i));
        }
    }

    public PoolLimits limits() {
        return limits;
    }

    /** A client's share of the pool; leases through it count against its limit. */
    public Account account(String name) {
        return new Account(name);
    }

    /** Bytes in slabs (allocated and registered). */
    public long allocatedBytes() {
        lock.lock();
        try {
            return slabBytes;
        } finally {
            lock.unlock();
        }
    }

    /** Bytes currently leased out (by buffer capacity). */
    public long leasedBytes() {
        lock.lock();
        try {
            return leasedBytes;
        } finally {
            lock.unlock();
        }
    }

    public int slabCount() {
        lock.lock();
        try {
            return slabs.size();
        } finally {
            lock.unlock();
        }
    }

    /** Leases that failed because the pool or an account stayed full for the whole wait. */
    public long exhaustedCount() {
        return exhausted.sum();
    }

    /** Frees every slab. Buffers still leased become unusable (accessing them throws). */
    @Override
    public void close() {
        lock.lock();
        try {
            closed = true;
            for (Slab s : slabs) {
                s.free();
            }
            slabs.clear();
            slabBytes = 0;
            for (SizeClass c : classes) {
                c.free.clear();
            }
            freed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    private PooledIoMemory lease(Account account, int size, long waitNanos) throws VfsException {
        if (size <= 0 || size > limits.maxBufferBytes()) {
            throw new VfsException(VfsError.INVALID,
                    "I/O buffer of " + size + " bytes; the largest is " + limits.maxBufferBytes());
        }
        SizeClass c = classes[classIndex(size)];
        long deadline = System.nanoTime() + waitNanos;
        lock.lock();
        try {
            while (true) {
                if (closed) {
                    throw new PoolExhaustedException("the I/O memory pool is closed");
                }
                boolean accountFull = account.leased + c.bufferBytes > limits.maxBytesPerAccount();
                if (!accountFull) {
                    Buffer b = c.free.pollFirst();
                    if (b == null && growOrReclaim(c)) {
                        b = c.free.pollFirst();
                    }
                    if (b != null) {
                        b.slab.inUse++;
                        account.leased += c.bufferBytes;
                        leasedBytes += c.bufferBytes;
                        return new PooledIoMemory(this, account, b, size);
                    }
                }
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    exhausted.increment();
                    throw new PoolExhaustedException(accountFull
                            ? "client " + account.name + " holds " + account.leased + " bytes of I/O memory, its limit is "
                              + limits.maxBytesPerAccount()
                            : "I/O memory pool full (" + limits.maxBytes() + " bytes)"
                              + (waitNanos > 0 ? " for " + limits.leaseWait() : ""));
                }
                freed.awaitNanos(left);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new PoolExhaustedException("interrupted while waiting for I/O memory");
        } finally {
            lock.unlock();
        }
    }

    void giveBack(PooledIoMemory m) {
        lock.lock();
        try {
            Buffer b = m.buffer();
            m.account().leased -= b.sizeClass().bufferBytes;
            leasedBytes -= b.sizeClass().bufferBytes;
            b.slab.inUse--;
            if (!closed && !b.slab.freed) {
                b.sizeClass().free.addFirst(b);
            }
            freed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /** Called with the lock held. */
    private boolean growOrReclaim(SizeClass c) throws VfsException {
        if (slabBytes + limits.slabBytes() > limits.maxBytes()) {
            Slab idle = null;
            for (Slab s : slabs) {
                if (s.inUse == 0 && s.sizeClass != c) {
                    idle = s;
                    break;
                }
            }
            if (idle == null) {
                return false;
            }
            Slab victim = idle;
            victim.sizeClass.free.removeIf(b -> b.slab == victim);
            victim.free();
            slabs.remove(victim);
            slabBytes -= limits.slabBytes();
        }
        Arena arena = Arena.ofShared();
        MemorySegment seg = arena.allocate(limits.slabBytes(), 4096);
        MemoryRegistrar.Registration reg;
        try {
            reg = registrar.register(seg);
        } catch (Exception e) {
            arena.close();
            throw new VfsException(VfsError.NO_RESOURCES, "registering an I/O slab failed: " + e.getMessage(), e);
        }
        Slab slab = new Slab(arena, seg, reg, c);
        slabs.add(slab);
        slabBytes += limits.slabBytes();
        int n = limits.slabBytes() / c.bufferBytes;
        for (int i = 0; i < n; i++) {
            c.free.addLast(new Buffer(slab, (long) i * c.bufferBytes));
        }
        return true;
    }

    private int classIndex(int size) {
        int shift = 32 - Integer.numberOfLeadingZeros(size - 1);
        return Math.max(0, shift - minShift);
    }

    /** One client's share of the pool. */
    public final class Account {
        private final String name;
        private long leased;

        private Account(String name) {
            this.name = name;
        }

        public String name() {
            return name;
        }

        /**
         * Leases a buffer of at least {@code size} bytes whose {@link IoMemory#segment()} is exactly
         * {@code size} bytes. Waits for memory up to the pool's lease wait.
         */
        public IoMemory lease(int size) throws VfsException {
            return IoMemoryPool.this.lease(this, size, limits.leaseWait().toNanos());
        }

        /**
         * Leases as {@link #lease} does, but never waits: when the pool or the account is full
         * now, throws {@link PoolExhaustedException} at once (for a thread that must not block,
         * or a caller that would rather refuse new work than wait for memory).
         */
        public IoMemory leaseNow(int size) throws VfsException {
            return IoMemoryPool.this.lease(this, size, 0);
        }

        /** The largest buffer one lease may be (the pool's maxBufferBytes). */
        public int maxBufferBytes() {
            return limits.maxBufferBytes();
        }

        /** Bytes this account holds now. */
        public long leasedBytes() {
            lock.lock();
            try {
                return leased;
            } finally {
                lock.unlock();
            }
        }
    }

    static final class SizeClass {
        final int bufferBytes;
        final ArrayDeque<Buffer> free = new ArrayDeque<>();

        SizeClass(int bufferBytes) {
            this.bufferBytes = bufferBytes;
        }
    }

    static final class Slab {
        final Arena arena;
        final MemorySegment segment;
        final MemoryRegistrar.Registration registration;
        final SizeClass sizeClass;
        int inUse;
        boolean freed;

        Slab(Arena arena, MemorySegment segment, MemoryRegistrar.Registration registration, SizeClass sizeClass) {
            this.arena = arena;
            this.segment = segment;
            this.registration = registration;
            this.sizeClass = sizeClass;
        }

        void free() {
            if (!freed) {
                freed = true;
                registration.close();
                arena.close();
            }
        }
    }

    record Buffer(Slab slab, long offset) {
        SizeClass sizeClass() {
            return slab.sizeClass;
        }
    }
}
