#!/usr/bin/python3
"""A FUSE filesystem whose disk fails: eio-fs.py MOUNTPOINT.

It holds two files of 256 KiB with the same bytes (byte i is i % 251): good.bin reads back,
bad.bin answers every read that reaches past its first 64 KiB with EIO, as a disk with a bad
sector does. New files can be created and written, kept in memory, except that:
  - a file whose name starts with "bad-write" answers every write reaching past its first
    64 KiB with EIO (a write to the bad sector);
  - creating a file whose name starts with "bad-create", or making a directory whose name starts
    with "bad-dir", fails with EIO (the metadata block cannot be written).
It has no extended attributes (ENOTSUP), as many filesystems a gateway may be asked to export.
It runs in the foreground until it is unmounted.
"""
import errno
import os
import stat
import sys
import time

from fusepy import FUSE, FuseOSError, Operations

SIZE = 256 * 1024
BAD_FROM = 64 * 1024
DATA = bytes(i % 251 for i in range(SIZE))
NOW = time.time()


class Node:
    def __init__(self, ino, mode, data=b""):
        self.ino = ino
        self.mode = mode
        self.data = bytearray(data)
        self.uid = 0
        self.gid = 0
        self.times = [NOW, NOW, NOW]


class EioFs(Operations):
    def __init__(self):
        self.nodes = {"/": Node(1, stat.S_IFDIR | 0o777), "/good.bin": Node(2, stat.S_IFREG | 0o644, DATA),
                      "/bad.bin": Node(3, stat.S_IFREG | 0o644, DATA)}
        self.next_ino = 4

    def node(self, path):
        n = self.nodes.get(path)
        if n is None:
            raise FuseOSError(errno.ENOENT)
        return n

    def getattr(self, path, fh=None):
        n = self.node(path)
        directory = stat.S_ISDIR(n.mode)
        return dict(st_mode=n.mode, st_nlink=2 if directory else 1, st_ino=n.ino, st_uid=n.uid, st_gid=n.gid,
                    st_size=0 if directory else len(n.data), st_atime=n.times[0], st_mtime=n.times[1],
                    st_ctime=n.times[2])

    def readdir(self, path, fh):
        prefix = path.rstrip("/") + "/"
        names = [p[len(prefix):] for p in self.nodes if p != path and p.startswith(prefix)
                 and "/" not in p[len(prefix):]]
        return [".", ".."] + names

    def open(self, path, flags):
        self.node(path)
        return 0

    def create(self, path, mode, fi=None):
        if os.path.basename(path).startswith("bad-create"):
            raise FuseOSError(errno.EIO)
        self.nodes[path] = Node(self.next_ino, stat.S_IFREG | (mode & 0o7777))
        self.next_ino += 1
        return 0

    def mkdir(self, path, mode):
        if os.path.basename(path).startswith("bad-dir"):
            raise FuseOSError(errno.EIO)
        self.nodes[path] = Node(self.next_ino, stat.S_IFDIR | (mode & 0o7777))
        self.next_ino += 1

    def read(self, path, size, offset, fh):
        n = self.node(path)
        if path == "/bad.bin" and offset + size > BAD_FROM:
            raise FuseOSError(errno.EIO)
        return bytes(n.data[offset:offset + size])

    def write(self, path, data, offset, fh):
        n = self.node(path)
        if os.path.basename(path).startswith("bad-write") and offset + len(data) > BAD_FROM:
            raise FuseOSError(errno.EIO)
        if offset > len(n.data):
            n.data.extend(bytes(offset - len(n.data)))
        n.data[offset:offset + len(data)] = data
        n.times[1] = n.times[2] = time.time()
        return len(data)

    def truncate(self, path, length, fh=None):
        n = self.node(path)
        del n.data[length:]
        n.data.extend(bytes(length - len(n.data)))

    def chmod(self, path, mode):
        n = self.node(path)
        n.mode = stat.S_IFMT(n.mode) | (mode & 0o7777)

    def chown(self, path, uid, gid):
        n = self.node(path)
        if uid != -1 and uid != 0xffffffff:
            n.uid = uid
        if gid != -1 and gid != 0xffffffff:
            n.gid = gid

    def utimens(self, path, times=None):
        n = self.node(path)
        now = time.time()
        n.times[0], n.times[1] = times if times else (now, now)

    def unlink(self, path):
        self.node(path)
        del self.nodes[path]

    def rmdir(self, path):
        self.node(path)
        del self.nodes[path]

    def rename(self, old, new):
        self.nodes[new] = self.node(old)
        del self.nodes[old]

    def fsync(self, path, datasync, fh):
        return 0

    def flush(self, path, fh):
        return 0

    def release(self, path, fh):
        return 0

    def statfs(self, path):
        return dict(f_bsize=4096, f_frsize=4096, f_blocks=65536, f_bfree=32768, f_bavail=32768, f_files=1024,
                    f_ffree=1000, f_namemax=255)


if __name__ == "__main__":
    FUSE(EioFs(), sys.argv[1], foreground=True, nothreads=True, use_ino=True, default_permissions=True,
         allow_other=True)
