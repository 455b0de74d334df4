package io.rdmagate.vfs.local;

import com.google.common.cache.Cache;
import com.google.common.cache.CacheBuilder;
import com.google.common.cache.RemovalListener;
import io.rdmagate.vfs.Caller;
import io.rdmagate.vfs.CreateMode;
import io.rdmagate.vfs.DirectoryEntry;
import io.rdmagate.vfs.DirectoryListener;
import io.rdmagate.vfs.DirectoryPage;
import io.rdmagate.vfs.DirectoryWatch;
import io.rdmagate.vfs.DosAttributes;
import io.rdmagate.vfs.ExportOptions;
import io.rdmagate.vfs.FileAttributes;
import io.rdmagate.vfs.FileHandle;
import io.rdmagate.vfs.FileType;
import io.rdmagate.vfs.FsStat;
import io.rdmagate.vfs.Node;
import io.rdmagate.vfs.SetAttributes;
import io.rdmagate.vfs.Stability;
import io.rdmagate.vfs.VfsError;
import io.rdmagate.vfs.VfsException;
import io.rdmagate.vfs.VirtualFileSystem;
import io.rdmagate.vfs.WriteResult;
import io.rdmagate.vfs.XattrMode;
import io.rdmagate.vfs.local.HandleStore.Entry;
import io.rdmagate.vfs.lock.LockManager;
import io.rdmagate.vfs.memory.IoMemory;
import io.rdmagate.vfs.memory.IoMemoryPool;
import io.rdmagate.vfs.memory.MappedIoMemory;
import io.rdmagate.vfs.support.DirectoryCookies;
import io.rdmagate.vfs.support.DirectoryListing;
import io.rdmagate.vfs.support.Names;
import io.rdmagate.vfs.support.PathResolver;
import io.rdmagate.vfs.support.Permissions;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The real backend: a local directory tree.
 *
 * <p>Operation: a handle names (inode, generation). The {@link HandleStore} gives the inode's last
 * known parent and name; resolution walks those names down from the root descriptor with
 * {@code openat(O_PATH|O_NOFOLLOW)}, one real directory entry at a time, never through a symlink
 * or "..", and finally checks the inode number, device and birth time with {@code statx}. So a
 * handle resolves only to the file it was made for, only inside the root, and a removed file's
 * handle is stale. Changes go through the {@code *at} calls on the resolved descriptors; data moves
 * with pread/pwrite between the file and I/O memory; permissions are checked here for the caller,
 * and created objects are given the caller's ownership when the gateway runs as root.
 *
 * <p>Limits: one filesystem per export (entries on other devices are refused with
 * {@link VfsError#CROSS_DEVICE}); Linux only.
 */
public final class LocalFileSystem implements VirtualFileSystem {
    private static final int MAX_DEPTH = 2048;
    private static final SecureRandom RANDOM = new SecureRandom();

    private final Path rootPath;
    private final ExportOptions options;
    private final HandleStore store;
    private final int rootFd;
    private final long rootIno;
    private final long rootDev;
    private final long rootGeneration;
    private final int volumeId;
    private final long writeVerifier = RANDOM.nextLong();
    private final boolean superuser = Libc.geteuid() == 0;
    /** Granted locks are also open file description locks on the backing files, seen by host processes. */
    private final OfdLocks ofdLocks = new OfdLocks(this::openForLocks);
    private final LockManager locks = new LockManager(ofdLocks);
    private final io.rdmagate.vfs.state.FileStates states;
    private final Cache<Long, DataFd> dataFds;
    private final Cache<Long, Listing> listings;
    private volatile boolean closed;
    private final HostChanges changes;
    private final ForeignWrites foreignWrites;

    private record Listing(long mtime, long ctime, DirectoryListing order, Map<String, Long> inodes) {
    }

    /**
     * Changes the gateway made to directories, counted per stripe of the directory's inode number
     * under {@code listings}' monitor: a listing read while one happened may lack its entry and is
     * not kept (a shared stripe only skips keeping one). The directory's times alone cannot tell on
     * kernels that stamp them at clock-tick granularity (before Linux 6.13): a create in the same
     * tick as the listing leaves them as they were.
     */
    private final long[] listingChanges = new long[256];

    private LocalFileSystem(Path rootPath, ExportOptions options, HandleStore store, int rootFd, Stat root) {
        this.rootPath = rootPath;
        this.options = options;
        this.store = store;
        this.rootFd = rootFd;
        this.rootIno = root.ino();
        this.rootDev = root.dev();
        long storedRoot = store.meta("rootInode", root.ino());
        if (storedRoot != root.ino()) {
            throw new IllegalStateException("export root " + rootPath + " is inode " + root.ino() + " but the handle store in"
                    + " its state directory belongs to inode " + storedRoot + "; use a new state directory for a new tree");
        }
        this.rootGeneration = store.meta("rootGeneration", HandleStore.newGeneration());
        this.volumeId = (int) store.meta("volumeId", RANDOM.nextInt() & 0x7fffffff);
        this.changes = new HostChanges(volumeId);
        this.foreignWrites = new ForeignWrites(volumeId, h -> {
            try (Arena a = Arena.ofConfined()) {
                return open(a, h);
            }
        });
        this.states = new io.rdmagate.vfs.state.FileStates(volumeId, foreignWrites);
        RemovalListener<Long, DataFd> release = n -> n.getValue().release();
        this.dataFds = CacheBuilder.newBuilder().maximumSize(1024).expireAfterAccess(Duration.ofSeconds(30))
                .removalListener(release).build();
        this.listings = CacheBuilder.newBuilder().maximumSize(64).build();
    }

    /**
     * Opens the tree at {@code root}, keeping handle records in {@code stateDir} (created if missing;
     * it must not lie inside the tree).
     */
    public static LocalFileSystem open(Path root, Path stateDir, ExportOptions options) throws IOException {
        Path abs = root.toAbsolutePath().normalize();
        if (stateDir.toAbsolutePath().normalize().startsWith(abs)) {
            throw new IOException("state directory " + stateDir + " lies inside the export " + abs);
        }
        int fd;
        Stat st;
        try (Arena a = Arena.ofConfined()) {
            fd = Libc.openat(a, Libc.AT_FDCWD, abs.toString(), Libc.O_PATH | Libc.O_DIRECTORY, 0);
            MemorySegment sx = a.allocate(Libc.STATX);
            Libc.statx(a, fd, "", Libc.AT_EMPTY_PATH, sx);
            st = Stat.of(sx);
        } catch (Libc.Errno e) {
            throw new IOException("cannot open export root " + abs + ": errno " + e.errno, e);
        }
        HandleStore hs;
        try {
            hs = HandleStore.open(stateDir);
        } catch (IOException e) {
            Libc.close(fd);
            throw e;
        }
        try {
            return new LocalFileSystem(abs, options, hs, fd, st);
        } catch (RuntimeException e) {
            hs.close();
            Libc.close(fd);
            throw new IOException(e.getMessage(), e);
        }
    }

    public Path rootPath() {
        return rootPath;
    }

    @Override
    public int volumeId() {
        return volumeId;
    }

    @Override
    public ExportOptions options() {
        return options;
    }

    @Override
    public FileHandle root() {
        return FileHandle.of(volumeId, rootIno, rootGeneration, FileType.DIRECTORY);
    }

    @Override
    public FileAttributes getattr(FileHandle handle) throws VfsException {
        FileAttributes open = openFileAttributes(handle);
        if (open != null) {
            return open;
        }
        try (Arena a = Arena.ofConfined(); Fd fd = open(a, handle)) {
            return attrs(stat(a, fd.fd()), entryOf(handle.fileId()));
        }
    }

    @Override
    public int access(Caller caller, FileHandle handle, int requested) throws VfsException {
        return Permissions.access(caller, getattr(handle), requested);
    }

    @Override
    public Node lookup(Caller caller, FileHandle dir, String name) throws VfsException {
        Names.check(name);
        try (Arena a = Arena.ofConfined(); Fd d = open(a, dir)) {
            Stat ds = directoryStat(a, d);
            Permissions.require(caller, attrs(ds, null), Permissions.X, "lookup");
            String actual = actualName(a, d, ds, name);
            if (actual == null) {
                throw new VfsException(VfsError.NOT_FOUND, name);
            }
            return remember(a, ds.ino(), actual, statAt(a, d.fd(), actual));
        }
    }

    @Override
    public Node resolve(Caller caller, FileHandle dir, String path, boolean followLast) throws VfsException {
        return PathResolver.resolve(this, caller, dir, path, followLast);
    }

    @Override
    public Node parent(Caller caller, FileHandle dir) throws VfsException {
        try (Arena a = Arena.ofConfined(); Fd d = open(a, dir)) {
            Stat ds = directoryStat(a, d);
            Permissions.require(caller, attrs(ds, null), Permissions.X, "lookup");
            if (ds.ino() == rootIno) {
                return new Node(root(), attrs(ds, null));
            }
            long parent = entryOf(ds.ino()).parent();
            FileHandle ph = parent == rootIno ? root() : handleOf(parent, FileType.DIRECTORY);
            return new Node(ph, getattr(ph));
        }
    }

    @Override
    public Node create(Caller caller, FileHandle dir, String name, CreateMode mode, SetAttributes attributes,
            long verifier) throws VfsException {
        Names.check(name);
        writable();
        try (Arena a = Arena.ofConfined(); Fd d = open(a, dir)) {
            Stat ds = directoryStat(a, d);
            Permissions.require(caller, attrs(ds, null), Permissions.X, "lookup");
            for (int attempt = 0; attempt < 8; attempt++) {
                String existing = actualName(a, d, ds, name);
                if (existing != null) {
                    return openExisting(a, caller, d, ds, existing, mode, attributes, verifier);
                }
                Permissions.requireDirChange(caller, attrs(ds, null));
                int m = Permissions.newMode(caller, attributes.mode(), 0644, ds.gid());
                int fd;
                try {
                    fd = Libc.openat(a, d.fd(), name, Libc.O_CREAT | Libc.O_EXCL | Libc.O_WRONLY | Libc.O_NOFOLLOW, m);
                } catch (Libc.Errno e) {
                    if (e.errno == Libc.EEXIST) {
                        continue; // raced with another creator: look again
                    }
                    throw e.toVfs("create " + name);
                }
                try (Fd f = Fd.owned(fd)) {
                    Libc.fchmodat(a, Libc.AT_FDCWD, Libc.procPath(f.fd()), m);
                    giveToCaller(a, caller, f, ds);
                    Stat st = stat(a, f.fd());
                    Entry e = store.created(st.ino(), ds.ino(), name, st.btime(),
                            mode == CreateMode.EXCLUSIVE ? verifier : null);
                    invalidateListing(ds.ino());
                    if (mode != CreateMode.EXCLUSIVE) {
                        SetAttributes rest = attributes.withoutMode();
                        if (!rest.isEmpty()) {
                            Permissions.checkSetattr(caller, attrs(st, e), rest);
                            apply(a, f, st, e, rest);
                            st = stat(a, f.fd());
                        }
                    }
                    return new Node(FileHandle.of(volumeId, st.ino(), e.generation(), st.type()), attrs(st, store.get(st.ino())));
                } catch (Libc.Errno e) {
                    throw e.toVfs("create " + name);
                }
            }
            throw new VfsException(VfsError.IO, "create " + name + " kept racing with other changes");
        }
    }

    private Node openExisting(Arena a, Caller caller, Fd d, Stat ds, String existing, CreateMode mode,
            SetAttributes attributes, long verifier) throws VfsException {
        Stat st = statAt(a, d.fd(), existing);
        switch (mode) {
            case GUARDED -> throw new VfsException(VfsError.EXISTS, existing);
            case EXCLUSIVE -> {
                Entry e = store.get(st.ino());
                if (e == null || e.createVerifier() == null || e.createVerifier() != verifier) {
                    throw new VfsException(VfsError.EXISTS, existing);
                }
                return remember(a, ds.ino(), existing, st);
            }
            default -> {
                if (st.type() == FileType.DIRECTORY) {
                    throw new VfsException(VfsError.IS_DIRECTORY, existing);
                }
                Node n = remember(a, ds.ino(), existing, st);
                if (attributes.size() != null) {
                    return new Node(n.handle(), setattr(caller, n.handle(), SetAttributes.create().size(attributes.size())));
                }
                return n;
            }
        }
    }

    @Override
    public Node mkdir(Caller caller, FileHandle dir, String name, SetAttributes attributes) throws VfsException {
        Names.check(name);
        writable();
        try (Arena a = Arena.ofConfined(); Fd d = open(a, dir)) {
            Stat ds = directoryStat(a, d);
            Permissions.requireDirChange(caller, attrs(ds, null));
            if (actualName(a, d, ds, name) != null) {
                throw new VfsException(VfsError.EXISTS, name);
            }
            int m = Permissions.newMode(caller, attributes.mode(), 0755, ds.gid()) | (ds.mode() & 02000);
            try {
                Libc.mkdirat(a, d.fd(), name, m);
                try (Fd f = Fd.owned(Libc.openat(a, d.fd(), name, Libc.O_PATH | Libc.O_NOFOLLOW | Libc.O_DIRECTORY, 0))) {
                    Libc.fchmodat(a, Libc.AT_FDCWD, Libc.procPath(f.fd()), m);
                    giveToCaller(a, caller, f, ds);
                    Stat st = stat(a, f.fd());
                    Entry e = store.created(st.ino(), ds.ino(), name, st.btime(), null);
                    invalidateListing(ds.ino());
                    SetAttributes rest = attributes.withoutMode();
                    if (!rest.isEmpty()) {
                        apply(a, f, st, e, rest);
                        st = stat(a, f.fd());
                    }
                    return new Node(FileHandle.of(volumeId, st.ino(), e.generation(), st.type()), attrs(st, store.get(st.ino())));
                }
            } catch (Libc.Errno e) {
                throw e.toVfs("mkdir " + name);
            }
        }
    }

    @Override
    public Node symlink(Caller caller, FileHandle dir, String name, String target, SetAttributes attributes)
            throws VfsException {
        Names.check(name);
        Names.checkSymlinkTarget(target);
        writable();
        try (Arena a = Arena.ofConfined(); Fd d = open(a, dir)) {
            Stat ds = directoryStat(a, d);
            Permissions.requireDirChange(caller, attrs(ds, null));
            if (actualName(a, d, ds, name) != null) {
                throw new VfsException(VfsError.EXISTS, name);
            }
            try {
                Libc.symlinkat(a, target, d.fd(), name);
                try (Fd f = Fd.owned(Libc.openat(a, d.fd(), name, Libc.O_PATH | Libc.O_NOFOLLOW, 0))) {
                    giveToCaller(a, caller, f, ds);
                    Stat st = stat(a, f.fd());
                    Entry e = store.created(st.ino(), ds.ino(), name, st.btime(), null);
                    invalidateListing(ds.ino());
                    return new Node(FileHandle.of(volumeId, st.ino(), e.generation(), st.type()), attrs(st, e));
                }
            } catch (Libc.Errno e) {
                throw e.toVfs("symlink " + name);
            }
        }
    }

    @Override
    public String readlink(Caller caller, FileHandle link) throws VfsException {
        try (Arena a = Arena.ofConfined(); Fd f = open(a, link)) {
            Stat st = stat(a, f.fd());
            if (st.type() != FileType.SYMLINK) {
                throw new VfsException(VfsError.NOT_SYMLINK, "not a symlink");
            }
            return Libc.readlink(a, f.fd());
        } catch (Libc.Errno e) {
            throw e.toVfs("readlink");
        }
    }

    @Override
    public Node link(Caller caller, FileHandle file, FileHandle dir, String name) throws VfsException {
        Names.check(name);
        writable();
        try (Arena a = Arena.ofConfined(); Fd f = open(a, file); Fd d = open(a, dir)) {
            Stat fs = stat(a, f.fd());
            if (fs.type() == FileType.DIRECTORY) {
                throw new VfsException(VfsError.IS_DIRECTORY, "hard link to a directory");
            }
            Stat ds = directoryStat(a, d);
            Permissions.requireDirChange(caller, attrs(ds, null));
            if (actualName(a, d, ds, name) != null) {
                throw new VfsException(VfsError.EXISTS, name);
            }
            try {
                Libc.linkat(a, Libc.AT_FDCWD, Libc.procPath(f.fd()), d.fd(), name, Libc.AT_SYMLINK_FOLLOW);
            } catch (Libc.Errno e) {
                throw e.toVfs("link " + name);
            }
            store.addAlias(fs.ino(), ds.ino(), name);
            invalidateListing(ds.ino());
            return new Node(file, attrs(stat(a, f.fd()), entryOf(fs.ino())));
        }
    }

    @Override
    public void remove(Caller caller, FileHandle dir, String name) throws VfsException {
        unlink(caller, dir, name, false, null);
    }

    @Override
    public void rmdir(Caller caller, FileHandle dir, String name) throws VfsException {
        unlink(caller, dir, name, true, null);
    }

    @Override
    public void removeIfSame(Caller caller, FileHandle dir, String name, FileHandle file) throws VfsException {
        unlink(caller, dir, name, file.type() == FileType.DIRECTORY, file);
    }

    private void unlink(Caller caller, FileHandle dir, String name, boolean directory, FileHandle expected)
            throws VfsException {
        Names.check(name);
        writable();
        try (Arena a = Arena.ofConfined(); Fd d = open(a, dir)) {
            Stat ds = directoryStat(a, d);
            Permissions.require(caller, attrs(ds, null), Permissions.X, "lookup");
            String actual = actualName(a, d, ds, name);
            if (actual == null) {
                throw new VfsException(VfsError.NOT_FOUND, name);
            }
            Stat victim = statAt(a, d.fd(), actual);
            if (directory && victim.type() != FileType.DIRECTORY) {
                throw new VfsException(VfsError.NOT_DIRECTORY, name);
            }
            if (!directory && victim.type() == FileType.DIRECTORY) {
                throw new VfsException(VfsError.IS_DIRECTORY, name);
            }
            Permissions.requireUnlink(caller, attrs(ds, null), attrs(victim, null));
            Entry record = store.get(victim.ino());
            if (expected != null && (victim.ino() != expected.fileId() || record == null
                    || record.generation() != expected.generation()
                    || record.btimeNanos() != 0 && victim.btime() != 0 && record.btimeNanos() != victim.btime())) {
                throw new VfsException(VfsError.STALE, name + " names another file now");
            }
            try {
                Libc.unlinkat(a, d.fd(), actual, directory ? Libc.AT_REMOVEDIR : 0);
            } catch (Libc.Errno e) {
                throw e.toVfs((directory ? "rmdir " : "remove ") + name);
            }
            invalidateListing(ds.ino());
            forgetIfGone(a, victim, record, ds.ino(), actual);
        }
    }

    /**
     * After an entry disappeared: drop the record if that was the file's last name; else, if it was
     * the recorded name, move the record to another known name of the file. {@code record} is the
     * file's record read before the entry went (null if it had none): once the file's last name is
     * gone the filesystem may give its inode number to a file another call creates, and only the
     * removed file's own record and locks go.
     */
    private void forgetIfGone(Arena a, Stat victim, Entry record, long parent, String name) {
        if (victim.type() == FileType.DIRECTORY || victim.nlink() <= 1) {
            dataFds.invalidate(victim.ino());
            invalidateListing(victim.ino());
            if (record != null && store.removeIf(victim.ino(), record.generation())) {
                locks.forget(victim.ino());
            }
            return;
        }
        store.removeAlias(victim.ino(), parent, name);
        Entry e = store.get(victim.ino());
        if (e == null || e.parent() != parent || !e.name().equals(name)) {
            return;
        }
        HandleStore.Alias next = null;
        for (HandleStore.Alias alias : store.aliases(victim.ino())) {
            if (stillAt(a, alias.parent(), alias.name(), victim.ino())) {
                next = alias;
                break;
            }
        }
        if (next == null) {
            next = sibling(a, parent, victim.ino());
        }
        HandleStore.Alias to = next;
        // with no other name known, the record waits for a lookup under one
        store.update(victim.ino(), cur -> to == null ? cur.at(0, "") : cur.at(to.parent(), to.name()));
        if (to != null) {
            store.removeAlias(victim.ino(), to.parent(), to.name());
        }
    }

    /** Another name of inode {@code ino} in directory {@code dir}, if there is one. */
    private HandleStore.Alias sibling(Arena a, long dir, long ino) {
        try (Fd d = walk(a, dir)) {
            for (Map.Entry<String, Long> en : DirectoryReader.read(d.fd()).entrySet()) {
                if (en.getValue() == ino) {
                    return new HandleStore.Alias(dir, en.getKey());
                }
            }
        } catch (VfsException | Libc.Errno e) {
            return null;
        }
        return null;
    }

    @Override
    public void rename(Caller caller, FileHandle fromDir, String fromName, FileHandle toDir, String toName,
            boolean replace) throws VfsException {
        Names.check(fromName);
        Names.check(toName);
        writable();
        try (Arena a = Arena.ofConfined(); Fd fd = open(a, fromDir); Fd td = open(a, toDir)) {
            Stat fs = directoryStat(a, fd);
            Stat ts = directoryStat(a, td);
            String from = actualName(a, fd, fs, fromName);
            if (from == null) {
                throw new VfsException(VfsError.NOT_FOUND, fromName);
            }
            Stat moving = statAt(a, fd.fd(), from);
            Permissions.requireUnlink(caller, attrs(fs, null), attrs(moving, null));
            Permissions.requireDirChange(caller, attrs(ts, null));
            String to = actualName(a, td, ts, toName);
            Stat target = to == null ? null : statAt(a, td.fd(), to);
            Entry targetRecord = target == null ? null : store.get(target.ino());
            if (target != null && target.ino() == moving.ino()) {
                if (fs.ino() == ts.ino() && !to.equals(toName) && options.caseInsensitive()) {
                    to = toName; // a case-only rename
                    target = null;
                } else {
                    return; // POSIX: renaming a file onto itself does nothing
                }
            }
            if (target != null) {
                if (!replace) {
                    throw new VfsException(VfsError.EXISTS, toName);
                }
                Permissions.requireUnlink(caller, attrs(ts, null), attrs(target, null));
            }
            try {
                Libc.renameat2(a, fd.fd(), from, td.fd(), to == null ? toName : to, replace ? 0 : Libc.RENAME_NOREPLACE);
            } catch (Libc.Errno e) {
                if (e.errno == Libc.EEXIST && replace) {
                    throw new VfsException(VfsError.NOT_EMPTY, toName);
                }
                throw e.toVfs("rename " + fromName + " to " + toName);
            }
            invalidateListing(fs.ino());
            invalidateListing(ts.ino());
            if (target != null) {
                forgetIfGone(a, target, targetRecord, ts.ino(), to);
            }
            String newName = to == null ? toName : to;
            if (store.update(moving.ino(), e -> e.at(ts.ino(), newName)) == null) {
                store.created(moving.ino(), ts.ino(), newName, moving.btime(), null);
            }
        }
    }

    @Override
    public DirectoryPage readdir(Caller caller, FileHandle dir, long cookie, long verifier, int maxEntries,
            boolean withAttributes) throws VfsException {
        if (maxEntries <= 0) {
            throw new VfsException(VfsError.INVALID, "maxEntries " + maxEntries);
        }
        try (Arena a = Arena.ofConfined(); Fd d = open(a, dir)) {
            Stat ds = directoryStat(a, d);
            Permissions.require(caller, attrs(ds, null), Permissions.R, "list");
            Listing l = listing(d, ds);
            int i = l.order().startAfter(cookie, verifier);
            List<DirectoryEntry> out = new ArrayList<>();
            for (; i < l.order().size() && out.size() < maxEntries; i++) {
                String name = l.order().name(i);
                Node node = null;
                if (withAttributes) {
                    try {
                        node = remember(a, ds.ino(), name, statAt(a, d.fd(), name));
                    } catch (VfsException e) {
                        if (e.error() == VfsError.NOT_FOUND || e.error() == VfsError.CROSS_DEVICE) {
                            continue; // removed since the listing was read, or a mount point
                        }
                        throw e;
                    }
                }
                out.add(new DirectoryEntry(name, l.inodes().get(name), l.order().cookie(i), node));
            }
            return new DirectoryPage(out, DirectoryCookies.VERIFIER, i >= l.order().size());
        }
    }

    private Listing listing(Fd d, Stat ds) throws VfsException {
        Listing l = listings.getIfPresent(ds.ino());
        if (l != null && l.mtime() == ds.mtime() && l.ctime() == ds.ctime()) {
            return l;
        }
        int stripe = (int) (ds.ino() & (listingChanges.length - 1));
        long seen;
        synchronized (listings) {
            seen = listingChanges[stripe];
        }
        try {
            Map<String, Long> inodes = DirectoryReader.read(d.fd());
            l = new Listing(ds.mtime(), ds.ctime(), DirectoryListing.of(inodes.keySet()), inodes);
        } catch (Libc.Errno e) {
            throw e.toVfs("read directory");
        }
        synchronized (listings) {
            if (listingChanges[stripe] == seen) {
                listings.put(ds.ino(), l);
            }
        }
        return l;
    }

    /** After the gateway changed a directory (or removed it: its inode number may be a new directory's). */
    private void invalidateListing(long dirIno) {
        synchronized (listings) {
            listingChanges[(int) (dirIno & (listingChanges.length - 1))]++;
            listings.invalidate(dirIno);
        }
    }

    @Override
    public FileAttributes setattr(Caller caller, FileHandle handle, SetAttributes attributes) throws VfsException {
        writable();
        try (Arena a = Arena.ofConfined(); Fd f = open(a, handle)) {
            Stat st = stat(a, f.fd());
            Entry e = entryOf(st.ino());
            Permissions.checkSetattr(caller, attrs(st, e), attributes);
            apply(a, f, st, e, attributes);
            if (e != null && (attributes.dosAttributes() != null || attributes.birthTime() != null
                    || attributes.changeTime() != null)) {
                changes.changedByGateway(e.parent(), e.name());
            }
            return attrs(stat(a, f.fd()), entryOf(st.ino()));
        }
    }

    private void apply(Arena a, Fd f, Stat st, Entry e, SetAttributes s) throws VfsException {
        try {
            if (s.size() != null) {
                if (st.type() != FileType.REGULAR) {
                    throw new VfsException(st.type() == FileType.DIRECTORY ? VfsError.IS_DIRECTORY : VfsError.INVALID, "size");
                }
                if (s.size() < 0) {
                    throw new VfsException(VfsError.FILE_TOO_BIG, "size " + s.size());
                }
                DataFd data = dataFd(a, f, st.ino(), e == null ? 0 : e.generation(), true);
                try {
                    Libc.ftruncate(a, data.fd, s.size());
                } finally {
                    data.release();
                }
            }
            int mode = st.mode();
            if (s.mode() != null) {
                mode = s.mode();
            }
            if (s.dosAttributes() != null && st.type() != FileType.DIRECTORY) {
                int bits = s.dosAttributes();
                if ((bits & DosAttributes.READONLY) != 0) {
                    mode &= ~0222;
                } else if ((mode & 0222) == 0) {
                    mode |= 0200;
                }
            }
            if (mode != st.mode()) {
                if (st.type() == FileType.SYMLINK) {
                    throw new VfsException(VfsError.NOT_SUPPORTED, "mode of a symlink");
                }
                Libc.fchmodat(a, Libc.AT_FDCWD, Libc.procPath(f.fd()), mode);
                if (s.dosAttributes() != null) {
                    // the write bits that follow the DOS READONLY attribute leave a kept descriptor describing the file
                    SecurityXattr.restamp(a, f, st, stat(a, f.fd()));
                }
            }
            if (s.uid() != null || s.gid() != null) {
                Libc.fchown(a, f.fd(), s.uid() == null ? -1 : s.uid(), s.gid() == null ? -1 : s.gid());
            }
            if (s.atime() != null || s.mtime() != null) {
                long at = time(s.atime());
                long mt = time(s.mtime());
                if (st.type() == FileType.SYMLINK) {
                    Entry le = entryOf(st.ino());
                    try (Fd parent = walk(a, le.parent())) {
                        Libc.utimensat(a, parent.fd(), le.name(), at, mt, Libc.AT_SYMLINK_NOFOLLOW);
                    }
                } else {
                    Libc.utimensat(a, Libc.AT_FDCWD, Libc.procPath(f.fd()), at, mt, 0);
                }
            }
            if (st.ino() != rootIno) {
                // the ctime this setattr left: a change time set now is reported until it moves
                long ctimeAfter = s.changeTime() == null ? 0 : stat(a, f.fd()).ctime();
                store.update(st.ino(), cur -> {
                    Entry next = cur.withVerifier(null);
                    if (s.dosAttributes() != null) {
                        next = next.withDos(DosAttributes.toStore(s.dosAttributes(), st.type()));
                    }
                    next = s.changeTime() != null ? next.withChange(s.changeTime(), ctimeAfter) : next.withoutChange();
                    return s.birthTime() == null ? next : next.withBirth(s.birthTime());
                });
            }
        } catch (Libc.Errno ex) {
            throw ex.toVfs("setattr");
        }
    }

    private static long time(Long t) {
        if (t == null) {
            return -Libc.UTIME_OMIT;
        }
        return t == SetAttributes.SERVER_TIME ? -Libc.UTIME_NOW : t;
    }

    @Override
    public FsStat statfs(FileHandle handle) throws VfsException {
        try (Arena a = Arena.ofConfined(); Fd f = open(a, handle)) {
            long[] v = Libc.fstatvfs(a, f.fd());
            long frsize = v[1] == 0 ? v[0] : v[1];
            return new FsStat(v[2] * frsize, v[3] * frsize, v[4] * frsize, v[5], v[6], v[7], (int) v[0],
                    (int) Math.min(v[10], MAX_NAME_BYTES), Long.MAX_VALUE);
        } catch (Libc.Errno e) {
            throw e.toVfs("statfs");
        }
    }

    @Override
    public IoMemory read(Caller caller, FileHandle file, long offset, int length, IoMemoryPool.Account memory)
            throws VfsException {
        if (offset < 0 || length < 0) {
            throw new VfsException(VfsError.INVALID, "read at " + offset + " of " + length);
        }
        try (Arena a = Arena.ofConfined()) {
            DataFd data = dataFd(a, file, false);
            try {
                Stat st = liveStat(a, data, file);
                Permissions.require(caller, attrs(st, null), Permissions.R, "read");
                IoMemory m = memory.lease(Math.max(length, 1));
                try {
                    long n = length == 0 || offset >= st.size() ? 0 : Libc.pread(a, data.fd, m.segment(), offset);
                    m.shrink(n);
                    return m;
                } catch (Libc.Errno | RuntimeException e) {
                    m.release();
                    throw e;
                }
            } finally {
                data.release();
            }
        } catch (Libc.Errno e) {
            throw e.toVfs("read");
        }
    }

    @Override
    public IoMemory map(Caller caller, FileHandle file, long offset, int length) throws VfsException {
        int threshold = options.mapReadThreshold();
        if (threshold <= 0 || length < threshold || offset < 0) {
            return null;
        }
        try (Arena a = Arena.ofConfined()) {
            DataFd data = dataFd(a, file, false);
            try {
                Stat st = liveStat(a, data, file);
                Permissions.require(caller, attrs(st, null), Permissions.R, "read");
                long len = Math.min(length, st.size() - offset);
                if (len <= 0) {
                    return null;
                }
                long base = offset & ~4095L;
                long mapLen = offset - base + len;
                MemorySegment addr = Libc.mmap(a, data.fd, base, mapLen);
                Arena region = Arena.ofShared();
                MemorySegment mapped = addr.reinterpret(mapLen, region, s -> Libc.munmap(s, mapLen));
                return new MappedIoMemory(region, mapped.asSlice(offset - base, len));
            } finally {
                data.release();
            }
        } catch (Libc.Errno e) {
            throw e.toVfs("map");
        }
    }

    @Override
    public WriteResult write(Caller caller, FileHandle file, long offset, IoMemory payload, Stability stability)
            throws VfsException {
        return write(caller, file, offset, new MemorySegment[] {payload.segment()}, stability);
    }

    @Override
    public WriteResult write(Caller caller, FileHandle file, long offset, MemorySegment[] parts, Stability stability)
            throws VfsException {
        writable();
        long length = 0;
        for (MemorySegment p : parts) {
            length += p.byteSize();
        }
        if (offset < 0 || offset + length < offset || length > Integer.MAX_VALUE) {
            throw new VfsException(VfsError.FILE_TOO_BIG, "write at " + offset);
        }
        try (Arena a = Arena.ofConfined()) {
            DataFd data = dataFd(a, file, true);
            try {
                Stat st = liveStat(a, data, file);
                if (caller.uid() != st.uid()) {
                    Permissions.require(caller, attrs(st, null), Permissions.W, "write");
                }
                if (parts.length == 1) {
                    Libc.pwrite(a, data.fd, parts[0], offset);
                } else {
                    Libc.pwritev(a, data.fd, parts, offset);
                }
                if (!caller.isSuperuser() && (st.mode() & 06000) != 0) {
                    Libc.fchmodat(a, Libc.AT_FDCWD, Libc.procPath(data.fd), st.mode() & ~06000);
                }
                if (stability != Stability.UNSTABLE) {
                    Libc.fsync(a, data.fd, stability == Stability.DATA_SYNC);
                }
                Entry e = store.update(st.ino(), cur -> cur.withDos(cur.dos() | DosAttributes.ARCHIVE).withoutChange());
                return new WriteResult((int) length, stability, attrs(stat(a, data.fd), e));
            } finally {
                data.release();
            }
        } catch (Libc.Errno e) {
            throw e.toVfs("write");
        }
    }

    @Override
    public long seek(Caller caller, FileHandle file, long offset, boolean data) throws VfsException {
        if (offset < 0) {
            throw new VfsException(VfsError.INVALID, "seek from " + offset);
        }
        try (Arena a = Arena.ofConfined()) {
            DataFd d = dataFd(a, file, false);
            try {
                Permissions.require(caller, attrs(liveStat(a, d, file), null), Permissions.R, "seek");
                return Libc.seek(a, d.fd, offset, data ? Libc.SEEK_DATA : Libc.SEEK_HOLE);
            } finally {
                d.release();
            }
        } catch (Libc.Errno e) {
            throw e.toVfs("seek");
        }
    }

    @Override
    public void allocate(Caller caller, FileHandle file, long offset, long length) throws VfsException {
        fallocate(caller, file, offset, length, 0, "allocate");
    }

    @Override
    public void deallocate(Caller caller, FileHandle file, long offset, long length) throws VfsException {
        fallocate(caller, file, offset, length, Libc.FALLOC_FL_PUNCH_HOLE | Libc.FALLOC_FL_KEEP_SIZE, "deallocate");
    }

    private void fallocate(Caller caller, FileHandle file, long offset, long length, int mode, String what)
            throws VfsException {
        writable();
        if (offset < 0 || length <= 0 || offset + length < 0) {
            throw new VfsException(VfsError.INVALID, what + " of " + length + " bytes at " + offset);
        }
        try (Arena a = Arena.ofConfined()) {
            DataFd d = dataFd(a, file, true);
            try {
                requireWrite(caller, liveStat(a, d, file), what);
                Libc.fallocate(a, d.fd, mode, offset, length);
                touched(liveStat(a, d, file));
            } finally {
                d.release();
            }
        } catch (Libc.Errno e) {
            throw e.toVfs(what);
        }
    }

    @Override
    public long copy(Caller caller, FileHandle from, long fromOffset, FileHandle to, long toOffset, long length)
            throws VfsException {
        writable();
        if (fromOffset < 0 || toOffset < 0 || length < 0 || toOffset + length < 0) {
            throw new VfsException(VfsError.INVALID, "copy of " + length + " bytes from " + fromOffset + " to " + toOffset);
        }
        try (Arena a = Arena.ofConfined()) {
            DataFd in = dataFd(a, from, false);
            try {
                Stat src = liveStat(a, in, from);
                Permissions.require(caller, attrs(src, null), Permissions.R, "copy");
                DataFd out = dataFd(a, to, true);
                try {
                    Stat dst = liveStat(a, out, to);
                    requireWrite(caller, dst, "copy");
                    long want = Math.min(length == 0 ? Long.MAX_VALUE : length, Math.max(0, src.size() - fromOffset));
                    long done = copySparse(a, in.fd, fromOffset, out.fd, toOffset, want, dst.size());
                    touched(liveStat(a, out, to));
                    return done;
                } finally {
                    out.release();
                }
            } finally {
                in.release();
            }
        } catch (Libc.Errno e) {
            throw e.toVfs("copy");
        }
    }

    /**
     * copy_file_range of the source's data extents only (SEEK_DATA/SEEK_HOLE): a hole is skipped, and
     * punched in the destination where it had bytes (zeroes written instead where the filesystem
     * cannot punch), so a sparse file stays sparse and its holes cost no time. The destination grows
     * to the copy's end. Returns the bytes copied, holes included; fewer when the source ends first.
     */
    private static long copySparse(Arena a, int in, long from, int out, long to, long length, long outSize)
            throws Libc.Errno {
        long end = from + length;
        long pos = from;
        while (pos < end) {
            long data = Libc.seek(a, in, pos, Libc.SEEK_DATA);
            long holeEnd = data < 0 ? end : Math.min(data, end);
            if (holeEnd > pos) {
                long at = to + (pos - from);
                if (at < outSize) {
                    long n = Math.min(holeEnd - pos, outSize - at);
                    try {
                        Libc.fallocate(a, out, Libc.FALLOC_FL_PUNCH_HOLE | Libc.FALLOC_FL_KEEP_SIZE, at, n);
                    } catch (Libc.Errno e) {
                        if (e.errno != Libc.EOPNOTSUPP || copyRange(a, in, pos, out, at, n) < n) {
                            throw e;
                        }
                    }
                }
                pos = holeEnd;
                continue;
            }
            long hole = Libc.seek(a, in, pos, Libc.SEEK_HOLE);
            long dataEnd = hole < 0 ? end : Math.min(hole, end);
            long want = dataEnd - pos;
            long n = copyRange(a, in, pos, out, to + (pos - from), want);
            pos += n;
            if (n < want) {
                break; // the source ended first
            }
        }
        long copied = pos - from;
        if (to + copied > outSize) {
            Libc.ftruncate(a, out, to + copied);
        }
        return copied;
    }

    /** copy_file_range until {@code length} bytes are copied or the source ends. */
    private static long copyRange(Arena a, int in, long from, int out, long to, long length) throws Libc.Errno {
        long done = 0;
        while (done < length) {
            long n = Libc.copyFileRange(a, in, from + done, out, to + done, length - done);
            if (n == 0) {
                break;
            }
            done += n;
        }
        return done;
    }

    @Override
    public void clone(Caller caller, FileHandle from, long fromOffset, FileHandle to, long toOffset, long length)
            throws VfsException {
        writable();
        if (fromOffset < 0 || toOffset < 0 || length < 0 || toOffset + length < 0) {
            throw new VfsException(VfsError.INVALID, "clone of " + length + " bytes from " + fromOffset + " to " + toOffset);
        }
        try (Arena a = Arena.ofConfined()) {
            DataFd in = dataFd(a, from, false);
            try {
                Permissions.require(caller, attrs(liveStat(a, in, from), null), Permissions.R, "clone");
                DataFd out = dataFd(a, to, true);
                try {
                    requireWrite(caller, liveStat(a, out, to), "clone");
                    Libc.cloneRange(a, in.fd, fromOffset, out.fd, toOffset, length);
                    touched(liveStat(a, out, to));
                } finally {
                    out.release();
                }
            } finally {
                in.release();
            }
        } catch (Libc.Errno e) {
            if (e.errno == Libc.EOPNOTSUPP || e.errno == Libc.EXDEV || e.errno == Libc.ENOTTY) {
                throw new VfsException(VfsError.NOT_SUPPORTED, "the backing filesystem cannot clone (errno " + e.errno + ")", e);
            }
            throw e.toVfs("clone");
        }
    }

    /** As write: the owner writes whatever the mode says (NFS clients check it on open), others need w. */
    private void requireWrite(Caller caller, Stat st, String what) throws VfsException {
        if (caller.uid() != st.uid()) {
            Permissions.require(caller, attrs(st, null), Permissions.W, what);
        }
    }

    /** A file whose data changed: Windows' archive bit is set, as by a write. */
    private void touched(Stat st) {
        store.update(st.ino(), cur -> cur.withDos(cur.dos() | DosAttributes.ARCHIVE));
    }

    @Override
    public void commit(FileHandle file) throws VfsException {
        try {
            // the records of handles handed out so far (new files, renames) first: the fsync below
            // is what the caller replies on, and a handle whose record is lost is STALE after a crash
            store.sync();
        } catch (IllegalStateException e) { // MVStoreException: the store's file cannot be synced
            throw new VfsException(VfsError.IO, "cannot sync the handle store: " + e.getMessage());
        }
        try (Arena a = Arena.ofConfined()) {
            Fd f = open(a, file);
            try (f) {
                FileType type = stat(a, f.fd()).type();
                if (type == FileType.DIRECTORY) {
                    // fsync(2) of the directory: its entries, and on a journaling filesystem every
                    // change logged before them, reach the disk (an O_PATH descriptor cannot sync)
                    try (Fd d = Fd.owned(Libc.openat(a, Libc.AT_FDCWD, Libc.procPath(f.fd()),
                            Libc.O_RDONLY | Libc.O_DIRECTORY, 0))) {
                        Libc.fsync(a, d.fd(), false);
                    } catch (Libc.Errno e) {
                        if (e.errno != Libc.EINVAL) { // EINVAL: a filesystem that cannot sync directories
                            throw e;
                        }
                    }
                    return;
                }
                if (type != FileType.REGULAR) {
                    return;
                }
            }
            DataFd data = dataFd(a, file, false);
            try {
                Libc.fsync(a, data.fd, false);
            } finally {
                data.release();
            }
        } catch (Libc.Errno e) {
            throw e.toVfs("commit");
        }
    }

    @Override
    public long writeVerifier() {
        return writeVerifier;
    }

    @Override
    public byte[] getxattr(Caller caller, FileHandle handle, String name) throws VfsException {
        Names.checkXattrName(name);
        try (Arena a = Arena.ofConfined(); Fd f = xattrTarget(a, caller, handle, Permissions.R)) {
            return Libc.getxattr(a, Libc.procPath(f.fd()), "user." + name);
        } catch (Libc.Errno e) {
            throw e.toVfs("getxattr " + name);
        }
    }

    @Override
    public void setxattr(Caller caller, FileHandle handle, String name, byte[] value, XattrMode mode)
            throws VfsException {
        Names.checkXattrName(name);
        writable();
        int flags = switch (mode) {
            case CREATE -> Libc.XATTR_CREATE;
            case REPLACE -> Libc.XATTR_REPLACE;
            case EITHER -> 0;
        };
        try (Arena a = Arena.ofConfined(); Fd f = xattrTarget(a, caller, handle, Permissions.W)) {
            Libc.setxattr(a, Libc.procPath(f.fd()), "user." + name, value, flags);
        } catch (Libc.Errno e) {
            throw e.toVfs("setxattr " + name);
        }
    }

    @Override
    public List<String> listxattr(Caller caller, FileHandle handle) throws VfsException {
        try (Arena a = Arena.ofConfined(); Fd f = xattrTarget(a, caller, handle, Permissions.R)) {
            byte[] raw = Libc.listxattr(a, Libc.procPath(f.fd()));
            List<String> out = new ArrayList<>();
            int start = 0;
            for (int i = 0; i < raw.length; i++) {
                if (raw[i] == 0) {
                    String n = new String(raw, start, i - start, StandardCharsets.UTF_8);
                    if (n.startsWith("user.") && !Names.reservedXattr(n.substring(5))) {
                        out.add(n.substring(5));
                    }
                    start = i + 1;
                }
            }
            return out;
        } catch (Libc.Errno e) {
            throw e.toVfs("listxattr");
        }
    }

    @Override
    public void removexattr(Caller caller, FileHandle handle, String name) throws VfsException {
        Names.checkXattrName(name);
        writable();
        try (Arena a = Arena.ofConfined(); Fd f = xattrTarget(a, caller, handle, Permissions.W)) {
            Libc.removexattr(a, Libc.procPath(f.fd()), "user." + name);
        } catch (Libc.Errno e) {
            throw e.toVfs("removexattr " + name);
        }
    }

    @Override
    public byte[] securityDescriptor(FileHandle handle) throws VfsException {
        try (Arena a = Arena.ofConfined(); Fd f = open(a, handle)) {
            return SecurityXattr.read(a, f, stat(a, f.fd()));
        }
    }

    @Override
    public void securityDescriptor(Caller caller, FileHandle handle, byte[] descriptor, SetAttributes posix)
            throws VfsException {
        writable();
        try (Arena a = Arena.ofConfined(); Fd f = open(a, handle)) {
            Stat st = stat(a, f.fd());
            if (st.type() == FileType.SYMLINK) {
                throw new VfsException(VfsError.NOT_SUPPORTED, "security descriptor of a symlink");
            }
            if (posix.isEmpty()) {
                SecurityXattr.write(a, f, st.mode(), st.uid(), st.gid(), descriptor);
                return;
            }
            Entry e = entryOf(st.ino());
            Permissions.checkSetattr(caller, attrs(st, e), posix);
            // stored first, stamped as the file is about to be: a descriptor the filesystem refuses changes nothing
            byte[] before = SecurityXattr.raw(a, f);
            int mode = posix.mode() != null ? posix.mode() : st.mode();
            int uid = posix.uid() != null ? posix.uid() : st.uid();
            int gid = posix.gid() != null ? posix.gid() : st.gid();
            SecurityXattr.write(a, f, mode, uid, gid, descriptor);
            try {
                apply(a, f, st, e, posix);
            } catch (VfsException ex) {
                SecurityXattr.restore(a, f, before);
                throw ex;
            }
            Stat after = stat(a, f.fd());
            if (((after.mode() ^ mode) & 07777) != 0 || after.uid() != uid || after.gid() != gid) {
                SecurityXattr.write(a, f, after.mode(), after.uid(), after.gid(), descriptor); // chown cleared set-id bits
            }
        }
    }

    private Fd xattrTarget(Arena a, Caller caller, FileHandle handle, int want) throws VfsException {
        Fd f = open(a, handle);
        try {
            Stat st = stat(a, f.fd());
            if (st.type() == FileType.SYMLINK) {
                throw new VfsException(VfsError.NOT_SUPPORTED, "user xattrs on a symlink");
            }
            Permissions.require(caller, attrs(st, null), want, "xattr");
            return f;
        } catch (VfsException e) {
            f.close();
            throw e;
        }
    }

    @Override
    public DirectoryWatch watch(FileHandle dir, DirectoryListener listener) throws VfsException {
        try (Arena a = Arena.ofConfined(); Fd d = open(a, dir)) {
            Stat st = stat(a, d.fd());
            if (st.type() != FileType.DIRECTORY) {
                throw new VfsException(VfsError.NOT_DIRECTORY, "watch of a file");
            }
            return changes.watch(d, st.ino(), listener);
        }
    }

    @Override
    public LockManager locks() {
        return locks;
    }

    @Override
    public io.rdmagate.vfs.state.FileStates states() {
        return states;
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        changes.close();
        foreignWrites.close();
        ofdLocks.closeAll();
        dataFds.invalidateAll();
        dataFds.cleanUp();
        listings.invalidateAll();
        store.close();
        Libc.close(rootFd);
    }

    /**
     * A new open file description of regular file {@code ino}, read-write (read-only where the
     * file cannot be opened for writing: shared locks only), for {@link OfdLocks}; -1 when the file
     * is gone or not a regular file.
     */
    private int openForLocks(long ino) {
        Entry e = store.get(ino);
        if (e == null || closed) {
            return -1;
        }
        try (Arena a = Arena.ofConfined(); Fd f = open(a, FileHandle.of(volumeId, ino, e.generation(), FileType.REGULAR))) {
            if (stat(a, f.fd()).type() != FileType.REGULAR) {
                return -1;
            }
            try {
                return Libc.openat(a, Libc.AT_FDCWD, Libc.procPath(f.fd()), Libc.O_RDWR, 0);
            } catch (Libc.Errno rw) {
                return Libc.openat(a, Libc.AT_FDCWD, Libc.procPath(f.fd()), Libc.O_RDONLY, 0);
            }
        } catch (VfsException | Libc.Errno gone) {
            return -1;
        }
    }

    // ---- resolution ----

    /** Resolves a handle to an O_PATH descriptor of exactly its file, or fails STALE. */
    private Fd open(Arena a, FileHandle h) throws VfsException {
        if (closed) {
            throw new VfsException(VfsError.IO, "export closed");
        }
        if (h.volumeId() != volumeId) {
            throw new VfsException(VfsError.STALE, "handle of another volume");
        }
        if (h.fileId() == rootIno) {
            if (h.generation() != rootGeneration) {
                throw new VfsException(VfsError.STALE, "handle of an earlier root");
            }
            if (h.type() != FileType.DIRECTORY) {
                throw new VfsException(VfsError.BAD_HANDLE, "handle type " + h.type() + " of the root");
            }
            return Fd.borrowed(rootFd);
        }
        Entry e = store.get(h.fileId());
        if (e == null || e.generation() != h.generation() || e.name().isEmpty()) {
            throw new VfsException(VfsError.STALE, "no file for handle " + h);
        }
        Fd parent = walk(a, e.parent());
        try (parent) {
            int fd = Libc.openat(a, parent.fd(), e.name(), Libc.O_PATH | Libc.O_NOFOLLOW, 0);
            Fd f = Fd.owned(fd);
            Stat st = stat(a, fd);
            if (st.ino() != h.fileId() || st.dev() != rootDev || (e.btimeNanos() != 0 && st.btime() != 0
                    && e.btimeNanos() != st.btime())) {
                f.close();
                throw new VfsException(VfsError.STALE, "the file of handle " + h + " is gone");
            }
            if (st.type() != h.type()) {
                // the type byte is part of what the handle claims: a client that changed it forged it
                f.close();
                throw new VfsException(VfsError.BAD_HANDLE, "handle type " + h.type() + " of a " + st.type());
            }
            return f;
        } catch (Libc.Errno ex) {
            throw new VfsException(VfsError.STALE, "the file of handle " + h + " is gone (errno " + ex.errno + ")");
        }
    }

    /** Opens directory {@code ino} by walking its recorded names down from the root. */
    private Fd walk(Arena a, long ino) throws VfsException {
        List<String> names = new ArrayList<>();
        long cur = ino;
        while (cur != rootIno) {
            Entry e = store.get(cur);
            if (e == null || e.name().isEmpty() || names.size() > MAX_DEPTH) {
                throw new VfsException(VfsError.STALE, "directory " + cur + " is no longer known");
            }
            names.add(e.name());
            cur = e.parent();
        }
        Fd dir = Fd.borrowed(rootFd);
        try {
            for (int i = names.size() - 1; i >= 0; i--) {
                int next = Libc.openat(a, dir.fd(), names.get(i), Libc.O_PATH | Libc.O_NOFOLLOW | Libc.O_DIRECTORY, 0);
                dir.close();
                dir = Fd.owned(next);
            }
            return dir;
        } catch (Libc.Errno e) {
            dir.close();
            throw new VfsException(VfsError.STALE, "a directory on the way is gone (errno " + e.errno + ")");
        }
    }

    /**
     * The attributes of a regular file whose data descriptor is open already (it was read or written
     * lately), from one {@code statx} on that descriptor instead of a walk of its recorded path; null
     * when there is none, or when the file lost its last name or its record, for the walk to decide
     * (and answer STALE). The descriptor holds the inode, so its number cannot be reused meanwhile;
     * a file replaced by a rename over it has no links left on the old inode.
     */
    private FileAttributes openFileAttributes(FileHandle h) throws VfsException {
        if (h.type() != FileType.REGULAR || h.volumeId() != volumeId || closed) {
            return null;
        }
        DataFd data = dataFds.getIfPresent(h.fileId());
        if (data == null || data.generation != h.generation() || !data.acquire()) {
            return null;
        }
        try (Arena a = Arena.ofConfined()) {
            Entry e = store.get(h.fileId());
            if (e == null || e.generation() != h.generation() || e.name().isEmpty()) {
                return null;
            }
            Stat st = stat(a, data.fd);
            return st.nlink() == 0 ? null : attrs(st, e);
        } finally {
            data.release();
        }
    }

    /**
     * The attributes of an open file that still has a name. A file deleted behind the gateway's back
     * keeps its open descriptor alive; its handle is stale all the same, and writes must not vanish
     * into it.
     */
    private Stat liveStat(Arena a, DataFd data, FileHandle h) throws VfsException {
        Stat st = stat(a, data.fd);
        if (st.nlink() == 0) {
            dataFds.asMap().remove(h.fileId(), data);
            throw new VfsException(VfsError.STALE, "the file of handle " + h + " was deleted");
        }
        return st;
    }

    private DataFd dataFd(Arena a, FileHandle h, boolean forWrite) throws VfsException {
        Entry e = h.fileId() == rootIno ? null : store.get(h.fileId());
        if (h.volumeId() != volumeId || e == null || e.generation() != h.generation()) {
            if (h.fileId() == rootIno && h.volumeId() == volumeId && h.generation() == rootGeneration) {
                throw new VfsException(VfsError.IS_DIRECTORY, "is a directory");
            }
            throw new VfsException(VfsError.STALE, "no file for handle " + h);
        }
        while (true) {
            DataFd cached = dataFds.getIfPresent(h.fileId());
            if (cached != null && cached.generation == h.generation() && (cached.writable || !forWrite) && cached.acquire()) {
                return cached;
            }
            try (Fd f = open(a, h)) {
                return dataFd(a, f, h.fileId(), h.generation(), forWrite);
            }
        }
    }

    private DataFd dataFd(Arena a, Fd pathFd, long ino, long generation, boolean forWrite) throws VfsException {
        Stat st = stat(a, pathFd.fd());
        if (st.type() == FileType.DIRECTORY) {
            throw new VfsException(VfsError.IS_DIRECTORY, "is a directory");
        }
        if (st.type() != FileType.REGULAR) {
            throw new VfsException(VfsError.INVALID, "not a regular file");
        }
        int fd;
        boolean writable = true;
        try {
            fd = Libc.openat(a, Libc.AT_FDCWD, Libc.procPath(pathFd.fd()), Libc.O_RDWR, 0);
        } catch (Libc.Errno e) {
            if (forWrite || (e.errno != Libc.EACCES && e.errno != Libc.EROFS)) {
                throw e.toVfs("open for " + (forWrite ? "writing" : "reading"));
            }
            try {
                fd = Libc.openat(a, Libc.AT_FDCWD, Libc.procPath(pathFd.fd()), Libc.O_RDONLY, 0);
                writable = false;
            } catch (Libc.Errno e2) {
                throw e2.toVfs("open for reading");
            }
        }
        DataFd d = new DataFd(fd, generation, writable);
        d.acquire();
        dataFds.put(ino, d); // the cache's removal listener releases a replaced descriptor
        return d;
    }

    // ---- records and attributes ----

    /** Makes sure the file at (parent, name) has a record and returns its handle and attributes. */
    private Node remember(Arena a, long parent, String name, Stat st) throws VfsException {
        if (st.ino() == rootIno) {
            return new Node(root(), attrs(st, null));
        }
        if (st.dev() != rootDev) {
            throw new VfsException(VfsError.CROSS_DEVICE, name + " is on another filesystem");
        }
        Entry e;
        synchronized (store) {
            e = store.get(st.ino());
            boolean sameBirth = e != null && (e.btimeNanos() == 0 || st.btime() == 0 || e.btimeNanos() == st.btime());
            boolean samePlace = e != null && e.parent() == parent && e.name().equals(name);
            if (e != null && !(sameBirth && samePlace) && (!sameBirth || st.nlink() <= 1) && recordedFileLive(a, e, st.ino())) {
                // the stat was of a file removed since, whose inode number the recorded file now has
                throw new VfsException(VfsError.NOT_FOUND, name + " was removed");
            }
            if (e == null || !sameBirth) {
                e = Entry.fresh(parent, name, st.btime());
                store.put(st.ino(), e);
            } else if (!samePlace) {
                if (st.nlink() > 1 && stillAt(a, e.parent(), e.name(), st.ino())) {
                    store.addAlias(st.ino(), parent, name);
                } else {
                    e = e.at(parent, name);
                    store.put(st.ino(), e);
                }
            }
        }
        store.commitChanges(); // what the block changed, now that the store's monitor is free
        return new Node(FileHandle.of(volumeId, st.ino(), e.generation(), st.type()), attrs(st, e));
    }

    /** Whether the file a record describes is where the record says (same inode, same birth time). */
    private boolean recordedFileLive(Arena a, Entry e, long ino) {
        if (e.name().isEmpty()) {
            return false;
        }
        try (Fd p = walk(a, e.parent())) {
            Stat at = statAt(a, p.fd(), e.name());
            return at.ino() == ino && (e.btimeNanos() == 0 || at.btime() == 0 || at.btime() == e.btimeNanos());
        } catch (VfsException ex) {
            return false;
        }
    }

    private boolean stillAt(Arena a, long parent, String name, long ino) {
        if (name.isEmpty()) {
            return false;
        }
        try (Fd p = walk(a, parent)) {
            return statAt(a, p.fd(), name).ino() == ino;
        } catch (VfsException ex) {
            return false;
        }
    }

    private Entry entryOf(long ino) {
        return ino == rootIno ? null : store.get(ino);
    }

    private FileHandle handleOf(long ino, FileType type) throws VfsException {
        Entry e = store.get(ino);
        if (e == null) {
            throw new VfsException(VfsError.STALE, "no record of " + ino);
        }
        return FileHandle.of(volumeId, ino, e.generation(), type);
    }

    private FileAttributes attrs(Stat s, Entry e) {
        int stored = e == null ? 0 : e.dos();
        long birth = e != null && e.birthOverride() != Entry.NONE ? e.birthOverride() : s.btime() != 0 ? s.btime() : s.ctime();
        long change = e == null ? s.ctime() : e.change(s.ctime());
        return new FileAttributes(s.type(), s.mode(), s.nlink(), s.uid(), s.gid(), s.size(), s.blocks() * 512, s.ino(),
                volumeId, s.rdev(), s.atime(), s.mtime(), change, birth, DosAttributes.derive(stored, s.type(), s.mode()),
                s.ctime() ^ (s.size() << 1));
    }

    private static Stat stat(Arena a, int fd) throws VfsException {
        MemorySegment sx = a.allocate(Libc.STATX);
        try {
            Libc.statx(a, fd, "", Libc.AT_EMPTY_PATH, sx);
        } catch (Libc.Errno e) {
            throw e.toVfs("stat");
        }
        return Stat.of(sx);
    }

    private static Stat statAt(Arena a, int dirfd, String name) throws VfsException {
        MemorySegment sx = a.allocate(Libc.STATX);
        try {
            Libc.statx(a, dirfd, name, Libc.AT_SYMLINK_NOFOLLOW, sx);
        } catch (Libc.Errno e) {
            throw e.toVfs(name);
        }
        return Stat.of(sx);
    }

    private static Stat directoryStat(Arena a, Fd d) throws VfsException {
        Stat s = stat(a, d.fd());
        if (s.type() != FileType.DIRECTORY) {
            throw new VfsException(VfsError.NOT_DIRECTORY, "not a directory");
        }
        return s;
    }

    /** The name as it is on disk: exact, or a case-insensitive match on such exports; null if none. */
    private String actualName(Arena a, Fd d, Stat ds, String name) throws VfsException {
        try {
            MemorySegment sx = a.allocate(Libc.STATX);
            Libc.statx(a, d.fd(), name, Libc.AT_SYMLINK_NOFOLLOW, sx);
            return name;
        } catch (Libc.Errno e) {
            if (e.errno != Libc.ENOENT) {
                throw e.toVfs(name);
            }
        }
        if (options.caseInsensitive()) {
            for (String n : listing(d, ds).inodes().keySet()) {
                if (n.equalsIgnoreCase(name)) {
                    return n;
                }
            }
        }
        return null;
    }

    /** New objects belong to the caller (and to the directory's group under setgid). */
    private void giveToCaller(Arena a, Caller caller, Fd f, Stat dir) throws Libc.Errno {
        if (superuser) {
            int gid = (dir.mode() & 02000) != 0 ? dir.gid() : caller.gid();
            Libc.fchown(a, f.fd(), caller.uid(), gid);
        }
    }

    private void writable() throws VfsException {
        if (options.readOnly()) {
            throw new VfsException(VfsError.READ_ONLY, "read-only export");
        }
    }

    /** Records in the handle store (for metrics and tests). */
    public long handleRecords() {
        return store.size();
    }

    static {
        // fail at class load, with a clear message, where the calls cannot work
        if (!System.getProperty("os.name", "").toLowerCase(java.util.Locale.ROOT).contains("linux")) {
            throw new ExceptionInInitializerError("the local vfs backend needs Linux");
        }
    }
}
