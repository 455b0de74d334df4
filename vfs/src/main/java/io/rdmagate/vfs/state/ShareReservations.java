package io.rdmagate.vfs.state;

import io.rdmagate.vfs.FileHandle;
import io.rdmagate.vfs.VfsError;
import io.rdmagate.vfs.VfsException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The opens of a volume's files under every protocol, each with the access it uses and the access
 * it denies to everyone else: NFSv4 share reservations (RFC 8881 §9.7, OPEN4_SHARE_ACCESS_* and
 * OPEN4_SHARE_DENY_*) and SMB share access (MS-FSA 2.1.5.1.2, where a share mode without
 * FILE_SHARE_READ, _WRITE or _DELETE denies that access). One table, so an NFSv4 OPEN that denies
 * writing is refused while an SMB client has the file open for writing, an SMB open without
 * FILE_SHARE_READ while an NFSv4 client has it open for reading, and an NFSv3 WRITE or REMOVE while
 * an open of either denies it.
 *
 * <p>Operation: each protocol server {@link #reserve}s when it grants an open, after its own rules
 * passed (within one protocol they are richer than a bit test: SMB breaks Batch oplocks before its
 * check, and skips attribute-only opens; an NFSv4 open-owner's second OPEN grows its open), so the
 * table checks only reservations of other {@link CacheHolder}s. It {@link Reservation#change}s one
 * on an upgrade or downgrade and {@link Reservation#release}s it when the open ends. An operation
 * without an open (NFSv3, NLM) asks {@link #denies} through {@link FileStates#begin}.
 *
 * <p>Check and insertion happen under the table's monitor, so of two opens of different protocols
 * racing for the same file, one sees the other. {@link #denies} costs one volatile read while no
 * reservation denies anything (Linux clients open with DENY_NONE and FILE_SHARE_ALL).
 */
public final class ShareReservations {
    /** Access and deny bits (the same for both): reading data, writing data (and size), removing or renaming. */
    public static final int READ = 1;
    public static final int WRITE = 2;
    public static final int DELETE = 4;
    private static final int ALL = READ | WRITE | DELETE;

    private final Map<Long, List<Reservation>> byFile = new HashMap<>();
    /** Reservations whose deny is not empty: while there are none, {@link #denies} reads nothing else. */
    private volatile int denying;
    /** Reservations held: written under the monitor, read without it. */
    private volatile int count;

    /** One open's share reservation on a file, until {@link #release}. */
    public final class Reservation {
        private final long fileId;
        private final long generation;
        private final CacheHolder holder;
        private final Object owner;
        private int access;
        private int deny;
        private boolean released;

        private Reservation(long fileId, long generation, CacheHolder holder, Object owner, int access, int deny) {
            this.fileId = fileId;
            this.generation = generation;
            this.holder = holder;
            this.owner = owner;
            this.access = access;
            this.deny = deny;
        }

        /**
         * The open now uses {@code newAccess} and denies {@code newDeny} (an NFSv4 OPEN that grows an
         * owner's open, OPEN_DOWNGRADE); refused, and left as it was, when that conflicts with
         * another holder's reservation.
         */
        public void change(int newAccess, int newDeny) throws VfsException {
            check(newAccess, newDeny);
            synchronized (ShareReservations.this) {
                if (released) {
                    return;
                }
                conflict(fileId, generation, newAccess, newDeny, holder, this);
                denying += (newDeny != 0 ? 1 : 0) - (deny != 0 ? 1 : 0);
                access = newAccess;
                deny = newDeny;
            }
        }

        /** The open ended; a second call does nothing. */
        public void release() {
            synchronized (ShareReservations.this) {
                if (released) {
                    return;
                }
                released = true;
                List<Reservation> list = byFile.get(fileId);
                if (list != null && list.remove(this) && list.isEmpty()) {
                    byFile.remove(fileId);
                }
                count--;
                if (deny != 0) {
                    denying--;
                }
            }
        }

        /** Whether this is a reservation of the file of that generation (0: of any). */
        private boolean of(long gen) {
            return gen == 0 || generation == 0 || gen == generation;
        }

        @Override
        public String toString() {
            return holder.protocol() + " open of file " + fileId + " (access " + access + ", deny " + deny + ")";
        }
    }

    /**
     * A new open of {@code file} by a client of {@code holder}: it uses {@code access} and denies
     * {@code deny} to others (bits {@link #READ}, {@link #WRITE}, {@link #DELETE}).
     * {@link VfsError#SHARING_VIOLATION} when another holder's reservation denies what it uses, or
     * uses what it denies. {@code owner} (the client, or the open) is what {@link #denies} leaves out
     * for its own operations.
     */
    public Reservation reserve(FileHandle file, int access, int deny, CacheHolder holder, Object owner)
            throws VfsException {
        return reserve(file.fileId(), file.generation(), access, deny, holder, owner);
    }

    /**
     * {@link #reserve(FileHandle, int, int, CacheHolder, Object)} by inode number and generation. A
     * file's reservations are only those of its generation: an open of a removed file (an SMB open
     * with FILE_SHARE_DELETE outlives an NFS REMOVE) leaves the next file that gets its inode number
     * alone. Generation 0 stands for any.
     */
    public Reservation reserve(long fileId, long generation, int access, int deny, CacheHolder holder, Object owner)
            throws VfsException {
        check(access, deny);
        synchronized (this) {
            conflict(fileId, generation, access, deny, holder, null);
            Reservation r = new Reservation(fileId, generation, holder, owner, access, deny);
            byFile.computeIfAbsent(fileId, k -> new ArrayList<>(2)).add(r);
            count++;
            if (deny != 0) {
                denying++;
            }
            return r;
        }
    }

    private static void check(int access, int deny) {
        if ((access & ~ALL) != 0 || (deny & ~ALL) != 0) {
            throw new IllegalArgumentException("access " + access + ", deny " + deny);
        }
    }

    /** Throws when a reservation of a holder other than {@code holder} conflicts; guarded by this. */
    private void conflict(long fileId, long generation, int access, int deny, CacheHolder holder, Reservation self)
            throws VfsException {
        for (Reservation e : byFile.getOrDefault(fileId, List.of())) {
            if (e != self && e.holder != holder && e.of(generation)
                    && ((e.deny & access) != 0 || (e.access & deny) != 0)) {
                throw new VfsException(VfsError.SHARING_VIOLATION, "an " + e.holder.protocol() + " open of the file"
                        + ((e.deny & access) != 0 ? " denies " + names(e.deny & access) : " uses " + names(e.access & deny))
                        + " to others");
            }
        }
    }

    /**
     * Whether a reservation denies {@code access} to an operation that holds none of its own (an
     * NFSv3 WRITE or REMOVE, an SMB or NFSv4 operation checking the other protocols): reservations
     * of {@code breaker}, when it is their holder or their owner, are left out.
     */
    public boolean denies(long fileId, long generation, int access, Object breaker) {
        if (denying == 0) {
            return false;
        }
        synchronized (this) {
            for (Reservation e : byFile.getOrDefault(fileId, List.of())) {
                if ((e.deny & access) != 0 && e.of(generation)
                        && (breaker == null || e.holder != breaker && e.owner != breaker)) {
                    return true;
                }
            }
            return false;
        }
    }

    /**
     * Whether a reservation of a holder other than {@code self} uses the file (for writing, when
     * {@code forWriting}): {@code self} grants no read caching of a file open for writing then, and
     * no write caching of a file open at all (RFC 8881 §10.4.1).
     */
    public boolean opened(long fileId, long generation, CacheHolder self, boolean forWriting) {
        int used = accessOfOthers(fileId, generation, self);
        return forWriting ? (used & WRITE) != 0 : used != 0;
    }

    /** The access bits that reservations of holders other than {@code self} use on the file, together; 0 when none. */
    public int accessOfOthers(long fileId, long generation, CacheHolder self) {
        if (count == 0) {
            return 0;
        }
        int used = 0;
        synchronized (this) {
            for (Reservation e : byFile.getOrDefault(fileId, List.of())) {
                if (e.holder != self && e.of(generation)) {
                    used |= e.access;
                }
            }
        }
        return used;
    }

    /** Reservations held now, for metrics. */
    public int size() {
        return count;
    }

    /** Reservations whose deny is not empty, now. */
    public int denying() {
        return denying;
    }

    private static String names(int bits) {
        List<String> n = new ArrayList<>(3);
        if ((bits & READ) != 0) {
            n.add("reading");
        }
        if ((bits & WRITE) != 0) {
            n.add("writing");
        }
        if ((bits & DELETE) != 0) {
            n.add("removal");
        }
        return String.join(" and ", n);
    }
}
