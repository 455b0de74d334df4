package io.rdmagate.smb.server;

import io.rdmagate.smb.mserref.NtStatus;
import io.rdmagate.smb.mssmb2.FileId;
import io.rdmagate.vfs.FileHandle;
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
    private final Map<String, FileState> files = new HashMap<>();
    private final AtomicLong nextId = new AtomicLong(1);

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

    private static String key(int volume, long fileId) {
        return volume + ":" + fileId;
    }

    static final int DATA_READ = Access.FILE_READ_DATA | Access.FILE_EXECUTE;
    static final int DATA_WRITE = Access.FILE_WRITE_DATA | Access.FILE_APPEND_DATA;

    /** MS-FSA 2.1.5.1.2: whether a new open with this access and sharing fits beside an existing one. */
    static boolean compatible(Open e, int access, int share) {
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
    synchronized FileState admit(int volume, long fileId, FileHandle parent, String name, int access, int share)
            throws SmbException {
        FileState f = files.get(key(volume, fileId));
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
            f = new FileState(volume, fileId, parent, name);
            files.put(key(volume, fileId), f);
        }
        return f;
    }

    /** Registers an open of a file after the share access check (MS-FSA 2.1.5.1.2). */
    public Open open(SmbSession s, TreeConnect tree, FileHandle handle, boolean dir, int access, int share,
            FileHandle parent, String name, String path) throws SmbException {
        synchronized (this) {
            FileState f = admit(handle.volumeId(), handle.fileId(), parent, name, access, share);
            long id = newVolatileId();
            Open o = new Open(new FileId(id, id), s, tree, handle, dir, access, share, f, null, path);
            add(o);
            return o;
        }
    }

    public Open openPipe(SmbSession s, TreeConnect tree, NamedPipe pipe, String name) {
        long id = newVolatileId();
        Open o = new Open(new FileId(id, id), s, tree, null, false, Access.FILE_ALL_ACCESS, 7, null, pipe, name);
        add(o);
        return o;
    }

    /** Removes an open and deletes its file if this was the last open of a file with delete pending. */
    public void close(Open o, SmbServer server) {
        FileState f = remove(o);
        if (f != null) {
            server.deleteFile(o.session, f, o.directory(), o.vfs());
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
            files.remove(key(f.volumeId, f.fileId));
        }
    }

    /**
     * Removes an open. Returns the file's state if this was its last open and the file is to be
     * deleted (delete pending, or an open asked for delete-on-close); the caller deletes it.
     */
    synchronized FileState remove(Open o) {
        byVolatile.remove(o.fileId().volatileId());
        FileState f = o.file;
        if (f == null) {
            return null;
        }
        if (o.deleteOnClose) {
            f.deletePending = true;
        }
        f.opens.remove(o);
        if (f.opens.isEmpty()) {
            files.remove(key(f.volumeId, f.fileId));
            return f.deletePending ? f : null;
        }
        return null;
    }

    synchronized void setDeletePending(FileState f, boolean pending) {
        f.deletePending = pending;
    }

    synchronized boolean deletePending(FileState f) {
        return f.deletePending;
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
