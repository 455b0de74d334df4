#!/usr/bin/python3
"""A FUSE filesystem whose disk fails: eio-fs.py MOUNTPOINT.

It holds two files of 256 KiB with the same bytes (byte i is i % 251): good.bin reads back,
bad.bin answers every read that reaches past its first 64 KiB with EIO, as a disk with a bad
sector does. Nothing can be written. It runs in the foreground until it is unmounted.
"""
import errno
import stat
import sys
import time

from fusepy import FUSE, FuseOSError, Operations

SIZE = 256 * 1024
BAD_FROM = 64 * 1024
DATA = bytes(i % 251 for i in range(SIZE))
FILES = {"/good.bin": 2, "/bad.bin": 3}
NOW = time.time()


class EioFs(Operations):
    def getattr(self, path, fh=None):
        if path == "/":
            return dict(st_mode=stat.S_IFDIR | 0o755, st_nlink=2, st_ino=1, st_uid=0, st_gid=0, st_size=0,
                        st_atime=NOW, st_mtime=NOW, st_ctime=NOW)
        if path in FILES:
            return dict(st_mode=stat.S_IFREG | 0o644, st_nlink=1, st_ino=FILES[path], st_uid=0, st_gid=0,
                        st_size=SIZE, st_atime=NOW, st_mtime=NOW, st_ctime=NOW)
        raise FuseOSError(errno.ENOENT)

    def readdir(self, path, fh):
        return [".", ".."] + [name[1:] for name in FILES]

    def open(self, path, flags):
        if path not in FILES:
            raise FuseOSError(errno.ENOENT)
        return 0

    def read(self, path, size, offset, fh):
        if path == "/bad.bin" and offset + size > BAD_FROM:
            raise FuseOSError(errno.EIO)
        return DATA[offset:offset + size]

    def statfs(self, path):
        return dict(f_bsize=4096, f_frsize=4096, f_blocks=1024, f_bfree=0, f_bavail=0, f_files=8, f_ffree=0,
                    f_namemax=255)


if __name__ == "__main__":
    FUSE(EioFs(), sys.argv[1], foreground=True, nothreads=True, ro=True, use_ino=True)
