package io.rdmagate.vfs.memory;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.rdmagate.vfs.VfsError;
import io.rdmagate.vfs.VfsException;
import java.lang.foreign.MemorySegment;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(60)
class IoMemoryPoolTest {
    private static final int KiB = 1024;
    private static final int MiB = 1024 * 1024;

    /** Counts registrations and how often each one is closed. */
    static final class CountingRegistrar implements MemoryRegistrar {
        final AtomicInteger registered = new AtomicInteger();
        final Map<Registration, AtomicInteger> closes = Collections.synchronizedMap(new IdentityHashMap<>());
        final List<MemorySegment> slabs = Collections.synchronizedList(new ArrayList<>());

        @Override
        public Registration register(MemorySegment slab) {
            registered.incrementAndGet();
            slabs.add(slab);
            AtomicInteger count = new AtomicInteger();
            Registration r = count::incrementAndGet;
            closes.put(r, count);
            return r;
        }

        int closedTotal() {
            synchronized (closes) {
                return closes.values().stream().mapToInt(AtomicInteger::get).sum();
            }
        }

        boolean eachClosedAtMostOnce() {
            synchronized (closes) {
                return closes.values().stream().allMatch(c -> c.get() <= 1);
            }
        }
    }

    private final List<IoMemoryPool> pools = new ArrayList<>();

    private IoMemoryPool pool(PoolLimits limits, MemoryRegistrar registrar) {
        IoMemoryPool p = new IoMemoryPool(limits, registrar);
        pools.add(p);
        return p;
    }

    /** 8 KiB slabs of buffers from 512 B to 8 KiB; {@code slabs} slabs in all. */
    private static PoolLimits tiny(int slabs, long perAccount, Duration wait) {
        return new PoolLimits(slabs * 8L * KiB, perAccount, 8 * KiB, 512, 8 * KiB, wait);
    }

    @AfterEach
    void closePools() {
        pools.forEach(IoMemoryPool::close);
    }

    private static void fill(MemorySegment s, int seed) {
        for (long i = 0; i < s.byteSize(); i++) {
            s.set(JAVA_BYTE, i, (byte) (i * 31 + seed));
        }
    }

    private static void assertPattern(MemorySegment s, int seed) {
        for (long i = 0; i < s.byteSize(); i++) {
            if (s.get(JAVA_BYTE, i) != (byte) (i * 31 + seed)) {
                throw new AssertionError("byte " + i + " of a " + s.byteSize() + "-byte buffer was overwritten");
            }
        }
    }

    private static VfsError error(org.junit.jupiter.api.function.Executable e) {
        return assertThrows(VfsException.class, e).error();
    }

    @Test
    void leasesTakeTheSmallestSizeClassThatFitsAndShowExactlyTheRequestedLength() throws Exception {
        IoMemoryPool p = pool(PoolLimits.DEFAULT, MemoryRegistrar.NONE);
        IoMemoryPool.Account a = p.account("client");
        int[][] cases = {{1, 4 * KiB}, {4 * KiB, 4 * KiB}, {4 * KiB + 1, 8 * KiB}, {MiB - 1, MiB}, {MiB, MiB}};
        for (int[] c : cases) {
            IoMemory m = a.lease(c[0]);
            assertEquals(c[0], m.length(), "length of a lease of " + c[0]);
            assertEquals(c[0], m.segment().byteSize(), "segment of a lease of " + c[0]);
            assertEquals(c[1], a.leasedBytes(), "a lease of " + c[0] + " bytes is charged its size class");
            assertEquals(c[1], p.leasedBytes());
            assertEquals(IoMemory.Kind.POOLED, m.kind());
            assertNotNull(m.registration());
            assertEquals(0, m.offsetInRegistration() % c[1], "buffers are aligned to their class within the slab");
            assertTrue(m.release());
            assertEquals(0, a.leasedBytes());
        }
    }

    @Test
    void leasesLargerThanTheLargestBufferOrEmptyAreInvalid() {
        IoMemoryPool p = pool(PoolLimits.DEFAULT, MemoryRegistrar.NONE);
        IoMemoryPool.Account a = p.account("client");
        assertEquals(VfsError.INVALID, error(() -> a.lease(MiB + 1)));
        assertEquals(VfsError.INVALID, error(() -> a.lease(0)));
        assertEquals(VfsError.INVALID, error(() -> a.lease(-1)));
        assertEquals(0, p.leasedBytes());
        assertEquals(0, p.exhaustedCount(), "an invalid size is not exhaustion");
    }

    @Test
    void memoryWrittenInALeaseReadsBackAndLeasesDoNotOverlap() throws Exception {
        IoMemoryPool p = pool(PoolLimits.DEFAULT, MemoryRegistrar.NONE);
        IoMemoryPool.Account a = p.account("client");
        List<IoMemory> held = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            IoMemory m = a.lease(1000 + i * 997);
            fill(m.segment(), i);
            held.add(m);
        }
        for (int i = 0; i < held.size(); i++) {
            assertPattern(held.get(i).segment(), i);
        }
        // a lease cannot see beyond its length
        IoMemory m = held.getFirst();
        assertThrows(IndexOutOfBoundsException.class, () -> m.segment().get(JAVA_BYTE, m.length()));
        held.forEach(IoMemory::release);
        assertEquals(0, p.leasedBytes());
    }

    @Test
    void theRegistrarIsCalledOncePerSlabNeverPerLeaseAndClosingThePoolDeregistersEachSlabOnce() throws Exception {
        CountingRegistrar reg = new CountingRegistrar();
        IoMemoryPool p = pool(tiny(4, 32 * KiB, Duration.ofMillis(200)), reg);
        IoMemoryPool.Account a = p.account("client");
        List<IoMemory> held = new ArrayList<>();
        for (int i = 0; i < 16; i++) { // 16 x 512 B fill one 8 KiB slab
            held.add(a.lease(512));
        }
        assertEquals(1, reg.registered.get());
        assertEquals(1, p.slabCount());
        assertEquals(8 * KiB, p.allocatedBytes());
        held.add(a.lease(300)); // the 17th needs a second slab
        assertEquals(2, reg.registered.get());
        assertEquals(2, p.slabCount());
        held.forEach(IoMemory::release);
        for (int i = 0; i < 50; i++) { // reuse: free buffers come back without registering again
            a.lease(512).release();
        }
        assertEquals(2, reg.registered.get());
        assertEquals(0, reg.closedTotal(), "nothing is deregistered while the pool is open");
        for (IoMemory m : held) {
            assertTrue(reg.closes.containsKey(m.registration()), "a lease carries the registration of its slab");
        }
        p.close();
        assertEquals(2, reg.closedTotal());
        assertTrue(reg.eachClosedAtMostOnce(), "each registration closed exactly once");
        p.close();
        assertEquals(2, reg.closedTotal(), "closing twice deregisters nothing more");
    }

    @Test
    void aFailingRegistrarMakesTheLeaseFailWithNoResourcesAndLeaksNothing() {
        IoMemoryPool p = pool(tiny(2, 16 * KiB, Duration.ZERO), slab -> {
            throw new IllegalStateException("device gone");
        });
        IoMemoryPool.Account a = p.account("client");
        assertEquals(VfsError.NO_RESOURCES, error(() -> a.lease(512)));
        assertEquals(0, p.slabCount());
        assertEquals(0, p.allocatedBytes());
        assertEquals(0, a.leasedBytes());
    }

    @Test
    void anAccountIsBoundedButAnotherAccountStillLeases() throws Exception {
        IoMemoryPool p = pool(tiny(4, 8 * KiB, Duration.ofMillis(200)), MemoryRegistrar.NONE);
        IoMemoryPool.Account greedy = p.account("greedy");
        IoMemoryPool.Account polite = p.account("polite");
        IoMemory big = greedy.lease(8 * KiB);
        long t0 = System.nanoTime();
        VfsException e = assertThrows(VfsException.class, () -> greedy.lease(512));
        assertTrue(System.nanoTime() - t0 >= TimeUnit.MILLISECONDS.toNanos(150), "the lease waited before failing");
        assertEquals(VfsError.NO_RESOURCES, e.error());
        assertTrue(e instanceof PoolExhaustedException);
        assertEquals(1, p.exhaustedCount());
        assertEquals(8 * KiB, greedy.leasedBytes(), "the failed lease charged nothing");
        IoMemory other = polite.lease(8 * KiB);
        assertEquals(8 * KiB, polite.leasedBytes());
        big.release();
        greedy.lease(512).release();
        other.release();
        assertEquals(0, p.leasedBytes());
    }

    @Test
    void aFullPoolFailsLeasesAfterTheWaitAndCountsThem() throws Exception {
        IoMemoryPool p = pool(tiny(2, 16 * KiB, Duration.ofMillis(200)), MemoryRegistrar.NONE);
        IoMemory a = p.account("a").lease(8 * KiB);
        IoMemory b = p.account("b").lease(8 * KiB);
        IoMemoryPool.Account c = p.account("c");
        long t0 = System.nanoTime();
        VfsException e = assertThrows(PoolExhaustedException.class, () -> c.lease(8 * KiB));
        long waited = System.nanoTime() - t0;
        assertEquals(VfsError.NO_RESOURCES, e.error());
        assertTrue(waited >= TimeUnit.MILLISECONDS.toNanos(150), "waited " + waited / 1_000_000 + " ms");
        assertEquals(1, p.exhaustedCount());
        assertThrows(PoolExhaustedException.class, () -> c.lease(100));
        assertEquals(2, p.exhaustedCount());
        assertEquals(16 * KiB, p.allocatedBytes(), "the pool never grows past its maximum");
        assertEquals(0, c.leasedBytes());
        a.release();
        b.release();
    }

    @Test
    void aWaitingLeaseIsServedWhenAnotherThreadReleases() throws Exception {
        IoMemoryPool p = pool(tiny(1, 8 * KiB, Duration.ofSeconds(10)), MemoryRegistrar.NONE);
        IoMemory held = p.account("a").lease(8 * KiB);
        IoMemoryPool.Account waiter = p.account("b");
        CountDownLatch started = new CountDownLatch(1);
        CompletableFuture<IoMemory> lease = new CompletableFuture<>();
        Thread.ofVirtual().start(() -> {
            started.countDown();
            try {
                lease.complete(waiter.lease(8 * KiB));
            } catch (Throwable t) {
                lease.completeExceptionally(t);
            }
        });
        started.await();
        Thread.sleep(100);
        assertFalse(lease.isDone(), "the lease waits while the pool is full");
        held.release();
        IoMemory got = lease.get(5, TimeUnit.SECONDS);
        assertEquals(8 * KiB, got.length());
        assertEquals(0, p.exhaustedCount());
        got.release();
        assertEquals(0, p.leasedBytes());
    }

    @Test
    void aFullPoolReclaimsAWhollyFreeSlabOfAnotherSizeClass() throws Exception {
        CountingRegistrar reg = new CountingRegistrar();
        IoMemoryPool p = pool(tiny(2, 64 * KiB, Duration.ofMillis(100)), reg);
        IoMemoryPool.Account a = p.account("client");
        IoMemory small = a.lease(512); // slab 1: 512 B class, stays in use
        fill(small.segment(), 7);
        a.lease(1024).release(); // slab 2: 1 KiB class, now wholly free
        assertEquals(2, p.slabCount());
        IoMemory big = a.lease(8 * KiB); // pool full: must reclaim slab 2
        assertEquals(2, p.slabCount());
        assertEquals(16 * KiB, p.allocatedBytes());
        assertEquals(3, reg.registered.get());
        assertEquals(1, reg.closedTotal(), "the reclaimed slab was deregistered");
        assertPattern(small.segment(), 7); // the slab in use was left alone
        fill(big.segment(), 9);
        assertPattern(small.segment(), 7);
        // no free slab left to reclaim: the slab of 512 B buffers is in use
        assertThrows(PoolExhaustedException.class, () -> a.lease(2048));
        small.release();
        big.release();
        assertEquals(0, p.leasedBytes());
    }

    @Test
    void referenceCountingReturnsTheBufferOnTheLastReleaseOnly() throws Exception {
        IoMemoryPool p = pool(PoolLimits.DEFAULT, MemoryRegistrar.NONE);
        IoMemoryPool.Account a = p.account("client");
        IoMemory m = a.lease(100);
        assertEquals(1, m.refCount());
        assertSame(m, m.retain());
        assertEquals(2, m.refCount());
        assertFalse(m.release());
        assertEquals(4 * KiB, p.leasedBytes(), "still held by one reference");
        m.segment().set(JAVA_BYTE, 0, (byte) 1); // still usable
        assertTrue(m.release());
        assertEquals(0, p.leasedBytes());
        assertEquals(0, a.leasedBytes());
        assertThrows(IllegalStateException.class, m::release, "double release");
        assertEquals(0, p.leasedBytes(), "a double release does not give the buffer back twice");
        assertThrows(IllegalStateException.class, m::segment, "use after release");
        assertThrows(IllegalStateException.class, m::retain, "retain after release");
    }

    @Test
    void aDoubleReleaseDoesNotCorruptTheFreeList() throws Exception {
        IoMemoryPool p = pool(PoolLimits.DEFAULT, MemoryRegistrar.NONE);
        IoMemoryPool.Account a = p.account("client");
        IoMemory m = a.lease(4 * KiB);
        m.release();
        assertThrows(IllegalStateException.class, m::release);
        IoMemory x = a.lease(4 * KiB);
        IoMemory y = a.lease(4 * KiB);
        fill(x.segment(), 1);
        fill(y.segment(), 2);
        assertPattern(x.segment(), 1); // had the buffer been freed twice, x and y would share it
        x.release();
        y.release();
    }

    @Test
    void closeIsReleaseAndShrinkOnlyMakesShorter() throws Exception {
        IoMemoryPool p = pool(PoolLimits.DEFAULT, MemoryRegistrar.NONE);
        IoMemoryPool.Account a = p.account("client");
        IoMemory m = a.lease(1000);
        fill(m.segment(), 3);
        m.shrink(400);
        assertEquals(400, m.length());
        assertEquals(400, m.segment().byteSize());
        assertPattern(m.segment(), 3);
        assertThrows(IllegalArgumentException.class, () -> m.shrink(401));
        assertThrows(IllegalArgumentException.class, () -> m.shrink(-1));
        m.shrink(0);
        assertEquals(0, m.segment().byteSize());
        try (IoMemory closing = m) {
            assertEquals(1, closing.refCount());
        }
        assertEquals(0, p.leasedBytes(), "shrinking does not change what is given back");
        assertEquals(0, a.leasedBytes());
    }

    @Test
    void closingThePoolRefusesLeasesAndMakesLeasedMemoryUnusable() throws Exception {
        IoMemoryPool p = pool(PoolLimits.DEFAULT, MemoryRegistrar.NONE);
        IoMemoryPool.Account a = p.account("client");
        IoMemory m = a.lease(100);
        MemorySegment s = m.segment();
        p.close();
        assertThrows(IllegalStateException.class, () -> s.get(JAVA_BYTE, 0));
        assertEquals(VfsError.NO_RESOURCES, error(() -> a.lease(100)));
        m.release(); // a late release after close is harmless
        assertEquals(0, p.allocatedBytes());
    }

    @Test
    void manyThreadsLeasingAndReleasingAtRandomLeakNothing() throws Exception {
        IoMemoryPool p = pool(new PoolLimits(256L * MiB, 64L * MiB, 4 * MiB, 4 * KiB, MiB, Duration.ofSeconds(20)),
                MemoryRegistrar.NONE);
        IoMemoryPool.Account shared = p.account("shared");
        List<IoMemoryPool.Account> own = new ArrayList<>();
        ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
        List<Future<?>> done = new ArrayList<>();
        try (ExecutorService ex = Executors.newVirtualThreadPerTaskExecutor()) {
            for (int t = 0; t < 16; t++) {
                IoMemoryPool.Account mine = p.account("t" + t);
                own.add(mine);
                long seed = t;
                done.add(ex.submit(() -> {
                    SplittableRandom rnd = new SplittableRandom(seed);
                    List<IoMemory> held = new ArrayList<>();
                    try {
                        for (int i = 0; i < 2000; i++) {
                            if (held.size() < 3 && rnd.nextInt(3) != 0) {
                                IoMemoryPool.Account acc = rnd.nextBoolean() ? mine : shared;
                                int size = rnd.nextInt(16) == 0 ? 1 + rnd.nextInt(MiB) : 1 + rnd.nextInt(64 * KiB);
                                IoMemory m = acc.lease(size);
                                m.segment().set(JAVA_BYTE, size - 1, (byte) i);
                                if (rnd.nextInt(4) == 0) {
                                    m.retain();
                                    m.release();
                                }
                                held.add(m);
                            } else if (!held.isEmpty()) {
                                held.remove(rnd.nextInt(held.size())).release();
                            }
                        }
                    } catch (Throwable e) {
                        failures.add(e);
                    } finally {
                        held.forEach(IoMemory::release);
                    }
                }));
            }
        }
        for (Future<?> f : done) {
            f.get();
        }
        assertTrue(failures.isEmpty(), () -> "failures: " + failures);
        assertEquals(0, p.leasedBytes());
        assertEquals(0, shared.leasedBytes());
        for (IoMemoryPool.Account acc : own) {
            assertEquals(0, acc.leasedBytes(), acc.name());
        }
        assertTrue(p.allocatedBytes() <= 256L * MiB);
        // everything came back: the whole pool can be leased again
        IoMemoryPool.Account after = p.account("after");
        List<IoMemory> all = new ArrayList<>();
        for (int i = 0; i < 16; i++) {
            all.add(after.lease(MiB));
        }
        all.forEach(IoMemory::release);
    }

    @Test
    void lentMemoryIsNeitherPooledNorRegisteredAndReleasingItFreesNothing() {
        try (var arena = java.lang.foreign.Arena.ofConfined()) {
            MemorySegment s = arena.allocateFrom(JAVA_BYTE, new byte[] {1, 2, 3});
            IoMemory m = IoMemory.lend(s);
            assertEquals(IoMemory.Kind.LENT, m.kind());
            assertEquals(3, m.length());
            assertEquals(null, m.registration());
            assertTrue(m.release());
            assertArrayEquals(new byte[] {1, 2, 3}, s.toArray(JAVA_BYTE), "the owner's memory is untouched");
        }
    }
}
