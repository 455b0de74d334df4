package io.rdmagate.vfs.local;

import com.google.common.cache.Cache;
import com.google.common.cache.CacheBuilder;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.List;
import org.h2.mvstore.MVMap;
import org.h2.mvstore.MVStore;

/**
 * What makes handles outlive the gateway: for every file handed out, where it was last seen
 * (parent inode and name) and the generation its handles carry.
 *
 * <p>Why an embedded store: a handle must name a file after a restart, but a user-space server
 * cannot open a file by inode number (open_by_handle_at needs CAP_DAC_READ_SEARCH, which
 * containers rarely grant). So the gateway remembers each inode's last path and re-walks it,
 * checking inode and birth time. H2's MVStore is a pure-Java, crash-safe, append-only B-tree: no
 * native library, no server, one file per export, and it keeps hot records in its cache. Records
 * are committed before the operation that created them replies, and made durable ({@link #sync})
 * whenever the file system commits a file or directory, which a {@code sync} export does before
 * it replies to a change: a handle it handed out then names its file after a power loss too.
 *
 * <p>The records of recently used files are also kept decoded ({@link #CACHED_RECORDS} of them),
 * so the per-call path (a READ, a GETATTR) finds a handle's record without decoding bytes. Every
 * change goes through this class under its monitor and replaces the decoded record with the one
 * it stores; a miss decodes under the same monitor, so a record read before a removal can never
 * be put back after it.
 */
final class HandleStore implements AutoCloseable {
    /**
     * One file's record. btime is the birth time seen when the record was made (0 when the
     * filesystem reports none): a file with the same inode but another birth time is a new file.
     * birthOverride is a creation time a client set (SMB), {@link #NONE} if none. changeOverride
     * is a change time a client set, reported while the file's ctime is still changeAtCtime (the
     * ctime the setting itself left), {@link #NONE} if none.
     *
     * <p>Encoded as parent, generation, btime, birthOverride (8 bytes each), dos (4), a flags
     * byte, the create verifier (8), then, if {@link #HAS_CHANGE}, changeOverride and
     * changeAtCtime (8 each), and the name. Records written before the flags beyond
     * {@link #HAS_VERIFIER} existed read as they did: a birthOverride of 0 there means none.
     */
    record Entry(long parent, String name, long generation, long btimeNanos, int dos, Long createVerifier,
            long birthOverride, long changeOverride, long changeAtCtime) {
        static final long NONE = Long.MIN_VALUE;
        static final int HAS_VERIFIER = 1;
        static final int HAS_BIRTH = 2;
        static final int HAS_CHANGE = 4;

        byte[] encode() {
            byte[] n = name.getBytes(StandardCharsets.UTF_8);
            boolean change = changeOverride != NONE;
            ByteBuffer b = ByteBuffer.allocate(8 + 8 + 8 + 8 + 4 + 1 + 8 + (change ? 16 : 0) + n.length);
            int flags = (createVerifier == null ? 0 : HAS_VERIFIER) | (birthOverride == NONE ? 0 : HAS_BIRTH)
                    | (change ? HAS_CHANGE : 0);
            b.putLong(parent).putLong(generation).putLong(btimeNanos).putLong(birthOverride == NONE ? 0 : birthOverride)
                    .putInt(dos);
            b.put((byte) flags).putLong(createVerifier == null ? 0 : createVerifier);
            if (change) {
                b.putLong(changeOverride).putLong(changeAtCtime);
            }
            b.put(n);
            return b.array();
        }

        static Entry decode(byte[] raw) {
            ByteBuffer b = ByteBuffer.wrap(raw);
            long parent = b.getLong();
            long gen = b.getLong();
            long btime = b.getLong();
            long birth = b.getLong();
            int dos = b.getInt();
            int flags = b.get();
            long verf = b.getLong();
            long change = NONE;
            long changeAt = 0;
            if ((flags & HAS_CHANGE) != 0) {
                change = b.getLong();
                changeAt = b.getLong();
            }
            byte[] n = new byte[b.remaining()];
            b.get(n);
            boolean hasBirth = (flags & HAS_BIRTH) != 0 || (flags & ~HAS_VERIFIER) == 0 && birth != 0;
            return new Entry(parent, new String(n, StandardCharsets.UTF_8), gen, btime, dos,
                    (flags & HAS_VERIFIER) != 0 ? verf : null, hasBirth ? birth : NONE, change, changeAt);
        }

        static Entry fresh(long parent, String name, long btimeNanos) {
            return new Entry(parent, name, newGeneration(), btimeNanos, 0, null, NONE, NONE, 0);
        }

        Entry at(long newParent, String newName) {
            return new Entry(newParent, newName, generation, btimeNanos, dos, createVerifier, birthOverride,
                    changeOverride, changeAtCtime);
        }

        Entry withDos(int bits) {
            return new Entry(parent, name, generation, btimeNanos, bits, createVerifier, birthOverride, changeOverride,
                    changeAtCtime);
        }

        Entry withBirth(long nanos) {
            return new Entry(parent, name, generation, btimeNanos, dos, createVerifier, nanos, changeOverride,
                    changeAtCtime);
        }

        /** A change time set by a client while the file's ctime is {@code ctime}. */
        Entry withChange(long nanos, long ctime) {
            return new Entry(parent, name, generation, btimeNanos, dos, createVerifier, birthOverride, nanos, ctime);
        }

        /**
         * The file changed through the gateway: a change time set before is no longer reported
         * (the ctime check misses a change within the filesystem's timestamp granularity).
         */
        Entry withoutChange() {
            return changeOverride == NONE ? this : withChange(NONE, 0);
        }

        Entry withVerifier(Long v) {
            return new Entry(parent, name, generation, btimeNanos, dos, v, birthOverride, changeOverride,
                    changeAtCtime);
        }

        /** The change time to report for a file whose ctime is {@code ctime}. */
        long change(long ctime) {
            return changeOverride != NONE && ctime == changeAtCtime ? changeOverride : ctime;
        }
    }

    private static final SecureRandom RANDOM = new SecureRandom();
    private final MVStore store;
    private final MVMap<Long, byte[]> files;
    private final MVMap<String, Long> meta;
    /** Other names of hard-linked files, as "parent/name" strings per inode, NUL-separated. */
    private final MVMap<Long, String> aliases;
    /** How many decoded records are kept (about 100 bytes each). */
    static final int CACHED_RECORDS = 65_536;
    private final Cache<Long, Entry> decoded = CacheBuilder.newBuilder().maximumSize(CACHED_RECORDS).build();
    /** Changes made to the maps (guarded by this), and how many of them are committed (written under commitLock). */
    private long changes;
    private volatile long committed;
    private final Object commitLock = new Object();
    /** Commits made so far, and how many of them an fsync has covered ({@link #sync}). */
    private final java.util.concurrent.atomic.AtomicLong commits = new java.util.concurrent.atomic.AtomicLong();
    private volatile long synced;
    private final Object syncLock = new Object();

    private HandleStore(MVStore store) {
        this.store = store;
        this.files = store.openMap("files");
        this.meta = store.openMap("meta");
        this.aliases = store.openMap("aliases");
    }

    static HandleStore open(Path stateDir) throws IOException {
        Files.createDirectories(stateDir);
        try {
            // pages uncompressed: a commit rewrites a leaf and its parents, and compressing them
            // was a quarter of a CREATE's CPU; records are small. Compressed pages of a store
            // written before still read.
            MVStore s = new MVStore.Builder()
                    .fileName(stateDir.resolve("handles.mv.db").toString())
                    .autoCommitDisabled()
                    .open();
            return new HandleStore(s);
        } catch (RuntimeException e) {
            throw new IOException("cannot open the handle store in " + stateDir + ": " + e.getMessage(), e);
        }
    }

    /** A value kept under a name, created with {@code init} the first time. */
    long meta(String key, long init) {
        long v;
        synchronized (this) {
            Long had = meta.get(key);
            if (had != null) {
                return had;
            }
            meta.put(key, init);
            changed();
            v = init;
        }
        commitChanges();
        return v;
    }

    /**
     * The record of a file just created at (parent, name): a fresh generation, unless a concurrent
     * lookup already recorded this very file (same place, and same birth time where known), whose
     * generation is kept. The place decides: a record left by a removed file whose inode number the
     * filesystem gave to this one can carry the same birth time (filesystems stamp it at clock-tick
     * granularity).
     */
    Entry created(long ino, long parent, String name, long btime, Long verifier) {
        Entry e;
        synchronized (this) {
            e = createdLocked(ino, parent, name, btime, verifier);
        }
        commitChanges();
        return e;
    }

    private synchronized Entry createdLocked(long ino, long parent, String name, long btime, Long verifier) {
        Entry e = get(ino);
        boolean sameFile = e != null && e.parent() == parent && e.name().equals(name)
                && (btime == 0 || e.btimeNanos() == 0 || e.btimeNanos() == btime);
        if (sameFile) {
            e = e.at(parent, name);
        } else {
            e = Entry.fresh(parent, name, btime);
        }
        e = e.withVerifier(verifier);
        putLocked(ino, e);
        return e;
    }

    /** Applies a change to an existing record atomically; returns the new record, or null if none. */
    Entry update(long ino, java.util.function.UnaryOperator<Entry> change) {
        Entry next;
        synchronized (this) {
            Entry e = get(ino);
            if (e == null) {
                return null;
            }
            next = change.apply(e);
            if (next.equals(e)) {
                return next;
            }
            putLocked(ino, next);
        }
        commitChanges();
        return next;
    }

    Entry get(long ino) {
        Entry e = decoded.getIfPresent(ino);
        return e != null ? e : load(ino);
    }

    private synchronized Entry load(long ino) {
        byte[] raw = files.get(ino);
        if (raw == null) {
            return null;
        }
        Entry e = Entry.decode(raw);
        decoded.put(ino, e);
        return e;
    }

    /** Stores and commits (the reply that hands out the handle follows). */
    void put(long ino, Entry e) {
        putLocked(ino, e);
        commitChanges();
    }

    private synchronized void putLocked(long ino, Entry e) {
        files.put(ino, e.encode());
        decoded.put(ino, e);
        changed();
    }

    /**
     * Removes the record of a file that lost its last name, if the record is still that file's:
     * {@code generation} is the one it had before the removal. Between the removal and this call
     * the filesystem may give the inode number to a file created meanwhile, whose record (a fresh
     * generation) must stay. Returns whether a record went.
     */
    synchronized boolean removeIf(long ino, long generation) {
        Entry e = get(ino);
        if (e == null || e.generation() != generation) {
            return false;
        }
        remove(ino);
        return true;
    }

    /**
     * Drops a record. Not committed here but with the next change's commit (or at close): a
     * record that outlives its file by a crash names a path that is gone, or a file with another
     * inode number or birth time, and its handles are STALE, as they would be without it.
     */
    synchronized void remove(long ino) {
        decoded.invalidate(ino);
        boolean changed = files.remove(ino) != null;
        changed |= aliases.remove(ino) != null;
        if (changed) {
            changed();
        }
    }

    /** A further name of a hard-linked file, to fall back on when its recorded name goes away. */
    void addAlias(long ino, long parent, String name) {
        synchronized (this) {
            List<Alias> list = aliases(ino);
            Alias a = new Alias(parent, name);
            if (list.contains(a)) {
                return;
            }
            list.add(a);
            putAliases(ino, list);
        }
        commitChanges();
    }

    void removeAlias(long ino, long parent, String name) {
        synchronized (this) {
            List<Alias> list = aliases(ino);
            if (!list.remove(new Alias(parent, name))) {
                return;
            }
            putAliases(ino, list);
        }
        commitChanges();
    }

    synchronized List<Alias> aliases(long ino) {
        String raw = aliases.get(ino);
        List<Alias> out = new ArrayList<>();
        if (raw != null && !raw.isEmpty()) {
            for (String item : raw.split("\0")) {
                int slash = item.indexOf('/');
                out.add(new Alias(Long.parseLong(item.substring(0, slash)), item.substring(slash + 1)));
            }
        }
        return out;
    }

    private void putAliases(long ino, List<Alias> list) {
        if (list.isEmpty()) {
            aliases.remove(ino);
        } else {
            StringBuilder b = new StringBuilder();
            for (Alias a : list) {
                if (!b.isEmpty()) {
                    b.append('\0');
                }
                b.append(a.parent()).append('/').append(a.name());
            }
            aliases.put(ino, b.toString());
        }
        changed();
    }

    record Alias(long parent, String name) {
    }

    /** A change was made to the maps; guarded by this. {@link #commitChanges} writes it. */
    private void changed() {
        changes++;
    }

    /**
     * Writes the changes made so far to the store's file (in the page cache, where they survive
     * the gateway's own crash) before the operation that made them replies. Called without this
     * object's monitor: one commit takes every change made before it began, so operations that
     * change records at once share commits (a commit serializes and writes a chunk, most of a
     * CREATE's or REMOVE's CPU). A caller that holds this object's monitor itself (to make a
     * lookup and its record one step) commits nothing here, and calls this again once it let go.
     */
    void commitChanges() {
        if (Thread.holdsLock(this)) {
            return; // the committer would wait for this monitor while this thread waits for the committer
        }
        long mine;
        synchronized (this) {
            mine = changes;
        }
        if (committed >= mine) {
            return;
        }
        synchronized (commitLock) {
            if (committed >= mine) {
                return; // another operation's commit took this change along
            }
            long upTo;
            synchronized (this) {
                upTo = changes; // every change counted here is in the maps already
            }
            store.commit();
            committed = upTo;
            commits.incrementAndGet();
        }
    }

    /**
     * Makes every record committed so far durable: an fsync of the store's file, so that a handle
     * handed out before survives a power loss (a {@code sync} export calls this, through
     * {@code commit}, before it replies to a change). One fsync covers every commit before it;
     * none is made while nothing was committed since the last.
     */
    void sync() {
        if (synced >= commits.get()) {
            return;
        }
        synchronized (syncLock) {
            long upTo = commits.get();
            if (synced >= upTo) {
                return; // another caller's fsync covered these commits
            }
            store.sync();
            synced = upTo;
        }
    }

    static long newGeneration() {
        long g;
        do {
            g = RANDOM.nextLong();
        } while (g == 0);
        return g;
    }

    long size() {
        return files.sizeAsLong();
    }

    @Override
    public void close() {
        if (!store.isClosed()) {
            store.commit();
            store.close();
        }
    }
}
