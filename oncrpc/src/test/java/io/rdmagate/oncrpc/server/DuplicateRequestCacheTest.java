package io.rdmagate.oncrpc.server;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import io.netty.buffer.Unpooled;
import io.rdmagate.oncrpc.xdr.XdrMessage;
import io.rdmagate.vfs.memory.IoMemory;
import io.rdmagate.vfs.memory.PayloadCopies;
import java.lang.foreign.Arena;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class DuplicateRequestCacheTest {
    private static final InetSocketAddress CLIENT = new InetSocketAddress("192.0.2.1", 800);

    private final AtomicLong now = new AtomicLong();
    private final PayloadCopies copies = new PayloadCopies();

    private DuplicateRequestCache cache(int entries) {
        return new DuplicateRequestCache(entries, Duration.ofSeconds(10), 16, copies, now::get);
    }

    private static XdrMessage reply(byte... bytes) {
        return new XdrMessage(Unpooled.wrappedBuffer(bytes), null, -1, Unpooled.EMPTY_BUFFER);
    }

    private DuplicateRequestCache.Key key(DuplicateRequestCache c, int xid, byte... args) {
        return c.key(CLIENT, xid, 100003, 3, 12, Unpooled.wrappedBuffer(args));
    }

    @Test
    void newThenInProgressThenDone() {
        DuplicateRequestCache c = cache(10);
        DuplicateRequestCache.Key k = key(c, 1, (byte) 1);
        assertEquals(DuplicateRequestCache.State.NEW, c.begin(k).state());
        assertEquals(DuplicateRequestCache.State.IN_PROGRESS, c.begin(k).state());
        c.complete(k, reply((byte) 9, (byte) 8));
        DuplicateRequestCache.Lookup hit = c.begin(k);
        assertEquals(DuplicateRequestCache.State.DONE, hit.state());
        assertArrayEquals(new byte[] {9, 8}, hit.reply());
    }

    @Test
    void theKeyCoversTheArgumentsAndTheClient() {
        DuplicateRequestCache c = cache(10);
        assertNotEquals(key(c, 1, (byte) 1), key(c, 1, (byte) 2));
        assertNotEquals(key(c, 1, (byte) 1),
                c.key(new InetSocketAddress("192.0.2.2", 800), 1, 100003, 3, 12, Unpooled.wrappedBuffer(new byte[] {1})));
        assertEquals(key(c, 1, (byte) 1), key(c, 1, (byte) 1));
    }

    @Test
    void boundedBySizeLeastRecentlyUsedFirst() {
        DuplicateRequestCache c = cache(2);
        DuplicateRequestCache.Key a = key(c, 1);
        DuplicateRequestCache.Key b = key(c, 2);
        c.begin(a);
        c.begin(b);
        c.begin(a); // a used again
        c.begin(key(c, 3)); // evicts b
        assertEquals(2, c.size());
        assertEquals(DuplicateRequestCache.State.IN_PROGRESS, c.begin(a).state());
        assertEquals(DuplicateRequestCache.State.NEW, c.begin(b).state());
    }

    @Test
    void boundedByAge() {
        DuplicateRequestCache c = cache(10);
        DuplicateRequestCache.Key k = key(c, 1);
        c.begin(k);
        c.complete(k, reply((byte) 1));
        now.addAndGet(Duration.ofSeconds(11).toNanos());
        assertEquals(DuplicateRequestCache.State.NEW, c.begin(k).state());
    }

    @Test
    void aPayloadIsCopiedIntoTheCacheAndCounted() {
        DuplicateRequestCache c = cache(10);
        DuplicateRequestCache.Key k = key(c, 1);
        c.begin(k);
        try (Arena arena = Arena.ofConfined()) {
            var seg = arena.allocate(6);
            seg.fill((byte) 3);
            XdrMessage m = new XdrMessage(Unpooled.wrappedBuffer(new byte[] {0, 0, 0, 6}), IoMemory.lend(seg), 4,
                    Unpooled.wrappedBuffer(new byte[] {0, 0}));
            c.complete(k, m);
            m.release();
        }
        assertArrayEquals(new byte[] {0, 0, 0, 6, 3, 3, 3, 3, 3, 3, 0, 0}, c.begin(k).reply());
        assertEquals(6, copies.snapshot().get("drc"));
    }
}
