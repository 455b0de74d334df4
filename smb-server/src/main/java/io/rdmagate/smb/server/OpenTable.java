package io.rdmagate.smb.server;

import io.rdmagate.smb.mserref.NtStatus;
import io.rdmagate.smb.mssmb2.FileId;
import io.rdmagate.vfs.FileHandle;
import io.rdmagate.vfs.state.ShareReservations;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The server's opens (MS-SMB2 3.3.1.1 GlobalOpenTable) and the per-file states behind them, where
 * share access is enforced across every SMB open of a file (MS-FSA 2.1.5.1.2, "share access check").
 */
public final class OpenTable {
    private final Map<Long, Open> byVolatile = new ConcurrentHashMap<>();
    /** Durable v2 opens by client GUID and CreateGuid (MS-SMB2 3.3.5.9.10: replays and reconnects name them so). */
    private final Map<String, Open> byCreateGuid = new HashMap<>();
    private final Map<FileKey, FileState> files = new HashMap<>();
    private final AtomicLong nextId = new AtomicLong(1);
    private final Oplocks oplocks;
    /** How many files have SMB opens, for other protocols' hot paths to read without the monitor. */
    private volatile int openFiles;
    /** Files whose last close deleted them, newest last (a ring), with how many there have been. */
    private final Deleted[] deleted = new Deleted[64];
    private long deletions;
    /** How long an open waits for a file whose last close is deleting it. */
    private static final long DELETE_WAIT_MILLIS = 10_000;

    /** This table as the volumes' one state sees it: the holder of its opens' share reservations and of SMB caching. */
    private final CrossProtocolBreaks holder = new CrossProtocolBreaks(this);

    OpenTable(java.time.Duration oplockBreakTimeout) {
        this.oplocks = new Oplocks(this, oplockBreakTimeout);
    }

    CrossProtocolBreaks holder() {
        return holder;
    }

    /** Whether any file has an SMB open (and so maybe a lease, an oplock or a share mode). */
    boolean holdsAnything() {
        return openFiles != 0;
    }

    /** The state of a file with SMB opens, or null; under the monitor. */
    FileState file(int volume, long fileId) {
        return files.get(key(volume, fileId));
    }

    public Oplocks oplocks() {
        return oplocks;
    }

    long newVolatileId() {
        return nextId.getAndIncrement();
    }

    public Open get(FileId id) {
        Open o = byVolatile.get(id.volatileId());
        return o != null && o.fileId().persistent() == id.persistent() ? o : null;
    }

    public int size() {
        return byVolatile.size();
    }

    /** A file of a volume; a record, so a lookup from another protocol's hot path formats no string. */
    private record FileKey(int volume, long fileId) {
    }

    private static FileKey key(int volume, long fileId) {
        return new FileKey(volume, fileId);
    }

    /** A file deleted by its last close: its inode number may be a new file's by now, its generation not. */
    private record Deleted(int volume, long fileId, long generation) {
        boolean of(FileHandle h) {
            return volume == h.volumeId() && fileId == h.fileId() && generation == h.generation();
        }
    }

    static final int DATA_READ = Access.FILE_READ_DATA | Access.FILE_EXECUTE;
    public static final int DATA_WRITE = Access.FILE_WRITE_DATA | Access.FILE_APPEND_DATA;

    /** Access that takes part in sharing; an open with none of it (attributes only) neither checks nor restricts. */
    static final int SHARED_ACCESS = DATA_READ | DATA_WRITE | Access.DELETE;

    /** MS-FSA 2.1.5.1.2: whether a new open with this access and sharing fits beside an existing one. */
    static boolean compatible(Open e, int access, int share) {
        if ((access & SHARED_ACCESS) == 0 || (e.access() & SHARED_ACCESS) == 0) {
            return true; // MS-FSA 2.1.5.1.2: the share access check is skipped for attribute-only access
        }
        if ((e.access() & DATA_READ) != 0 && (share & 0x1) == 0
                || (e.access() & DATA_WRITE) != 0 && (share & 0x2) == 0
                || (e.access() & Access.DELETE) != 0 && (share & 0x4) == 0) {
            return false;
        }
        return !((access & DATA_READ) != 0 && (e.shareAccess & 0x1) == 0
                || (access & DATA_WRITE) != 0 && (e.shareAccess & 0x2) == 0
                || (access & Access.DELETE) != 0 && (e.shareAccess & 0x4) == 0);
    }

    /** Checks sharing and delete-pending, then registers the open; atomic with respect to other opens. */
    synchronized FileState admit(FileHandle handle, FileHandle parent, String name, int access, int share)
            throws SmbException {
        FileKey k = key(handle.volumeId(), handle.fileId());
        FileState f = files.get(k);
        if (f != null) {
            if (f.deletePending) {
                throw new SmbException(NtStatus.DELETE_PENDING, name + " is being deleted");
            }
            for (Open e : f.opens) {
                if (!compatible(e, access, share)) {
                    throw new SmbException(NtStatus.SHARING_VIOLATION, name + " is open with incompatible sharing");
                }
            }
        } else {
            f = new FileState(handle, parent, name);
            files.put(k, f);
            openFiles = files.size();
        }
        return f;
    }

    /**
     * The outcome of one attempt to open: the open and the oplock it was granted, or a break the
     * caller must wait for before it tries again (MS-FSA 2.1.5.1.2), or neither: the file the caller
     * looked up was deleted since by the last close of a delete-pending file, and its name is to be
     * looked up again.
     */
    public record Admission(Open open, Oplocks.Grant grant, Oplocks.Wait pending) {
        static final Admission VANISHED = new Admission(null, null, null);

        /** The looked-up file is gone: the name may now be free, or name another file. */
        public boolean vanished() {
            return open == null && pending == null;
        }
    }

    /** A mark to take before a name is looked up, for {@link #open} to tell whether that file was deleted since. */
    public synchronized long deletions() {
        return deletions;
    }

    /** Whether the file was deleted by a last close after {@code since}; guarded by this. */
    private boolean deletedSince(FileHandle h, long since) {
        if (deletions - since > deleted.length) {
            return true; // too many to tell: look again
        }
        for (long i = since; i < deletions; i++) {
            if (deleted[(int) (i % deleted.length)].of(h)) {
                return true;
            }
        }
        return false;
    }

    /**
     * Breaks what must break first (Batch and conflicting H before the share access check, Exclusive
     * and W after it), then registers the open with the oplock or lease it may have (MS-SMB2 3.3.5.9,
     * MS-FSA 2.1.5.1.2, 2.1.5.17). {@code lookedUp} is the {@link #deletions} mark taken before the
     * file was looked up by name, or -1 when the caller has just created it.
     */
    public Admission open(SmbConnection conn, SmbSession s, TreeConnect tree, FileHandle handle, boolean dir, int access,
            int share, FileHandle parent, String name, String path, Oplocks.Request oplock, long lookedUp)
            throws SmbException {
        List<Oplocks.Notice> notices = new ArrayList<>(2);
        // asked of the volume's state (and the backing file's locks) before the table's monitor is taken
        int allowed = dir || oplock.level() == Oplocks.NONE ? 0 : allowedCaching(tree, handle, oplock.asksWrite(), holder);
        try {
            synchronized (this) {
                FileKey k = key(handle.volumeId(), handle.fileId());
                FileState f = files.get(k);
                while (f != null && f.deleting) {
                    awaitDeleted(f, name);
                    if (f.generation == handle.generation()) {
                        return Admission.VANISHED;
                    }
                    f = files.get(k); // that was another file, which had this inode number: this one is new
                }
                if (f == null && lookedUp >= 0 && deletedSince(handle, lookedUp)) {
                    return Admission.VANISHED;
                }
                Lease own = oplocks.ownLease(oplock, handle.volumeId(), handle.fileId());
                if (f != null && !f.deletePending) {
                    Oplocks.Wait w = oplocks.beforeShareCheck(f, oplock, own, notices);
                    if (w != null) {
                        return new Admission(null, null, w);
                    }
                }
                f = admit(handle, parent, name, access, share);
                ShareReservations.Reservation r = reserve(tree.share().vfs(), f, handle, access, share, s);
                Oplocks.Wait w = oplocks.afterShareCheck(f, oplock, own, notices);
                if (w != null) {
                    if (r != null) {
                        r.release(); // reserved again when the open is tried again
                    }
                    return new Admission(null, null, w);
                }
                Oplocks.Grant g = oplocks.grant(f, oplock, own, dir, allowed);
                long id = newVolatileId();
                Open o = new Open(new FileId(id, id), conn, s, tree, handle, dir, access, share, f, null, path);
                o.reservation = r;
                Oplocks.attach(o, g);
                add(o);
                return new Admission(o, g, null);
            }
        } finally {
            oplocks.send(notices);
        }
    }

    /**
     * The open's share access in the volume's share reservations (MS-FSA 2.1.5.1.2 across protocols):
     * an NFSv4 open that denies what it uses, or uses what its share mode denies, refuses it with
     * STATUS_SHARING_VIOLATION. An attribute-only open neither checks nor restricts: none. Guarded by
     * this, after the check against the other SMB opens ({@link #admit}) passed.
     */
    private ShareReservations.Reservation reserve(io.rdmagate.vfs.VirtualFileSystem fs, FileState f, FileHandle handle,
            int access, int share, SmbSession s) throws SmbException {
        if ((access & SHARED_ACCESS) == 0) {
            return null;
        }
        int use = ((access & DATA_READ) != 0 ? ShareReservations.READ : 0)
                | ((access & DATA_WRITE) != 0 ? ShareReservations.WRITE : 0)
                | ((access & Access.DELETE) != 0 ? ShareReservations.DELETE : 0);
        // FILE_SHARE_READ, _WRITE and _DELETE (1, 2, 4) each leave one access to others
        int deny = ~share & (ShareReservations.READ | ShareReservations.WRITE | ShareReservations.DELETE);
        try {
            return fs.states().shares().reserve(handle, use, deny, holder, s);
        } catch (io.rdmagate.vfs.VfsException e) {
            abandon(f);
            throw new SmbException(NtStatus.SHARING_VIOLATION, f.name + ": " + e.getMessage());
        }
    }

    /**
     * What the volume's one state lets an SMB client cache of the file: nothing while an operation
     * of another protocol changes it or another protocol's client has it open for writing (each of
     * its writes would break the lease), no write caching while another protocol's client has it
     * open at all (as no NFSv4 write delegation is granted then, RFC 8881 §10.4.1) or holds
     * byte-range locks on it (the client would take its own locks locally, unseen by them).
     */
    private static int allowedCaching(TreeConnect tree, FileHandle handle, boolean asksWrite, CrossProtocolBreaks self) {
        var fs = tree.share().vfs();
        var states = fs.states();
        int used = states.accessOfOthers(handle, self); // READ|WRITE while another protocol changes it now
        if ((used & io.rdmagate.vfs.state.ShareReservations.WRITE) != 0) {
            return 0;
        }
        if (used != 0) {
            return Oplocks.R | Oplocks.H;
        }
        var locks = fs.locks().locks(handle.fileId());
        for (var l : locks) {
            if (!l.owner().key().startsWith(Open.LOCK_OWNER_PREFIX)) {
                return Oplocks.R | Oplocks.H;
            }
        }
        // the backing file is asked (system calls) only when write caching is asked for at all
        if (asksWrite && locks.isEmpty() && fs.locks().anyLock(handle.fileId())) {
            return Oplocks.R | Oplocks.H; // a host process holds a lock on the backing file
        }
        return Oplocks.R | Oplocks.H | Oplocks.W;
    }

    public Open openPipe(SmbConnection conn, SmbSession s, TreeConnect tree, NamedPipe pipe, String name) {
        long id = newVolatileId();
        Open o = new Open(new FileId(id, id), conn, s, tree, null, false, Access.FILE_ALL_ACCESS, 7, null, pipe, name);
        add(o);
        return o;
    }

    /**
     * Removes an open and deletes its file if this was the last open of a file with delete pending.
     * Until the file is gone its state stays in the table, marked deleting, so that an open of it
     * in the meantime waits and then looks its name up again (MS-FSA 2.1.5.4: the close deletes
     * the file; nothing opens it after its last handle closed).
     */
    public void close(Open o, SmbServer server) {
        FileState f = remove(o);
        if (f != null) {
            try {
                server.deleteFile(o.session, f, o.handle(), o.vfs());
            } finally {
                deleted(f);
            }
        }
    }

    /** The deletion of a file {@link #remove} marked deleting is over: the state leaves the table. */
    private synchronized void deleted(FileState f) {
        f.deleting = false;
        forget(f);
        deleted[(int) (deletions % deleted.length)] = new Deleted(f.volumeId, f.fileId, f.generation);
        deletions++;
        notifyAll();
    }

    /** Waits, releasing the monitor, until the deleting file's state has left the table; guarded by this. */
    private void awaitDeleted(FileState f, String name) throws SmbException {
        long end = System.nanoTime() + java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(DELETE_WAIT_MILLIS);
        try {
            while (f.deleting) {
                long left = end - System.nanoTime();
                if (left <= 0) {
                    throw new SmbException(NtStatus.DELETE_PENDING, name + " is still being deleted");
                }
                java.util.concurrent.TimeUnit.NANOSECONDS.timedWait(this, left);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SmbException(NtStatus.CANCELLED, "interrupted while " + name + " is deleted");
        }
    }

    public void setDeletePending(Open o, boolean pending) {
        if (o.file != null) {
            setDeletePending(o.file, pending);
        }
    }

    public synchronized void moved(Open o, FileHandle parent, String name, String path) {
        if (o.file != null) {
            moved(o.file, parent, name);
        }
        o.path = path;
    }

    synchronized void add(Open o) {
        if (o.file != null) {
            o.file.opens.add(o);
        }
        byVolatile.put(o.fileId().volatileId(), o);
    }

    /** Drops a file state that {@link #admit} created when the open then failed. */
    synchronized void abandon(FileState f) {
        if (f != null && f.opens.isEmpty()) {
            forget(f);
        }
    }

    /**
     * Removes an open. Returns the file's state if this was its last open and the file is to be
     * deleted (delete pending, or an open asked for delete-on-close); the caller deletes it.
     */
    synchronized FileState remove(Open o) {
        byVolatile.remove(o.fileId().volatileId());
        if (o.createGuid != null) {
            byCreateGuid.remove(guidKey(o.clientGuid, o.createGuid), o);
        }
        oplocks.closed(o);
        if (o.reservation != null) {
            o.reservation.release();
        }
        FileState f = o.file;
        if (f == null) {
            return null;
        }
        if (o.deleteOnClose) {
            f.deletePending = true;
        }
        f.opens.remove(o);
        notifyAll(); // for settle(): an open of a lost connection is gone
        if (f.opens.isEmpty()) {
            if (f.deletePending) {
                f.deleting = true; // stays until deleted(f)
                return f;
            }
            forget(f);
        }
        return null;
    }

    /** The last open of {@code f} is gone; guarded by this. */
    private void forget(FileState f) {
        files.remove(key(f.volumeId, f.fileId));
        openFiles = files.size();
        f.forgotten = true;
        if (f.watchedBy != null) {
            f.watchedBy.uncached(f.fileId);
            f.watchedBy = null;
        }
    }

    /**
     * Open {@code o} was granted caching of its file: until the file's last close, changes that
     * processes other than the gateway make to it break what SMB clients cache
     * ({@link io.rdmagate.vfs.state.FileStates#cached}). The watch is set up outside the monitor.
     */
    public void cached(Open o) {
        FileState f = o.file;
        if (f == null) {
            return;
        }
        io.rdmagate.vfs.state.FileStates states = o.vfs().states();
        synchronized (this) {
            if (f.watching || f.forgotten) {
                return;
            }
            f.watching = true;
        }
        states.cached(o.handle());
        synchronized (this) {
            if (!f.forgotten) {
                f.watchedBy = states;
                return;
            }
        }
        states.uncached(f.fileId); // closed meanwhile
    }

    synchronized void setDeletePending(FileState f, boolean pending) {
        f.deletePending = pending;
    }

    synchronized boolean deletePending(FileState f) {
        return f.deletePending;
    }

    public synchronized boolean deletePending(Open o) {
        return o.file != null && o.file.deletePending;
    }

    /** The opens of {@code o}'s file still open while it is delete pending (none if it is not). */
    public synchronized List<Open> deletePendingOpens(Open o) {
        FileState f = o.file;
        return f == null || !f.deletePending ? List.of() : List.copyOf(f.opens);
    }

    synchronized void moved(FileState f, FileHandle parent, String name) {
        f.parent = parent;
        f.name = name;
    }

    /** Whether any SMB open of this file (by any of its names) exists. */
    public synchronized boolean isOpen(int volume, long fileId) {
        return files.containsKey(key(volume, fileId));
    }

    public synchronized boolean othersLackShareDelete(Open o) {
        for (Open e : o.file.opens) {
            if (e != o && (e.shareAccess & 0x4) == 0) {
                return true;
            }
        }
        return false;
    }

    private static String guidKey(byte[] clientGuid, byte[] createGuid) {
        return java.util.HexFormat.of().formatHex(clientGuid == null ? new byte[16] : clientGuid) + ":"
                + java.util.HexFormat.of().formatHex(createGuid);
    }

    /** An open by its persistent FileId (MS-SMB2 3.3.5.9.7: what a reconnect names), or null. */
    public Open byPersistent(long persistent) {
        Open o = byVolatile.get(persistent);
        return o != null && o.fileId().persistent() == persistent ? o : null;
    }

    /** The durable v2 open a client created with this CreateGuid, or null. */
    public synchronized Open byCreateGuid(byte[] clientGuid, byte[] createGuid) {
        return byCreateGuid.get(guidKey(clientGuid, createGuid));
    }

    /** Grants durability to an open (MS-SMB2 3.3.5.9.6, 3.3.5.9.10). */
    public synchronized void makeDurable(Open o, int version, byte[] createGuid, byte[] clientGuid, int timeoutMillis) {
        o.makeDurable(version, createGuid, clientGuid, timeoutMillis);
        if (createGuid != null) {
            byCreateGuid.put(guidKey(clientGuid, createGuid), o);
        }
    }

    /**
     * MS-SMB2 3.3.7.1: the open's connection is gone and the open is kept for its client to
     * reconnect. Returns the disconnection count to arm the scavenger with, or -1 when the open was
     * not connected or no longer exists.
     */
    synchronized int disconnect(Open o) {
        if (o.conn == null || !byVolatile.containsKey(o.fileId().volatileId())) {
            return -1;
        }
        o.conn = null;
        notifyAll(); // for settle(): an open of a lost connection is now disconnected
        return ++o.disconnections;
    }

    /**
     * Opens of the file whose connection is down while the loss has not yet been handled (the
     * client dropped it a moment ago), other than those of {@code asker}.
     */
    synchronized List<Open> ofLostConnections(int volume, long fileId, SmbConnection asker) {
        FileState f = files.get(key(volume, fileId));
        List<Open> out = new ArrayList<>();
        if (f != null) {
            for (Open o : f.opens) {
                if (o.conn != null && o.conn != asker && !o.conn.isOpen()) {
                    out.add(o);
                }
            }
        }
        return out;
    }

    /** Waits up to {@code nanos} until each open is closed or disconnected; whether all are. */
    synchronized boolean awaitSettled(List<Open> lost, long nanos) throws InterruptedException {
        long end = System.nanoTime() + nanos;
        while (true) {
            boolean settled = true;
            for (Open o : lost) {
                settled &= o.conn == null || !byVolatile.containsKey(o.fileId().volatileId());
            }
            long left = end - System.nanoTime();
            if (settled || left <= 0) {
                return settled;
            }
            java.util.concurrent.TimeUnit.NANOSECONDS.timedWait(this, left);
        }
    }

    /** Whether the open is still the disconnected one the scavenger was armed for. */
    synchronized boolean stillDisconnected(Open o, int disconnection) {
        return o.conn == null && o.disconnections == disconnection && byVolatile.containsKey(o.fileId().volatileId());
    }

    /** MS-SMB2 3.3.5.9.7/.12: a disconnected durable open joins the client's new connection, session and tree. */
    public synchronized boolean reconnect(Open o, SmbConnection conn, SmbSession s, TreeConnect tree) {
        if (o.conn != null || !byVolatile.containsKey(o.fileId().volatileId())) {
            return false;
        }
        o.session = s;
        o.tree(tree);
        o.conn = conn;
        return true;
    }

    /** MS-SMB2 3.3.7.1: a channel of the session is gone, another lives; the session's opens move to it. */
    synchronized void moveChannel(SmbSession s, SmbConnection from, SmbConnection to) {
        for (Open o : byVolatile.values()) {
            if (o.session == s && o.conn == from) {
                o.conn = to;
            }
        }
    }

    /** Whether connection {@code c} has any open (a file, a directory or a named pipe). */
    boolean anyOpenOf(SmbConnection c) {
        for (Open o : byVolatile.values()) {
            if (o.conn == c) {
                return true;
            }
        }
        return false;
    }

    /** Opens of a session (or of one tree of it when tree is not null), for logoff and tree disconnect. */
    List<Open> of(SmbSession s, TreeConnect tree) {
        List<Open> out = new ArrayList<>();
        for (Open o : byVolatile.values()) {
            if (o.session == s && (tree == null || o.tree() == tree)) {
                out.add(o);
            }
        }
        return out;
    }
}
