package io.rdmagate.vfs.local;

import io.rdmagate.vfs.VfsError;
import io.rdmagate.vfs.VfsException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;
import java.nio.charset.StandardCharsets;

/**
 * The Linux system calls the local backend makes, through {@code java.lang.foreign}. Every path
 * operation is relative to a directory descriptor and never follows a symlink (openat2-style
 * walking done by the caller), which is what keeps resolution inside the export root; java.nio
 * has no such calls. errno is captured per call and turned into a {@link VfsException}.
 * Linux x86_64/aarch64 with glibc 2.30 or newer.
 */
final class Libc {
    static final int O_RDONLY = 0;
    static final int O_WRONLY = 1;
    static final int O_RDWR = 2;
    static final int O_CREAT = 0100;
    static final int O_EXCL = 0200;
    static final int O_DIRECTORY = 0200000;
    static final int O_NOFOLLOW = 0400000;
    static final int O_CLOEXEC = 02000000;
    static final int O_PATH = 010000000;
    static final int AT_FDCWD = -100;
    static final int AT_SYMLINK_NOFOLLOW = 0x100;
    static final int AT_REMOVEDIR = 0x200;
    static final int AT_SYMLINK_FOLLOW = 0x400;
    static final int AT_EMPTY_PATH = 0x1000;
    static final int RENAME_NOREPLACE = 1;
    static final int STATX_BASIC_STATS = 0x7ff;
    static final int STATX_BTIME = 0x800;
    static final int XATTR_CREATE = 1;
    static final int XATTR_REPLACE = 2;
    static final long UTIME_NOW = (1L << 30) - 1;
    static final long UTIME_OMIT = (1L << 30) - 2;
    static final int PROT_READ = 1;
    static final int MAP_SHARED = 1;
    /** Sets up the page tables in mmap itself: one call instead of a fault per 4 KiB page on first touch. */
    static final int MAP_POPULATE = 0x8000;

    static final int EPERM = 1;
    static final int ENOENT = 2;
    static final int EINTR = 4;
    static final int EIO = 5;
    static final int ENXIO = 6;
    static final int EBADF = 9;
    static final int EAGAIN = 11;
    static final int ENOMEM = 12;
    static final int EACCES = 13;
    static final int EEXIST = 17;
    static final int EXDEV = 18;
    static final int ENOTDIR = 20;
    static final int EISDIR = 21;
    static final int EINVAL = 22;
    static final int ENFILE = 23;
    static final int EMFILE = 24;
    static final int ENOTTY = 25;
    static final int EFBIG = 27;
    static final int ENOSPC = 28;
    static final int EROFS = 30;
    static final int EMLINK = 31;
    static final int ERANGE = 34;
    static final int ENAMETOOLONG = 36;
    static final int ENOTEMPTY = 39;
    static final int ELOOP = 40;
    static final int ENODATA = 61;
    static final int EOPNOTSUPP = 95;
    static final int ESTALE = 116;
    static final int EDQUOT = 122;

    /** struct statx (include/uapi/linux/stat.h), the fields read here. */
    static final StructLayout STATX = MemoryLayout.structLayout(
            ValueLayout.JAVA_INT.withName("mask"), ValueLayout.JAVA_INT.withName("blksize"),
            ValueLayout.JAVA_LONG.withName("attributes"),
            ValueLayout.JAVA_INT.withName("nlink"), ValueLayout.JAVA_INT.withName("uid"),
            ValueLayout.JAVA_INT.withName("gid"), ValueLayout.JAVA_SHORT.withName("mode"),
            MemoryLayout.paddingLayout(2),
            ValueLayout.JAVA_LONG.withName("ino"), ValueLayout.JAVA_LONG.withName("size"),
            ValueLayout.JAVA_LONG.withName("blocks"), ValueLayout.JAVA_LONG.withName("attributes_mask"),
            ValueLayout.JAVA_LONG.withName("atime_sec"), ValueLayout.JAVA_INT.withName("atime_nsec"), MemoryLayout.paddingLayout(4),
            ValueLayout.JAVA_LONG.withName("btime_sec"), ValueLayout.JAVA_INT.withName("btime_nsec"), MemoryLayout.paddingLayout(4),
            ValueLayout.JAVA_LONG.withName("ctime_sec"), ValueLayout.JAVA_INT.withName("ctime_nsec"), MemoryLayout.paddingLayout(4),
            ValueLayout.JAVA_LONG.withName("mtime_sec"), ValueLayout.JAVA_INT.withName("mtime_nsec"), MemoryLayout.paddingLayout(4),
            ValueLayout.JAVA_INT.withName("rdev_major"), ValueLayout.JAVA_INT.withName("rdev_minor"),
            ValueLayout.JAVA_INT.withName("dev_major"), ValueLayout.JAVA_INT.withName("dev_minor"),
            MemoryLayout.paddingLayout(112));

    private static final Linker LINKER = Linker.nativeLinker();
    private static final SymbolLookup LIBC = LINKER.defaultLookup();
    static final StructLayout CAPTURE = Linker.Option.captureStateLayout();
    private static final VarHandle ERRNO = CAPTURE.varHandle(MemoryLayout.PathElement.groupElement("errno"));

    private static final ValueLayout.OfInt I = ValueLayout.JAVA_INT;
    private static final ValueLayout.OfLong L = ValueLayout.JAVA_LONG;
    private static final ValueLayout A = ValueLayout.ADDRESS;

    private static final MethodHandle OPENAT = fn("openat", FunctionDescriptor.of(I, I, A, I, I), 3);
    private static final MethodHandle CLOSE = fn("close", FunctionDescriptor.of(I, I), -1);
    private static final MethodHandle STATX_FN = fn("statx", FunctionDescriptor.of(I, I, A, I, I, A), -1);
    private static final MethodHandle MKDIRAT = fn("mkdirat", FunctionDescriptor.of(I, I, A, I), -1);
    private static final MethodHandle SYMLINKAT = fn("symlinkat", FunctionDescriptor.of(I, A, I, A), -1);
    private static final MethodHandle READLINKAT = fn("readlinkat", FunctionDescriptor.of(L, I, A, A, L), -1);
    private static final MethodHandle LINKAT = fn("linkat", FunctionDescriptor.of(I, I, A, I, A, I), -1);
    private static final MethodHandle UNLINKAT = fn("unlinkat", FunctionDescriptor.of(I, I, A, I), -1);
    private static final MethodHandle RENAMEAT2 = fn("renameat2", FunctionDescriptor.of(I, I, A, I, A, I), -1);
    private static final MethodHandle FCHMODAT = fn("fchmodat", FunctionDescriptor.of(I, I, A, I, I), -1);
    private static final MethodHandle FCHOWNAT = fn("fchownat", FunctionDescriptor.of(I, I, A, I, I, I), -1);
    private static final MethodHandle UTIMENSAT = fn("utimensat", FunctionDescriptor.of(I, I, A, A, I), -1);
    private static final MethodHandle FTRUNCATE = fn("ftruncate", FunctionDescriptor.of(I, I, L), -1);
    private static final MethodHandle FCNTL_PTR = fn("fcntl", FunctionDescriptor.of(I, I, I, A), 2);
    private static final MethodHandle PREAD = fn("pread", FunctionDescriptor.of(L, I, A, L, L), -1);
    private static final MethodHandle PWRITE = fn("pwrite", FunctionDescriptor.of(L, I, A, L, L), -1);
    private static final MethodHandle PWRITEV = fn("pwritev", FunctionDescriptor.of(L, I, A, I, L), -1);
    /** Linux's limit on the iovecs of one call (UIO_MAXIOV). */
    static final int IOV_MAX = 1024;
    private static final MethodHandle FSYNC = fn("fsync", FunctionDescriptor.of(I, I), -1);
    private static final MethodHandle FDATASYNC = fn("fdatasync", FunctionDescriptor.of(I, I), -1);
    private static final MethodHandle GETDENTS64 = fn("getdents64", FunctionDescriptor.of(L, I, A, L), -1);
    private static final MethodHandle FSTATVFS = fn("fstatvfs", FunctionDescriptor.of(I, I, A), -1);
    private static final MethodHandle GETXATTR = fn("getxattr", FunctionDescriptor.of(L, A, A, A, L), -1);
    private static final MethodHandle SETXATTR = fn("setxattr", FunctionDescriptor.of(I, A, A, A, L, I), -1);
    private static final MethodHandle LISTXATTR = fn("listxattr", FunctionDescriptor.of(L, A, A, L), -1);
    private static final MethodHandle REMOVEXATTR = fn("removexattr", FunctionDescriptor.of(I, A, A), -1);
    private static final MethodHandle MMAP = fn("mmap", FunctionDescriptor.of(A, A, L, I, I, I, L), -1);
    private static final MethodHandle MUNMAP = fn("munmap", FunctionDescriptor.of(I, A, L), -1);
    private static final MethodHandle GETEUID = fn("geteuid", FunctionDescriptor.of(I), -1);
    private static final MethodHandle LSEEK = fn("lseek", FunctionDescriptor.of(L, I, L, I), -1);
    private static final MethodHandle FALLOCATE = fn("fallocate", FunctionDescriptor.of(I, I, I, L, L), -1);
    private static final MethodHandle COPY_FILE_RANGE = fn("copy_file_range",
            FunctionDescriptor.of(L, I, A, I, A, L, I), -1);
    private static final MethodHandle IOCTL_PTR = fn("ioctl", FunctionDescriptor.of(I, I, L, A), 2);

    private Libc() {
    }

    static MethodHandle fn(String name, FunctionDescriptor d, int firstVariadic) {
        MemorySegment addr = LIBC.find(name).orElseThrow(() -> new IllegalStateException("libc has no " + name));
        Linker.Option capture = Linker.Option.captureCallState("errno");
        return firstVariadic < 0
                ? LINKER.downcallHandle(addr, d, capture)
                : LINKER.downcallHandle(addr, d, capture, Linker.Option.firstVariadicArg(firstVariadic));
    }

    /** A failed call: errno and what was being done. */
    static final class Errno extends Exception {
        private static final long serialVersionUID = 1L;
        final int errno;

        Errno(int errno, String what) {
            super(what + ": errno " + errno, null, false, false);
            this.errno = errno;
        }

        VfsException toVfs(String what) {
            return new VfsException(map(errno), what + " (errno " + errno + ")", this);
        }
    }

    static VfsError map(int errno) {
        return switch (errno) {
            case ENOENT -> VfsError.NOT_FOUND;
            case EEXIST -> VfsError.EXISTS;
            case EACCES -> VfsError.ACCESS;
            case EPERM -> VfsError.NOT_OWNER;
            case ENOTDIR -> VfsError.NOT_DIRECTORY;
            case EISDIR -> VfsError.IS_DIRECTORY;
            case ENOTEMPTY -> VfsError.NOT_EMPTY;
            case ENAMETOOLONG -> VfsError.NAME_TOO_LONG;
            case EINVAL -> VfsError.INVALID;
            case ENOSPC -> VfsError.NO_SPACE;
            case EDQUOT -> VfsError.QUOTA;
            case EROFS -> VfsError.READ_ONLY;
            case EXDEV -> VfsError.CROSS_DEVICE;
            case EFBIG -> VfsError.FILE_TOO_BIG;
            case EMLINK -> VfsError.TOO_MANY_LINKS;
            case ELOOP -> VfsError.LOOP;
            case ENODATA -> VfsError.NO_XATTR;
            case EOPNOTSUPP -> VfsError.NOT_SUPPORTED;
            case ESTALE -> VfsError.STALE;
            case EMFILE, ENFILE, ENOMEM, EAGAIN -> VfsError.NO_RESOURCES;
            default -> VfsError.IO;
        };
    }

    // ---- calls; each takes the arena holding its strings and capture state ----

    static int openat(Arena a, int dirfd, String path, int flags, int mode) throws Errno {
        MemorySegment st = a.allocate(CAPTURE);
        try {
            int r = (int) OPENAT.invokeExact(st, dirfd, cstr(a, path), flags | O_CLOEXEC, mode);
            return (int) check(r, st, "openat " + path);
        } catch (Errno e) {
            throw e;
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }

    static void close(int fd) {
        if (fd < 0) {
            return;
        }
        try (Arena a = Arena.ofConfined()) {
            int r = (int) CLOSE.invokeExact(a.allocate(CAPTURE), fd);
            assert r == 0 || r == -1;
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }

    static void statx(Arena a, int dirfd, String path, int flags, MemorySegment buf) throws Errno {
        MemorySegment st = a.allocate(CAPTURE);
        try {
            int r = (int) STATX_FN.invokeExact(st, dirfd, cstr(a, path), flags, STATX_BASIC_STATS | STATX_BTIME, buf);
            check(r, st, "statx " + path);
        } catch (Errno e) {
            throw e;
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }

    static void mkdirat(Arena a, int dirfd, String name, int mode) throws Errno {
        MemorySegment st = a.allocate(CAPTURE);
        try {
            check((int) MKDIRAT.invokeExact(st, dirfd, cstr(a, name), mode), st, "mkdirat " + name);
        } catch (Errno e) {
            throw e;
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }

    static void symlinkat(Arena a, String target, int dirfd, String name) throws Errno {
        MemorySegment st = a.allocate(CAPTURE);
        try {
            check((int) SYMLINKAT.invokeExact(st, cstr(a, target), dirfd, cstr(a, name)), st, "symlinkat " + name);
        } catch (Errno e) {
            throw e;
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }

    /** Reads the target of the symlink {@code fd} refers to (opened with O_PATH|O_NOFOLLOW). */
    static String readlink(Arena a, int fd) throws Errno {
        MemorySegment st = a.allocate(CAPTURE);
        MemorySegment buf = a.allocate(4097);
        try {
            long n = (long) READLINKAT.invokeExact(st, fd, cstr(a, ""), buf, 4097L);
            check(n, st, "readlinkat");
            if (n > 4096) {
                throw new Errno(ENAMETOOLONG, "readlinkat");
            }
            return new String(buf.asSlice(0, n).toArray(ValueLayout.JAVA_BYTE), StandardCharsets.UTF_8);
        } catch (Errno e) {
            throw e;
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }

    static void linkat(Arena a, int oldDirfd, String oldPath, int newDirfd, String newName, int flags) throws Errno {
        MemorySegment st = a.allocate(CAPTURE);
        try {
            check((int) LINKAT.invokeExact(st, oldDirfd, cstr(a, oldPath), newDirfd, cstr(a, newName), flags), st,
                    "linkat " + newName);
        } catch (Errno e) {
            throw e;
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }

    static void unlinkat(Arena a, int dirfd, String name, int flags) throws Errno {
        MemorySegment st = a.allocate(CAPTURE);
        try {
            check((int) UNLINKAT.invokeExact(st, dirfd, cstr(a, name), flags), st, "unlinkat " + name);
        } catch (Errno e) {
            throw e;
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }

    static void renameat2(Arena a, int fromDir, String from, int toDir, String to, int flags) throws Errno {
        MemorySegment st = a.allocate(CAPTURE);
        try {
            check((int) RENAMEAT2.invokeExact(st, fromDir, cstr(a, from), toDir, cstr(a, to), flags), st,
                    "renameat2 " + from + " " + to);
        } catch (Errno e) {
            throw e;
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }

    static void fchmodat(Arena a, int dirfd, String path, int mode) throws Errno {
        MemorySegment st = a.allocate(CAPTURE);
        try {
            check((int) FCHMODAT.invokeExact(st, dirfd, cstr(a, path), mode, 0), st, "fchmodat");
        } catch (Errno e) {
            throw e;
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }

    /** chown of the object {@code fd} refers to, never following a symlink. -1 leaves a field. */
    static void fchown(Arena a, int fd, int uid, int gid) throws Errno {
        MemorySegment st = a.allocate(CAPTURE);
        try {
            check((int) FCHOWNAT.invokeExact(st, fd, cstr(a, ""), uid, gid, AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW), st,
                    "fchownat");
        } catch (Errno e) {
            throw e;
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }

    static void utimensat(Arena a, int dirfd, String path, long atimeNs, long mtimeNs, int flags) throws Errno {
        MemorySegment st = a.allocate(CAPTURE);
        MemorySegment ts = a.allocate(32, 8);
        putTimespec(ts, 0, atimeNs);
        putTimespec(ts, 16, mtimeNs);
        try {
            check((int) UTIMENSAT.invokeExact(st, dirfd, cstr(a, path), ts, flags), st, "utimensat");
        } catch (Errno e) {
            throw e;
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }

    /** Encodes nanoseconds since the epoch, or UTIME_NOW / UTIME_OMIT given as negative sentinels. */
    private static void putTimespec(MemorySegment ts, long off, long ns) {
        if (ns == -UTIME_NOW || ns == -UTIME_OMIT) {
            ts.set(ValueLayout.JAVA_LONG, off, 0);
            ts.set(ValueLayout.JAVA_LONG, off + 8, -ns);
        } else {
            ts.set(ValueLayout.JAVA_LONG, off, Math.floorDiv(ns, 1_000_000_000L));
            ts.set(ValueLayout.JAVA_LONG, off + 8, Math.floorMod(ns, 1_000_000_000L));
        }
    }

    static void ftruncate(Arena a, int fd, long size) throws Errno {
        MemorySegment st = a.allocate(CAPTURE);
        try {
            check((int) FTRUNCATE.invokeExact(st, fd, size), st, "ftruncate");
        } catch (Errno e) {
            throw e;
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }

    /** fcntl commands and lock types of open file description locks (fcntl(2), "Open file description locks"). */
    static final int F_OFD_GETLK = 36;
    static final int F_OFD_SETLK = 37;
    static final int F_RDLCK = 0;
    static final int F_WRLCK = 1;
    static final int F_UNLCK = 2;

    /**
     * F_OFD_SETLK on {@code fd}: sets (F_RDLCK, F_WRLCK) or removes (F_UNLCK) a lock on bytes
     * {@code start} .. {@code start + len - 1} ({@code len} 0: to the end of any file), owned by
     * the open file description. A conflicting lock of another description or process is EAGAIN.
     * struct flock on x86_64 and aarch64: short l_type, short l_whence, off_t l_start, off_t l_len,
     * pid_t l_pid (0 for OFD locks), 32 bytes.
     */
    static void ofdSetlk(Arena a, int fd, int type, long start, long len) throws Errno {
        ofd(a, fd, F_OFD_SETLK, type, start, len);
    }

    /**
     * F_OFD_GETLK on {@code fd}: whether a lock of another description or process conflicts with
     * a lock of {@code type} on bytes {@code start} .. {@code start + len - 1} (len 0: to the end).
     */
    static boolean ofdConflicts(Arena a, int fd, int type, long start, long len) throws Errno {
        return ofd(a, fd, F_OFD_GETLK, type, start, len).get(ValueLayout.JAVA_SHORT, 0) != F_UNLCK;
    }

    /** One F_OFD_* fcntl with a struct flock of {@code type} over the range; returns the struct as the kernel left it. */
    private static MemorySegment ofd(Arena a, int fd, int cmd, int type, long start, long len) throws Errno {
        MemorySegment st = a.allocate(CAPTURE);
        MemorySegment fl = a.allocate(32, 8);
        fl.set(ValueLayout.JAVA_SHORT, 0, (short) type);
        fl.set(ValueLayout.JAVA_SHORT, 2, (short) 0); // SEEK_SET
        fl.set(ValueLayout.JAVA_LONG, 8, start);
        fl.set(ValueLayout.JAVA_LONG, 16, len);
        fl.set(ValueLayout.JAVA_INT, 24, 0);
        try {
            check((int) FCNTL_PTR.invokeExact(st, fd, cmd, fl), st, cmd == F_OFD_SETLK ? "fcntl(F_OFD_SETLK)"
                    : "fcntl(F_OFD_GETLK)");
        } catch (Errno e) {
            throw e;
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
        return fl;
    }

    /** pread straight into {@code dst}; loops over short reads until EOF or full. */
    static long pread(Arena a, int fd, MemorySegment dst, long offset) throws Errno {
        MemorySegment st = a.allocate(CAPTURE);
        long done = 0;
        long want = dst.byteSize();
        try {
            while (done < want) {
                long n = (long) PREAD.invokeExact(st, fd, dst.asSlice(done), want - done, offset + done);
                if (n < 0 && errno(st) == EINTR) {
                    continue;
                }
                check(n, st, "pread");
                if (n == 0) {
                    break;
                }
                done += n;
            }
            return done;
        } catch (Errno e) {
            throw e;
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }

    /** pwrite straight from {@code src}; loops over short writes. */
    static long pwrite(Arena a, int fd, MemorySegment src, long offset) throws Errno {
        MemorySegment st = a.allocate(CAPTURE);
        long done = 0;
        long want = src.byteSize();
        try {
            while (done < want) {
                long n = (long) PWRITE.invokeExact(st, fd, src.asSlice(done), want - done, offset + done);
                if (n < 0 && errno(st) == EINTR) {
                    continue;
                }
                check(n, st, "pwrite");
                done += n;
            }
            return done;
        } catch (Errno e) {
            throw e;
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }

    /**
     * pwritev straight from native {@code parts}, back to back from {@code offset}: one call for up
     * to {@link #IOV_MAX} parts; loops over short writes, resuming inside the part it stopped in.
     */
    static long pwritev(Arena a, int fd, MemorySegment[] parts, long offset) throws Errno {
        MemorySegment st = a.allocate(CAPTURE);
        MemorySegment iov = a.allocate(16L * Math.max(1, Math.min(parts.length, IOV_MAX)), 8);
        int first = 0;
        long skip = 0; // bytes of parts[first] already written
        long done = 0;
        try {
            while (true) {
                while (first < parts.length && parts[first].byteSize() == skip) {
                    first++;
                    skip = 0;
                }
                if (first == parts.length) {
                    return done;
                }
                int n = Math.min(parts.length - first, IOV_MAX);
                for (int i = 0; i < n; i++) { // struct iovec { void *iov_base; size_t iov_len; }
                    MemorySegment part = parts[first + i].asSlice(i == 0 ? skip : 0);
                    iov.setAtIndex(ValueLayout.ADDRESS, 2L * i, part);
                    iov.setAtIndex(ValueLayout.JAVA_LONG, 2L * i + 1, part.byteSize());
                }
                long w = (long) PWRITEV.invokeExact(st, fd, iov, n, offset + done);
                if (w < 0 && errno(st) == EINTR) {
                    continue;
                }
                check(w, st, "pwritev");
                done += w;
                while (w > 0) {
                    long left = parts[first].byteSize() - skip;
                    if (w >= left) {
                        w -= left;
                        first++;
                        skip = 0;
                    } else {
                        skip += w;
                        w = 0;
                    }
                }
            }
        } catch (Errno e) {
            throw e;
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }

    static void fsync(Arena a, int fd, boolean dataOnly) throws Errno {
        MemorySegment st = a.allocate(CAPTURE);
        try {
            int r = dataOnly ? (int) FDATASYNC.invokeExact(st, fd) : (int) FSYNC.invokeExact(st, fd);
            check(r, st, "fsync");
        } catch (Errno e) {
            throw e;
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }

    static long getdents64(Arena a, int fd, MemorySegment buf) throws Errno {
        MemorySegment st = a.allocate(CAPTURE);
        try {
            long n = (long) GETDENTS64.invokeExact(st, fd, buf, buf.byteSize());
            return check(n, st, "getdents64");
        } catch (Errno e) {
            throw e;
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }

    /** struct statvfs on 64-bit Linux: eleven unsigned longs then spare ints. */
    static long[] fstatvfs(Arena a, int fd) throws Errno {
        MemorySegment st = a.allocate(CAPTURE);
        MemorySegment buf = a.allocate(112, 8);
        try {
            check((int) FSTATVFS.invokeExact(st, fd, buf), st, "fstatvfs");
            long[] v = new long[11];
            for (int i = 0; i < 11; i++) {
                v[i] = buf.get(ValueLayout.JAVA_LONG, i * 8L);
            }
            return v;
        } catch (Errno e) {
            throw e;
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }

    static byte[] getxattr(Arena a, String path, String name) throws Errno {
        MemorySegment st = a.allocate(CAPTURE);
        try {
            MemorySegment p = cstr(a, path);
            MemorySegment n = cstr(a, name);
            while (true) {
                long size = check((long) GETXATTR.invokeExact(st, p, n, MemorySegment.NULL, 0L), st, "getxattr");
                MemorySegment buf = a.allocate(Math.max(size, 1));
                long got = (long) GETXATTR.invokeExact(st, p, n, buf, size);
                if (got < 0 && errno(st) == ERANGE) {
                    continue;
                }
                check(got, st, "getxattr");
                return buf.asSlice(0, got).toArray(ValueLayout.JAVA_BYTE);
            }
        } catch (Errno e) {
            throw e;
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }

    static void setxattr(Arena a, String path, String name, byte[] value, int flags) throws Errno {
        MemorySegment st = a.allocate(CAPTURE);
        try {
            MemorySegment v = a.allocate(Math.max(value.length, 1));
            MemorySegment.copy(value, 0, v, ValueLayout.JAVA_BYTE, 0, value.length);
            check((int) SETXATTR.invokeExact(st, cstr(a, path), cstr(a, name), v, (long) value.length, flags), st,
                    "setxattr");
        } catch (Errno e) {
            throw e;
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }

    /** The raw NUL-separated name list. */
    static byte[] listxattr(Arena a, String path) throws Errno {
        MemorySegment st = a.allocate(CAPTURE);
        try {
            MemorySegment p = cstr(a, path);
            while (true) {
                long size = check((long) LISTXATTR.invokeExact(st, p, MemorySegment.NULL, 0L), st, "listxattr");
                MemorySegment buf = a.allocate(Math.max(size, 1));
                long got = (long) LISTXATTR.invokeExact(st, p, buf, size);
                if (got < 0 && errno(st) == ERANGE) {
                    continue;
                }
                check(got, st, "listxattr");
                return buf.asSlice(0, got).toArray(ValueLayout.JAVA_BYTE);
            }
        } catch (Errno e) {
            throw e;
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }

    static void removexattr(Arena a, String path, String name) throws Errno {
        MemorySegment st = a.allocate(CAPTURE);
        try {
            check((int) REMOVEXATTR.invokeExact(st, cstr(a, path), cstr(a, name)), st, "removexattr");
        } catch (Errno e) {
            throw e;
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }

    /**
     * Maps {@code length} bytes at a page-aligned {@code offset} read-only, populated (the reply is
     * about to read every page of it); returns the address.
     */
    static MemorySegment mmap(Arena a, int fd, long offset, long length) throws Errno {
        MemorySegment st = a.allocate(CAPTURE);
        try {
            MemorySegment p = (MemorySegment) MMAP.invokeExact(st, MemorySegment.NULL, length, PROT_READ, MAP_SHARED | MAP_POPULATE, fd,
                    offset);
            if (p.address() == -1L) {
                throw new Errno(errno(st), "mmap");
            }
            return p;
        } catch (Errno e) {
            throw e;
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }

    static void munmap(MemorySegment address, long length) {
        try (Arena a = Arena.ofConfined()) {
            int r = (int) MUNMAP.invokeExact(a.allocate(CAPTURE), address, length);
            assert r == 0;
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }

    static int geteuid() {
        try (Arena a = Arena.ofConfined()) {
            return (int) GETEUID.invokeExact(a.allocate(CAPTURE));
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }

    /** The magic link of a descriptor, through which path-only calls reach exactly that inode. */
    static String procPath(int fd) {
        return "/proc/self/fd/" + fd;
    }

    static MemorySegment cstr(Arena a, String s) {
        return a.allocateFrom(s, StandardCharsets.UTF_8);
    }

    /** lseek whence values of sparse files (lseek(2)). */
    static final int SEEK_DATA = 3;
    static final int SEEK_HOLE = 4;

    /** lseek SEEK_DATA or SEEK_HOLE from {@code offset}; -1 where Linux says ENXIO (past the end, or no data after). */
    static long seek(Arena a, int fd, long offset, int whence) throws Errno {
        MemorySegment st = a.allocate(CAPTURE);
        try {
            long r = (long) LSEEK.invokeExact(st, fd, offset, whence);
            if (r < 0 && errno(st) == ENXIO) {
                return -1;
            }
            return check(r, st, "lseek");
        } catch (Errno e) {
            throw e;
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }

    /** fallocate(2) modes. */
    static final int FALLOC_FL_KEEP_SIZE = 1;
    static final int FALLOC_FL_PUNCH_HOLE = 2;

    static void fallocate(Arena a, int fd, int mode, long offset, long length) throws Errno {
        MemorySegment st = a.allocate(CAPTURE);
        try {
            while (true) {
                int r = (int) FALLOCATE.invokeExact(st, fd, mode, offset, length);
                if (r < 0 && errno(st) == EINTR) {
                    continue;
                }
                check(r, st, "fallocate");
                return;
            }
        } catch (Errno e) {
            throw e;
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }

    /**
     * copy_file_range(2) of up to {@code length} bytes between explicit offsets (the descriptors'
     * positions are not used); returns the bytes copied, 0 at the end of {@code in}.
     */
    static long copyFileRange(Arena a, int in, long inOffset, int out, long outOffset, long length) throws Errno {
        MemorySegment st = a.allocate(CAPTURE);
        MemorySegment offs = a.allocate(ValueLayout.JAVA_LONG, 2);
        offs.setAtIndex(ValueLayout.JAVA_LONG, 0, inOffset);
        offs.setAtIndex(ValueLayout.JAVA_LONG, 1, outOffset);
        try {
            while (true) {
                long r = (long) COPY_FILE_RANGE.invokeExact(st, in, offs.asSlice(0, 8), out, offs.asSlice(8, 8),
                        length, 0);
                if (r < 0 && errno(st) == EINTR) {
                    continue;
                }
                return check(r, st, "copy_file_range");
            }
        } catch (Errno e) {
            throw e;
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }

    /** FICLONERANGE, _IOW(0x94, 13, struct file_clone_range) (include/uapi/linux/fs.h). */
    static final long FICLONERANGE = 0x4020940dL;

    /**
     * ioctl FICLONERANGE on {@code out}: its bytes from {@code outOffset} share the storage of
     * {@code in}'s from {@code inOffset}; {@code length} 0 is to the end of {@code in}. struct
     * file_clone_range: s64 src_fd, u64 src_offset, u64 src_length, u64 dest_offset.
     */
    static void cloneRange(Arena a, int in, long inOffset, int out, long outOffset, long length) throws Errno {
        MemorySegment st = a.allocate(CAPTURE);
        MemorySegment range = a.allocate(ValueLayout.JAVA_LONG, 4);
        range.setAtIndex(ValueLayout.JAVA_LONG, 0, in);
        range.setAtIndex(ValueLayout.JAVA_LONG, 1, inOffset);
        range.setAtIndex(ValueLayout.JAVA_LONG, 2, length);
        range.setAtIndex(ValueLayout.JAVA_LONG, 3, outOffset);
        try {
            check((int) IOCTL_PTR.invokeExact(st, out, FICLONERANGE, range), st, "ioctl FICLONERANGE");
        } catch (Errno e) {
            throw e;
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }

    private static int errno(MemorySegment st) {
        return (int) ERRNO.get(st, 0L);
    }

    static long check(long r, MemorySegment st, String what) throws Errno {
        if (r < 0) {
            throw new Errno(errno(st), what);
        }
        return r;
    }
}
