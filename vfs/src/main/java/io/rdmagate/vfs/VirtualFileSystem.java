package io.rdmagate.vfs;

import java.lang.foreign.MemorySegment;

import io.rdmagate.vfs.lock.LockManager;
import io.rdmagate.vfs.memory.IoMemory;
import io.rdmagate.vfs.memory.IoMemoryPool;
import java.util.List;

/**
 * One exported tree, as every protocol sees it. Handles are persistent: a handle given out before
 * a restart still resolves after it, and a removed file's handle is {@link VfsError#STALE}.
 *
 * <p>Every method that takes a {@link Caller} checks the POSIX mode bits for it (the superuser
 * passes every check); names are single components: no '/', no NUL, not "." or "..", at most
 * {@link #MAX_NAME_BYTES} bytes of UTF-8. Nothing outside the export root is ever reached.
 *
 * <p>Methods block on the filesystem: call them from virtual threads, never an event loop.
 */
public interface VirtualFileSystem extends AutoCloseable {
    int MAX_NAME_BYTES = 255;
    /** Directory cookies of entries are at least this; protocols may use smaller ones for "." and "..". */
    long FIRST_COOKIE = 16;
    int MAX_SYMLINK_HOPS = 40;

    /** Access bits for {@link #access} (RFC 1813 ACCESS3_*). */
    int ACCESS_READ = 0x01;
    int ACCESS_LOOKUP = 0x02;
    int ACCESS_MODIFY = 0x04;
    int ACCESS_EXTEND = 0x08;
    int ACCESS_DELETE = 0x10;
    int ACCESS_EXECUTE = 0x20;

    /** Identifies this export's handles; stable across restarts. */
    int volumeId();

    ExportOptions options();

    FileHandle root();

    FileAttributes getattr(FileHandle handle) throws VfsException;

    /** Of the requested access bits, those the caller has. */
    int access(Caller caller, FileHandle handle, int requested) throws VfsException;

    Node lookup(Caller caller, FileHandle dir, String name) throws VfsException;

    /**
     * Resolves a relative '/'-separated path from {@code dir}, following symlinks inside the export
     * (relative targets only; at most {@link #MAX_SYMLINK_HOPS}). "." is skipped; ".." goes up but
     * never above the root. An absolute target, or one that leads out of the export, is
     * {@link VfsError#ESCAPE}. For protocols that resolve paths on the server (SMB).
     */
    Node resolve(Caller caller, FileHandle dir, String path, boolean followLast) throws VfsException;

    /** The parent directory; the root is its own parent. */
    Node parent(Caller caller, FileHandle dir) throws VfsException;

    Node create(Caller caller, FileHandle dir, String name, CreateMode mode, SetAttributes attributes, long verifier)
            throws VfsException;

    Node mkdir(Caller caller, FileHandle dir, String name, SetAttributes attributes) throws VfsException;

    Node symlink(Caller caller, FileHandle dir, String name, String target, SetAttributes attributes)
            throws VfsException;

    String readlink(Caller caller, FileHandle link) throws VfsException;

    Node link(Caller caller, FileHandle file, FileHandle dir, String name) throws VfsException;

    /** Removes a non-directory. */
    void remove(Caller caller, FileHandle dir, String name) throws VfsException;

    void rmdir(Caller caller, FileHandle dir, String name) throws VfsException;

    /**
     * Removes entry {@code name} of {@code dir} (a directory if {@code file} is one) only while it
     * still names {@code file}: the deletion a delete-on-close makes at the last close (MS-FSA
     * 2.1.5.4) deletes the file that was opened, never one another client has since put under that
     * name. STALE when the name now names another file.
     */
    void removeIfSame(Caller caller, FileHandle dir, String name, FileHandle file) throws VfsException;

    /**
     * Atomically renames. With {@code replace}, an existing target of a compatible type is replaced
     * (a directory only if empty); without it, an existing target is {@link VfsError#EXISTS}.
     */
    void rename(Caller caller, FileHandle fromDir, String fromName, FileHandle toDir, String toName, boolean replace)
            throws VfsException;

    /**
     * Lists a directory from {@code cookie} (0 for the start). Cookies stay valid while entries are
     * added and removed and across restarts; a {@code verifier} that is not 0 and not this
     * directory's is {@link VfsError#BAD_COOKIE}.
     */
    DirectoryPage readdir(Caller caller, FileHandle dir, long cookie, long verifier, int maxEntries,
            boolean withAttributes) throws VfsException;

    FileAttributes setattr(Caller caller, FileHandle handle, SetAttributes attributes) throws VfsException;

    FsStat statfs(FileHandle handle) throws VfsException;

    /**
     * Reads into I/O memory leased from {@code memory}: {@code pread} straight into the buffer, no
     * other copy. The result's length is the bytes read; 0 at end of file. The caller releases it.
     */
    IoMemory read(Caller caller, FileHandle file, long offset, int length, IoMemoryPool.Account memory)
            throws VfsException;

    /**
     * Maps a region of a file for reading, when the export allows mapped reads and the region is
     * at least {@link ExportOptions#mapReadThreshold()} bytes; else returns null and the caller uses
     * {@link #read}. The region is clipped at end of file.
     */
    IoMemory map(Caller caller, FileHandle file, long offset, int length) throws VfsException;

    /** Writes the payload where it lies ({@code pwrite} from it), then makes it as durable as asked. */
    WriteResult write(Caller caller, FileHandle file, long offset, IoMemory data, Stability stability)
            throws VfsException;

    /**
     * Writes {@code parts} back to back from {@code offset} as one write, as if they were one
     * payload: a gathering {@code pwritev} where the backend has one. For payload that arrived in
     * several receive buffers. The parts are lent for the call; none is kept.
     */
    WriteResult write(Caller caller, FileHandle file, long offset, MemorySegment[] parts, Stability stability)
            throws VfsException;

    /**
     * Where the first data ({@code data} true) or the first hole at or after {@code offset} begins,
     * as {@code lseek SEEK_DATA/SEEK_HOLE}: -1 when {@code offset} is at or past the end of the file,
     * or when no data follows it. The end of the file counts as a hole.
     */
    long seek(Caller caller, FileHandle file, long offset, boolean data) throws VfsException;

    /** Reserves storage for bytes {@code offset .. offset+length-1}, growing the file if they reach past its end ({@code fallocate} mode 0). */
    void allocate(Caller caller, FileHandle file, long offset, long length) throws VfsException;

    /** Frees the storage of bytes {@code offset .. offset+length-1}; they then read as zeroes and the size stays ({@code fallocate} punch hole). */
    void deallocate(Caller caller, FileHandle file, long offset, long length) throws VfsException;

    /**
     * Copies {@code length} bytes (0: up to the end of {@code from}) from {@code from} at {@code fromOffset}
     * to {@code to} at {@code toOffset} inside the backend ({@code copy_file_range}): no byte passes
     * through the gateway's memory. Returns the bytes copied; fewer than asked when {@code from} ends first.
     */
    long copy(Caller caller, FileHandle from, long fromOffset, FileHandle to, long toOffset, long length)
            throws VfsException;

    /**
     * Makes bytes of {@code to} share the storage of bytes of {@code from} ({@code FICLONERANGE}; length
     * 0: to the end of {@code from}); {@link VfsError#NOT_SUPPORTED} where the backing filesystem cannot.
     */
    void clone(Caller caller, FileHandle from, long fromOffset, FileHandle to, long toOffset, long length)
            throws VfsException;

    /**
     * Flushes a file's data and metadata to stable storage (COMMIT, SMB FLUSH); of a directory, its
     * entries: what was created, linked, removed or renamed in it (an NFS namespace change). Also
     * makes durable whatever the file system keeps to resolve the handles it has handed out, so
     * that they name the same files after a crash.
     */
    void commit(FileHandle file) throws VfsException;

    /** Changes whenever the gateway restarts: writes that were UNSTABLE may have been lost. */
    long writeVerifier();

    byte[] getxattr(Caller caller, FileHandle handle, String name) throws VfsException;

    void setxattr(Caller caller, FileHandle handle, String name, byte[] value, XattrMode mode) throws VfsException;

    List<String> listxattr(Caller caller, FileHandle handle) throws VfsException;

    void removexattr(Caller caller, FileHandle handle, String name) throws VfsException;

    /**
     * The Windows security descriptor (MS-DTYP 2.4.6, self-relative) kept with the file, or null
     * when none is: none was stored, or the file's mode, owner or group has changed since (a chmod
     * or chown through NFS or on the host), so that the mode bits alone say who may do what.
     */
    byte[] securityDescriptor(FileHandle handle) throws VfsException;

    /**
     * Sets the mode, owner and group in {@code posix}, the POSIX picture of the descriptor
     * (checked as a setattr is), then keeps {@code descriptor} with the file while they stay as
     * set; null drops a kept descriptor.
     */
    void securityDescriptor(Caller caller, FileHandle handle, byte[] descriptor, SetAttributes posix)
            throws VfsException;

    /**
     * Reports changes to the entries of directory {@code dir}, whoever makes them (this gateway,
     * another protocol, a process on the host where the backend can see it), until the returned
     * watch is closed. Entries of subdirectories are not reported.
     */
    DirectoryWatch watch(FileHandle dir, DirectoryListener listener) throws VfsException;

    /** The byte-range locks of this volume. */
    LockManager locks();

    /** The opens and caching state that protocols hold of this volume's files, and their recall. */
    io.rdmagate.vfs.state.FileStates states();

    @Override
    void close();
}
