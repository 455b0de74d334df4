package io.rdmagate.vfs.inmemory;

import io.rdmagate.vfs.DosAttributes;
import io.rdmagate.vfs.FileAttributes;
import io.rdmagate.vfs.FileType;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;

/** One object of the in-memory tree. Guarded by the owning store's lock. */
final class Inode {
    final long id;
    final long generation;
    final FileType type;
    int mode;
    int uid;
    int gid;
    int links;
    long atime;
    long mtime;
    long ctime;
    long btime;
    int dos;
    long change;
    Long createVerifier;
    Inode parent;
    final SparseData data;
    final String target;
    final Map<String, Inode> children;
    final Map<String, byte[]> xattrs = new TreeMap<>();

    Inode(long id, long generation, FileType type, int mode, int uid, int gid, long now, String target) {
        this.id = id;
        this.generation = generation;
        this.type = type;
        this.mode = mode;
        this.uid = uid;
        this.gid = gid;
        this.links = 1;
        this.atime = now;
        this.mtime = now;
        this.ctime = now;
        this.btime = now;
        this.target = target;
        this.data = type == FileType.REGULAR ? new SparseData() : null;
        this.children = type == FileType.DIRECTORY ? new LinkedHashMap<>() : null;
    }

    FileAttributes attributes(int volumeId) {
        long size;
        long used;
        long nlink = links;
        if (type == FileType.REGULAR) {
            size = data.size();
            used = data.spaceUsed();
        } else if (type == FileType.SYMLINK) {
            size = target.getBytes(java.nio.charset.StandardCharsets.UTF_8).length;
            used = 0;
        } else {
            size = 4096;
            used = 4096;
            long subdirs = children.values().stream().filter(c -> c.type == FileType.DIRECTORY).count();
            nlink = 2 + subdirs;
        }
        return new FileAttributes(type, mode, nlink, uid, gid, size, used, id, volumeId, 0, atime, mtime, ctime, btime,
                DosAttributes.derive(dos, type, mode), change);
    }

    void touchChange(long now) {
        ctime = now;
        change++;
    }

    void touchModify(long now) {
        mtime = now;
        touchChange(now);
    }
}
