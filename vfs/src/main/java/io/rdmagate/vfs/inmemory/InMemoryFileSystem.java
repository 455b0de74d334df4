package io.rdmagate.vfs.inmemory;

import java.lang.foreign.MemorySegment;

import io.rdmagate.vfs.Caller;
import io.rdmagate.vfs.CreateMode;
import io.rdmagate.vfs.DirectoryChange;
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
import io.rdmagate.vfs.lock.LockManager;
import io.rdmagate.vfs.memory.IoMemory;
import io.rdmagate.vfs.memory.IoMemoryPool;
import io.rdmagate.vfs.support.DirectoryCookies;
import io.rdmagate.vfs.support.DirectoryListing;
import io.rdmagate.vfs.support.DescriptorStamp;
import io.rdmagate.vfs.support.Names;
import io.rdmagate.vfs.support.PathResolver;
import io.rdmagate.vfs.support.Permissions;
import io.rdmagate.vfs.support.Watches;
import java.security.SecureRandom;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A tree held in memory, for tests of every protocol above the vfs. It keeps the semantics of the
 * local backend (permissions, cookies, persistent handles across {@link #reopen()}), but its data
 * lives only as long as the JVM.
 */
public final class InMemoryFileSystem implements VirtualFileSystem {
    private static final long MAX_FILE_SIZE = Long.MAX_VALUE;
    private static final SecureRandom RANDOM = new SecureRandom();

    /** What survives a {@link #reopen()}: the tree. */
    private static final class Store {
        final int volumeId;
        final Map<Long, Inode> inodes = new HashMap<>();
        long nextId = 2;
        long lastTime;
        Inode root;

        Store(int volumeId) {
            this.volumeId = volumeId;
        }
    }

    private final Store store;
    private final ExportOptions options;
    private final LockManager locks = new LockManager();
    private final io.rdmagate.vfs.state.FileStates states;
    private final long writeVerifier = RANDOM.nextLong();
    private volatile boolean closed;
    private final Watches watches;

    private InMemoryFileSystem(Store store, ExportOptions options) {
        this.store = store;
        this.options = options;
        this.watches = new Watches("mem-" + store.volumeId, dir -> { });
        this.states = new io.rdmagate.vfs.state.FileStates(store.volumeId);
    }

    public static InMemoryFileSystem create(int volumeId, ExportOptions options) {
        Store s = new Store(volumeId);
        InMemoryFileSystem fs = new InMemoryFileSystem(s, options);
        long now = fs.now();
        s.root = new Inode(1, RANDOM.nextLong(), FileType.DIRECTORY, 0755, 0, 0, now, null);
        s.root.parent = s.root;
        s.inodes.put(1L, s.root);
        return fs;
    }

    /** Closes this instance and returns a new one over the same tree, as after a gateway restart. */
    public InMemoryFileSystem reopen() {
        close();
        return new InMemoryFileSystem(store, options);
    }

    @Override
    public int volumeId() {
        return store.volumeId;
    }

    @Override
    public ExportOptions options() {
        return options;
    }

    @Override
    public FileHandle root() {
        return handle(store.root);
    }

    @Override
    public FileAttributes getattr(FileHandle handle) throws VfsException {
        synchronized (store) {
            return attrs(inode(handle));
        }
    }

    @Override
    public int access(Caller caller, FileHandle handle, int requested) throws VfsException {
        synchronized (store) {
            return Permissions.access(caller, attrs(inode(handle)), requested);
        }
    }

    @Override
    public Node lookup(Caller caller, FileHandle dir, String name) throws VfsException {
        Names.check(name);
        synchronized (store) {
            Inode d = directory(dir);
            Permissions.require(caller, attrs(d), Permissions.X, "lookup");
            Inode c = child(d, name);
            if (c == null) {
                throw new VfsException(VfsError.NOT_FOUND, name);
            }
            return node(c);
        }
    }

    @Override
    public Node resolve(Caller caller, FileHandle dir, String path, boolean followLast) throws VfsException {
        return PathResolver.resolve(this, caller, dir, path, followLast);
    }

    @Override
    public Node parent(Caller caller, FileHandle dir) throws VfsException {
        synchronized (store) {
            Inode d = directory(dir);
            Permissions.require(caller, attrs(d), Permissions.X, "lookup");
            return node(d.parent);
        }
    }

    @Override
    public Node create(Caller caller, FileHandle dir, String name, CreateMode mode, SetAttributes attributes,
            long verifier) throws VfsException {
        Names.check(name);
        writable();
        synchronized (store) {
            Inode d = directory(dir);
            Permissions.require(caller, attrs(d), Permissions.X, "lookup");
            Inode existing = child(d, name);
            if (existing != null) {
                switch (mode) {
                    case GUARDED -> throw new VfsException(VfsError.EXISTS, name);
                    case EXCLUSIVE -> {
                        if (existing.createVerifier == null || existing.createVerifier != verifier) {
                            throw new VfsException(VfsError.EXISTS, name);
                        }
                        return node(existing);
                    }
                    case UNCHECKED -> {
                        if (existing.type == FileType.DIRECTORY) {
                            throw new VfsException(VfsError.IS_DIRECTORY, name);
                        }
                        if (attributes.size() != null) {
                            SetAttributes s = SetAttributes.create().size(attributes.size());
                            Permissions.checkSetattr(caller, attrs(existing), s);
                            apply(existing, s);
                        }
                        return node(existing);
                    }
                }
            }
            Permissions.requireDirChange(caller, attrs(d));
            Inode f = newInode(caller, d, FileType.REGULAR, Permissions.newMode(caller, attributes.mode(), 0644, d.gid), null);
            if (mode == CreateMode.EXCLUSIVE) {
                f.createVerifier = verifier;
            } else {
                applyInitial(caller, f, attributes);
            }
            insert(d, name, f);
            return node(f);
        }
    }

    @Override
    public Node mkdir(Caller caller, FileHandle dir, String name, SetAttributes attributes) throws VfsException {
        Names.check(name);
        writable();
        synchronized (store) {
            Inode d = directory(dir);
            Permissions.requireDirChange(caller, attrs(d));
            if (child(d, name) != null) {
                throw new VfsException(VfsError.EXISTS, name);
            }
            int m = Permissions.newMode(caller, attributes.mode(), 0755, d.gid) | (d.mode & 02000);
            Inode n = newInode(caller, d, FileType.DIRECTORY, m, null);
            n.parent = d;
            applyInitial(caller, n, attributes);
            insert(d, name, n);
            return node(n);
        }
    }

    @Override
    public Node symlink(Caller caller, FileHandle dir, String name, String target, SetAttributes attributes)
            throws VfsException {
        Names.check(name);
        Names.checkSymlinkTarget(target);
        writable();
        synchronized (store) {
            Inode d = directory(dir);
            Permissions.requireDirChange(caller, attrs(d));
            if (child(d, name) != null) {
                throw new VfsException(VfsError.EXISTS, name);
            }
            Inode n = newInode(caller, d, FileType.SYMLINK, 0777, target);
            insert(d, name, n);
            return node(n);
        }
    }

    @Override
    public String readlink(Caller caller, FileHandle link) throws VfsException {
        synchronized (store) {
            Inode i = inode(link);
            if (i.type != FileType.SYMLINK) {
                throw new VfsException(VfsError.NOT_SYMLINK, "not a symlink");
            }
            return i.target;
        }
    }

    @Override
    public Node link(Caller caller, FileHandle file, FileHandle dir, String name) throws VfsException {
        Names.check(name);
        writable();
        synchronized (store) {
            Inode f = inode(file);
            if (f.type == FileType.DIRECTORY) {
                throw new VfsException(VfsError.IS_DIRECTORY, "hard link to a directory");
            }
            Inode d = directory(dir);
            Permissions.requireDirChange(caller, attrs(d));
            if (child(d, name) != null) {
                throw new VfsException(VfsError.EXISTS, name);
            }
            f.links++;
            f.touchChange(now());
            insert(d, name, f);
            return node(f);
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
        synchronized (store) {
            Inode d = directory(dir);
            Permissions.require(caller, attrs(d), Permissions.X, "lookup");
            String actual = actualName(d, name);
            if (actual == null) {
                throw new VfsException(VfsError.NOT_FOUND, name);
            }
            Inode v = d.children.get(actual);
            if (expected != null && (v.id != expected.fileId() || v.generation != expected.generation())) {
                throw new VfsException(VfsError.STALE, name + " names another file now");
            }
            if (directory && v.type != FileType.DIRECTORY) {
                throw new VfsException(VfsError.NOT_DIRECTORY, name);
            }
            if (!directory && v.type == FileType.DIRECTORY) {
                throw new VfsException(VfsError.IS_DIRECTORY, name);
            }
            if (directory && !v.children.isEmpty()) {
                throw new VfsException(VfsError.NOT_EMPTY, name);
            }
            Permissions.requireUnlink(caller, attrs(d), attrs(v));
            detach(d, actual);
        }
    }

    @Override
    public void rename(Caller caller, FileHandle fromDir, String fromName, FileHandle toDir, String toName,
            boolean replace) throws VfsException {
        Names.check(fromName);
        Names.check(toName);
        writable();
        synchronized (store) {
            Inode fd = directory(fromDir);
            Inode td = directory(toDir);
            String from = actualName(fd, fromName);
            if (from == null) {
                throw new VfsException(VfsError.NOT_FOUND, fromName);
            }
            Inode moving = fd.children.get(from);
            Permissions.requireUnlink(caller, attrs(fd), attrs(moving));
            Permissions.requireDirChange(caller, attrs(td));
            if (moving.type == FileType.DIRECTORY) {
                for (Inode p = td; ; p = p.parent) {
                    if (p == moving) {
                        throw new VfsException(VfsError.INVALID, "a directory cannot move into itself");
                    }
                    if (p == store.root) {
                        break;
                    }
                }
            }
            String to = actualName(td, toName);
            Inode target = to == null ? null : td.children.get(to);
            if (target == moving) {
                if (to.equals(toName)) {
                    return;
                }
                // case-only rename on a case-insensitive export
                move(fd, from, td, toName, moving);
                return;
            }
            if (target != null) {
                if (!replace) {
                    throw new VfsException(VfsError.EXISTS, toName);
                }
                if (moving.type == FileType.DIRECTORY && target.type != FileType.DIRECTORY) {
                    throw new VfsException(VfsError.NOT_DIRECTORY, toName);
                }
                if (moving.type != FileType.DIRECTORY && target.type == FileType.DIRECTORY) {
                    throw new VfsException(VfsError.IS_DIRECTORY, toName);
                }
                if (target.type == FileType.DIRECTORY && !target.children.isEmpty()) {
                    throw new VfsException(VfsError.NOT_EMPTY, toName);
                }
                Permissions.requireUnlink(caller, attrs(td), attrs(target));
                detach(td, to);
            }
            move(fd, from, td, toName, moving);
            if (moving.type == FileType.DIRECTORY) {
                moving.parent = td;
            }
            long now = now();
            moving.touchChange(now);
            td.touchModify(now);
        }
    }

    @Override
    public DirectoryPage readdir(Caller caller, FileHandle dir, long cookie, long verifier, int maxEntries,
            boolean withAttributes) throws VfsException {
        if (maxEntries <= 0) {
            throw new VfsException(VfsError.INVALID, "maxEntries " + maxEntries);
        }
        synchronized (store) {
            Inode d = directory(dir);
            Permissions.require(caller, attrs(d), Permissions.R, "list");
            DirectoryListing l = DirectoryListing.of(d.children.keySet());
            int i = l.startAfter(cookie, verifier);
            List<DirectoryEntry> out = new ArrayList<>();
            for (; i < l.size() && out.size() < maxEntries; i++) {
                Inode c = d.children.get(l.name(i));
                out.add(new DirectoryEntry(l.name(i), c.id, l.cookie(i), withAttributes ? node(c) : null));
            }
            d.atime = now();
            return new DirectoryPage(out, DirectoryCookies.VERIFIER, i >= l.size());
        }
    }

    @Override
    public FileAttributes setattr(Caller caller, FileHandle handle, SetAttributes attributes) throws VfsException {
        writable();
        synchronized (store) {
            Inode i = inode(handle);
            Permissions.checkSetattr(caller, attrs(i), attributes);
            apply(i, attributes);
            modified(i);
            return attrs(i);
        }
    }

    @Override
    public FsStat statfs(FileHandle handle) throws VfsException {
        synchronized (store) {
            inode(handle);
            long used = used();
            long total = Math.max(capacity(), used);
            long free = total - used;
            return new FsStat(total, free, free, 1L << 32, (1L << 32) - store.inodes.size(),
                    (1L << 32) - store.inodes.size(), SparseData.PAGE, MAX_NAME_BYTES, MAX_FILE_SIZE);
        }
    }

    @Override
    public IoMemory read(Caller caller, FileHandle file, long offset, int length, IoMemoryPool.Account memory)
            throws VfsException {
        if (offset < 0 || length < 0) {
            throw new VfsException(VfsError.INVALID, "read at " + offset + " of " + length);
        }
        Inode f;
        synchronized (store) {
            f = regular(file);
            Permissions.require(caller, attrs(f), Permissions.R, "read");
        }
        IoMemory m = memory.lease(Math.max(length, 1));
        try {
            synchronized (store) {
                int n = length == 0 ? 0 : f.data.read(offset, m.segment());
                m.shrink(n);
                f.atime = now();
            }
            return m;
        } catch (RuntimeException e) {
            m.release();
            throw e;
        }
    }

    @Override
    public IoMemory map(Caller caller, FileHandle file, long offset, int length) throws VfsException {
        synchronized (store) {
            regular(file);
        }
        return null;
    }

    @Override
    public WriteResult write(Caller caller, FileHandle file, long offset, IoMemory data, Stability stability)
            throws VfsException {
        return write(caller, file, offset, new MemorySegment[] {data.segment()}, stability);
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
        synchronized (store) {
            Inode f = regular(file);
            if (caller.uid() != f.uid) {
                Permissions.require(caller, attrs(f), Permissions.W, "write");
            }
            long at = offset;
            for (MemorySegment p : parts) {
                f.data.write(at, p);
                at += p.byteSize();
            }
            f.mode &= caller.isSuperuser() ? 07777 : ~06000;
            f.touchModify(now());
            f.dos |= DosAttributes.ARCHIVE;
            modified(f);
            return new WriteResult((int) length, stability, attrs(f));
        }
    }

    @Override
    public long seek(Caller caller, FileHandle file, long offset, boolean data) throws VfsException {
        if (offset < 0) {
            throw new VfsException(VfsError.INVALID, "seek from " + offset);
        }
        synchronized (store) {
            Inode f = regular(file);
            Permissions.require(caller, attrs(f), Permissions.R, "seek");
            return data ? f.data.seekData(offset) : f.data.seekHole(offset);
        }
    }

    /**
     * Reserves memory for the range, unless that is more than the capacity {@link #statfs} reports
     * left ({@link VfsError#NO_SPACE}, checked before any page is taken).
     */
    @Override
    public void allocate(Caller caller, FileHandle file, long offset, long length) throws VfsException {
        synchronized (store) {
            if (length > 0 && length / SparseData.PAGE > (capacity() - used()) / SparseData.PAGE) {
                throw new VfsException(VfsError.NO_SPACE, "allocate of " + length + " bytes: "
                        + (capacity() - used()) + " left in memory");
            }
        }
        changeData(caller, file, offset, length, "allocate", f -> f.data.allocate(offset, length));
    }

    /** What the volume may hold: a quarter of the JVM's heap limit. */
    private static long capacity() {
        return Runtime.getRuntime().maxMemory() / 4;
    }

    /** Bytes of file data held; the caller holds the store's lock. */
    private long used() {
        long used = 0;
        for (Inode i : store.inodes.values()) {
            used += i.data == null ? 0 : i.data.spaceUsed();
        }
        return used;
    }

    @Override
    public void deallocate(Caller caller, FileHandle file, long offset, long length) throws VfsException {
        changeData(caller, file, offset, length, "deallocate", f -> f.data.punch(offset, length));
    }

    private void changeData(Caller caller, FileHandle file, long offset, long length, String what,
            java.util.function.Consumer<Inode> change) throws VfsException {
        writable();
        if (offset < 0 || length <= 0 || offset + length < 0) {
            throw new VfsException(VfsError.INVALID, what + " of " + length + " bytes at " + offset);
        }
        synchronized (store) {
            Inode f = regular(file);
            if (caller.uid() != f.uid) {
                Permissions.require(caller, attrs(f), Permissions.W, what);
            }
            change.accept(f);
            f.touchModify(now());
            f.dos |= DosAttributes.ARCHIVE;
            modified(f);
        }
    }

    @Override
    public long copy(Caller caller, FileHandle from, long fromOffset, FileHandle to, long toOffset, long length)
            throws VfsException {
        writable();
        if (fromOffset < 0 || toOffset < 0 || length < 0 || toOffset + length < 0) {
            throw new VfsException(VfsError.INVALID, "copy of " + length + " bytes from " + fromOffset + " to " + toOffset);
        }
        synchronized (store) {
            Inode src = regular(from);
            Permissions.require(caller, attrs(src), Permissions.R, "copy");
            Inode dst = regular(to);
            if (caller.uid() != dst.uid) {
                Permissions.require(caller, attrs(dst), Permissions.W, "copy");
            }
            long want = Math.min(length == 0 ? Long.MAX_VALUE : length, Math.max(0, src.data.size() - fromOffset));
            MemorySegment buffer = MemorySegment.ofArray(new byte[SparseData.PAGE]);
            long done = 0;
            while (done < want) {
                long pos = fromOffset + done;
                long data = src.data.seekData(pos);
                if (data != pos) { // a hole stays a hole, as copy_file_range keeps it: skipped at once
                    long hole = data < 0 ? want - done : Math.min(data - pos, want - done);
                    dst.data.punch(toOffset + done, hole);
                    done += hole;
                    continue;
                }
                int chunk = (int) Math.min(SparseData.PAGE - pos % SparseData.PAGE, want - done);
                int n = src.data.read(pos, buffer.asSlice(0, chunk));
                dst.data.write(toOffset + done, buffer.asSlice(0, n));
                done += n;
            }
            if (toOffset + done > dst.data.size()) {
                dst.data.truncate(toOffset + done);
            }
            dst.touchModify(now());
            dst.dos |= DosAttributes.ARCHIVE;
            modified(dst);
            return done;
        }
    }

    /** In memory a clone is a copy: the bytes read the same, only the sharing of storage is missing. */
    @Override
    public void clone(Caller caller, FileHandle from, long fromOffset, FileHandle to, long toOffset, long length)
            throws VfsException {
        copy(caller, from, fromOffset, to, toOffset, length);
    }

    @Override
    public void commit(FileHandle file) throws VfsException {
        synchronized (store) {
            inode(file);
        }
    }

    @Override
    public long writeVerifier() {
        return writeVerifier;
    }

    @Override
    public byte[] getxattr(Caller caller, FileHandle handle, String name) throws VfsException {
        Names.checkXattrName(name);
        synchronized (store) {
            Inode i = inode(handle);
            Permissions.require(caller, attrs(i), Permissions.R, "read xattr");
            byte[] v = i.xattrs.get(name);
            if (v == null) {
                throw new VfsException(VfsError.NO_XATTR, name);
            }
            return v.clone();
        }
    }

    @Override
    public void setxattr(Caller caller, FileHandle handle, String name, byte[] value, XattrMode mode)
            throws VfsException {
        Names.checkXattrName(name);
        writable();
        synchronized (store) {
            Inode i = inode(handle);
            if (i.type == FileType.SYMLINK) {
                throw new VfsException(VfsError.NOT_SUPPORTED, "user xattrs on a symlink");
            }
            Permissions.require(caller, attrs(i), Permissions.W, "write xattr");
            boolean exists = i.xattrs.containsKey(name);
            if (mode == XattrMode.CREATE && exists) {
                throw new VfsException(VfsError.EXISTS, name);
            }
            if (mode == XattrMode.REPLACE && !exists) {
                throw new VfsException(VfsError.NO_XATTR, name);
            }
            i.xattrs.put(name, value.clone());
            i.touchChange(now());
        }
    }

    @Override
    public List<String> listxattr(Caller caller, FileHandle handle) throws VfsException {
        synchronized (store) {
            Inode i = inode(handle);
            Permissions.require(caller, attrs(i), Permissions.R, "list xattrs");
            List<String> out = new ArrayList<>();
            for (String n : i.xattrs.keySet()) {
                if (!Names.reservedXattr(n)) {
                    out.add(n);
                }
            }
            return out;
        }
    }

    @Override
    public void removexattr(Caller caller, FileHandle handle, String name) throws VfsException {
        Names.checkXattrName(name);
        writable();
        synchronized (store) {
            Inode i = inode(handle);
            Permissions.require(caller, attrs(i), Permissions.W, "remove xattr");
            if (i.xattrs.remove(name) == null) {
                throw new VfsException(VfsError.NO_XATTR, name);
            }
            i.touchChange(now());
        }
    }

    @Override
    public DirectoryWatch watch(FileHandle dir, DirectoryListener listener) throws VfsException {
        synchronized (store) {
            return watches.add(directory(dir).id, listener);
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
        closed = true;
        watches.close();
    }

    // ---- internals (callers hold the store lock) ----

    private long now() {
        Instant t = Instant.now();
        long n = t.getEpochSecond() * 1_000_000_000L + t.getNano();
        synchronized (store) {
            store.lastTime = Math.max(n, store.lastTime + 1);
            return store.lastTime;
        }
    }

    private FileAttributes attrs(Inode i) {
        return i.attributes(store.volumeId);
    }

    private FileHandle handle(Inode i) {
        return FileHandle.of(store.volumeId, i.id, i.generation, i.type);
    }

    private Node node(Inode i) {
        return new Node(handle(i), attrs(i));
    }

    private Inode inode(FileHandle h) throws VfsException {
        if (closed) {
            throw new VfsException(VfsError.IO, "export closed");
        }
        if (h.volumeId() != store.volumeId) {
            throw new VfsException(VfsError.STALE, "handle of another volume");
        }
        Inode i = store.inodes.get(h.fileId());
        if (i == null || i.generation != h.generation()) {
            throw new VfsException(VfsError.STALE, "no file for handle " + h);
        }
        if (i.type != h.type()) {
            throw new VfsException(VfsError.BAD_HANDLE, "handle type " + h.type() + " of a " + i.type);
        }
        return i;
    }

    private Inode directory(FileHandle h) throws VfsException {
        Inode i = inode(h);
        if (i.type != FileType.DIRECTORY) {
            throw new VfsException(VfsError.NOT_DIRECTORY, "not a directory");
        }
        return i;
    }

    private Inode regular(FileHandle h) throws VfsException {
        Inode i = inode(h);
        if (i.type == FileType.DIRECTORY) {
            throw new VfsException(VfsError.IS_DIRECTORY, "is a directory");
        }
        if (i.type != FileType.REGULAR) {
            throw new VfsException(VfsError.INVALID, "not a regular file");
        }
        return i;
    }

    private String actualName(Inode d, String name) {
        if (d.children.containsKey(name)) {
            return name;
        }
        if (options.caseInsensitive()) {
            for (String n : d.children.keySet()) {
                if (n.equalsIgnoreCase(name)) {
                    return n;
                }
            }
        }
        return null;
    }

    private Inode child(Inode d, String name) {
        String n = actualName(d, name);
        return n == null ? null : d.children.get(n);
    }

    private Inode newInode(Caller caller, Inode dir, FileType type, int mode, String target) {
        long id = store.nextId++;
        int gid = (dir.mode & 02000) != 0 ? dir.gid : caller.gid();
        Inode i = new Inode(id, RANDOM.nextLong(), type, mode, caller.uid(), gid, now(), target);
        store.inodes.put(id, i);
        return i;
    }

    private void insert(Inode d, String name, Inode i) {
        d.children.put(name, i);
        d.touchModify(now());
        watches.fire(d.id, DirectoryChange.ADDED, name);
    }

    /** Moves an entry; watchers hear a rename within a directory as one, else a removal and an addition. */
    private void move(Inode fromDir, String from, Inode toDir, String to, Inode moving) {
        if (fromDir != toDir) {
            detachEntryOnly(fromDir, from);
            insert(toDir, to, moving);
            return;
        }
        long now = now();
        fromDir.children.remove(from);
        fromDir.children.put(to, moving);
        fromDir.touchModify(now);
        watches.fire(fromDir.id, DirectoryChange.RENAMED_FROM, from);
        watches.fire(fromDir.id, DirectoryChange.RENAMED_TO, to);
    }

    private void detachEntryOnly(Inode d, String name) {
        d.children.remove(name);
        d.touchModify(now());
        watches.fire(d.id, DirectoryChange.REMOVED, name);
    }

    /** The data or attributes of {@code i} changed: every watched directory holding it hears so. */
    private void modified(Inode i) {
        if (watches.isEmpty()) {
            return;
        }
        for (long dirId : watches.directories()) {
            Inode d = store.inodes.get(dirId);
            if (d != null && d.children != null) {
                d.children.forEach((name, child) -> {
                    if (child == i) {
                        watches.fire(dirId, DirectoryChange.MODIFIED, name);
                    }
                });
            }
        }
    }

    private void detach(Inode d, String name) {
        Inode v = d.children.remove(name);
        watches.fire(d.id, DirectoryChange.REMOVED, name);
        d.touchModify(now());
        v.links--;
        v.touchChange(now());
        if (v.links <= 0 || v.type == FileType.DIRECTORY) {
            store.inodes.remove(v.id);
            locks.forget(v.id);
        }
    }

    private void applyInitial(Caller caller, Inode i, SetAttributes a) throws VfsException {
        SetAttributes rest = a.withoutMode();
        if (!rest.isEmpty()) {
            Permissions.checkSetattr(caller, attrs(i), rest);
            apply(i, rest);
        }
    }

    private void apply(Inode i, SetAttributes a) throws VfsException {
        // the write bits that follow the DOS READONLY attribute leave a kept descriptor describing the file
        byte[] descriptor = a.dosAttributes() != null ? descriptor(i) : null;
        long now = now();
        if (a.size() != null) {
            if (i.type != FileType.REGULAR) {
                throw new VfsException(i.type == FileType.DIRECTORY ? VfsError.IS_DIRECTORY : VfsError.INVALID, "size");
            }
            if (a.size() < 0) {
                throw new VfsException(VfsError.FILE_TOO_BIG, "size " + a.size());
            }
            if (a.size() != i.data.size()) {
                i.data.truncate(a.size());
            }
            i.mtime = now;
        }
        if (a.mode() != null) {
            i.mode = a.mode();
        }
        if (a.uid() != null) {
            i.uid = a.uid();
        }
        if (a.gid() != null) {
            i.gid = a.gid();
        }
        if (a.atime() != null) {
            i.atime = a.atime() == SetAttributes.SERVER_TIME ? now : a.atime();
        }
        if (a.mtime() != null) {
            i.mtime = a.mtime() == SetAttributes.SERVER_TIME ? now : a.mtime();
        }
        if (a.birthTime() != null) {
            i.btime = a.birthTime();
        }
        if (a.dosAttributes() != null) {
            applyDos(i, a.dosAttributes());
        }
        i.createVerifier = null;
        i.touchChange(now);
        if (a.changeTime() != null) {
            i.ctime = a.changeTime();
        }
        if (descriptor != null) {
            i.xattrs.put(DescriptorStamp.XATTR, DescriptorStamp.wrap(descriptor, i.mode, i.uid, i.gid));
        }
    }

    private static void applyDos(Inode i, int bits) {
        i.dos = DosAttributes.toStore(bits, i.type);
        if (i.type == FileType.DIRECTORY) {
            return;
        }
        if ((bits & DosAttributes.READONLY) != 0) {
            i.mode &= ~0222;
        } else if ((i.mode & 0222) == 0) {
            i.mode |= 0200;
        }
    }

    private static byte[] descriptor(Inode i) {
        return DescriptorStamp.unwrap(i.xattrs.get(DescriptorStamp.XATTR), i.mode, i.uid, i.gid);
    }

    @Override
    public byte[] securityDescriptor(FileHandle handle) throws VfsException {
        synchronized (store) {
            return descriptor(inode(handle));
        }
    }

    @Override
    public void securityDescriptor(Caller caller, FileHandle handle, byte[] descriptor, SetAttributes posix)
            throws VfsException {
        writable();
        synchronized (store) {
            Inode i = inode(handle);
            if (i.type == FileType.SYMLINK) {
                throw new VfsException(VfsError.NOT_SUPPORTED, "security descriptor of a symlink");
            }
            if (!posix.isEmpty()) {
                Permissions.checkSetattr(caller, attrs(i), posix);
                apply(i, posix);
            }
            if (descriptor == null) {
                i.xattrs.remove(DescriptorStamp.XATTR);
            } else {
                i.xattrs.put(DescriptorStamp.XATTR, DescriptorStamp.wrap(descriptor, i.mode, i.uid, i.gid));
            }
            i.touchChange(now());
            modified(i);
        }
    }

    private void writable() throws VfsException {
        if (options.readOnly()) {
            throw new VfsException(VfsError.READ_ONLY, "read-only export");
        }
    }
}
