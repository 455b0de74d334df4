package io.rdmagate.oncrpc.server;

import io.netty.buffer.ByteBuf;
import io.rdmagate.oncrpc.xdr.XdrMessage;
import io.rdmagate.vfs.memory.PayloadCopies;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongSupplier;
import java.util.zip.CRC32C;

/**
 * Replies of non-idempotent calls, so that a retransmission gets the original reply instead of
 * running again (a retransmitted REMOVE must not answer NOENT). Shaped like knfsd's
 * (fs/nfsd/nfscache.c): the key is client address and port, xid, program, version, procedure and
 * a checksum of the first bytes of the arguments (the xid alone repeats across clients and
 * reboots); an entry is in progress while the original call runs (retransmissions are dropped
 * silently, the client retries) and done once its reply is sent (retransmissions get the cached
 * bytes).
 *
 * <p>Bounded: at most {@code maxEntries} (least recently used go first) and {@code maxAge} old.
 * Cached replies are byte copies, so they pin no payload memory; a payload (non-idempotent
 * replies have none) would be copied and counted under "drc".
 */
public final class DuplicateRequestCache {
    /** What {@link #begin} found. */
    public enum State { NEW, IN_PROGRESS, DONE }

    public record Key(InetSocketAddress client, int xid, int program, int version, int procedure, int checksum) {
    }

    /** A lookup's outcome; {@link #reply} holds the cached bytes when DONE. */
    public record Lookup(State state, byte[] reply) {
        static final Lookup NEW = new Lookup(State.NEW, null);
        static final Lookup IN_PROGRESS = new Lookup(State.IN_PROGRESS, null);
    }

    private static final class Slot {
        final long created;
        byte[] reply;

        Slot(long created) {
            this.created = created;
        }
    }

    private final int maxEntries;
    private final long maxAgeNanos;
    private final int checksumBytes;
    private final PayloadCopies copies;
    private final LongSupplier nanoClock;
    private final ReentrantLock lock = new ReentrantLock();
    private final LinkedHashMap<Key, Slot> entries;

    public DuplicateRequestCache(int maxEntries, Duration maxAge, int checksumBytes, PayloadCopies copies) {
        this(maxEntries, maxAge, checksumBytes, copies, System::nanoTime);
    }

    DuplicateRequestCache(int maxEntries, Duration maxAge, int checksumBytes, PayloadCopies copies,
            LongSupplier nanoClock) {
        this.maxEntries = maxEntries;
        this.maxAgeNanos = maxAge.toNanos();
        this.checksumBytes = checksumBytes;
        this.copies = copies;
        this.nanoClock = nanoClock;
        this.entries = new LinkedHashMap<>(Math.min(maxEntries, 1024) * 2, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<Key, Slot> eldest) {
                return size() > DuplicateRequestCache.this.maxEntries;
            }
        };
    }

    /** The cache key of a call whose arguments start at {@code args}' reader index. */
    public Key key(InetSocketAddress client, int xid, int program, int version, int procedure, ByteBuf args) {
        int n = Math.min(checksumBytes, args.readableBytes());
        CRC32C crc = new CRC32C();
        if (n > 0) {
            crc.update(args.nioBuffer(args.readerIndex(), n));
        }
        return new Key(client, xid, program, version, procedure, (int) crc.getValue());
    }

    /** Looks a call up; NEW means it was not seen and is now recorded as in progress. */
    public Lookup begin(Key key) {
        long now = nanoClock.getAsLong();
        lock.lock();
        try {
            expire(now);
            Slot e = entries.get(key);
            if (e != null && now - e.created > maxAgeNanos) {
                entries.remove(key);
                e = null;
            }
            if (e != null) {
                return e.reply == null ? Lookup.IN_PROGRESS : new Lookup(State.DONE, e.reply);
            }
            entries.put(key, new Slot(now));
            return Lookup.NEW;
        } finally {
            lock.unlock();
        }
    }

    /** Records the reply sent for {@code key}; null (no reply sent) forgets the call. */
    public void complete(Key key, XdrMessage reply) {
        byte[] bytes = null;
        if (reply != null) {
            bytes = reply.toBytes();
            if (reply.payload() != null) {
                copies.add("drc", reply.payload().length());
            }
        }
        lock.lock();
        try {
            Slot e = entries.get(key);
            if (e == null) {
                return; // evicted while it ran
            }
            if (bytes == null) {
                entries.remove(key);
            } else {
                e.reply = bytes;
            }
        } finally {
            lock.unlock();
        }
    }

    public int size() {
        lock.lock();
        try {
            return entries.size();
        } finally {
            lock.unlock();
        }
    }

    /** Drops done entries older than the maximum age, oldest-used first; called with the lock held. */
    private void expire(long now) {
        Iterator<Slot> it = entries.values().iterator();
        int scanned = 0;
        while (it.hasNext() && scanned++ < 8) {
            Slot e = it.next();
            if (now - e.created > maxAgeNanos) {
                it.remove();
            }
        }
    }
}
