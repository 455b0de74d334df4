package io.rdmagate.vfs;

import java.util.Arrays;
import java.util.HexFormat;

/**
 * An opaque, persistent file handle: what NFS sends on the wire, and what SMB keeps behind its
 * file ids. 24 bytes, within the 64 bytes NFSv3 and NFSv4 allow.
 *
 * <pre>
 *  0      1      2..3      4..7        8..15       16..23
 *  vers   type   reserved  volume id   file id     generation
 * </pre>
 *
 * The file id is unique within the volume for the life of the file; the generation tells a file
 * from a later one that reuses its id, so a deleted file's handle is stale, never another file's.
 */
public final class FileHandle {
    public static final int LENGTH = 24;
    public static final int MAX_LENGTH = 64;
    private static final byte VERSION = 1;

    private final byte[] bytes;
    private final int volumeId;
    private final long fileId;
    private final long generation;
    private final FileType typeHint;

    private FileHandle(byte[] bytes, int volumeId, long fileId, long generation, FileType typeHint) {
        this.bytes = bytes;
        this.volumeId = volumeId;
        this.fileId = fileId;
        this.generation = generation;
        this.typeHint = typeHint;
    }

    public static FileHandle of(int volumeId, long fileId, long generation, FileType type) {
        byte[] b = new byte[LENGTH];
        b[0] = VERSION;
        b[1] = (byte) type.ordinal();
        putInt(b, 4, volumeId);
        putLong(b, 8, fileId);
        putLong(b, 16, generation);
        return new FileHandle(b, volumeId, fileId, generation, type);
    }

    /**
     * Parses a handle received from a client. Accepts only the exact length, version and a known
     * type; everything else is {@link VfsError#BAD_HANDLE}. Whether the file still exists is for
     * the backend to say.
     */
    public static FileHandle decode(byte[] wire) throws VfsException {
        if (wire == null || wire.length != LENGTH) {
            throw new VfsException(VfsError.BAD_HANDLE, "handle length " + (wire == null ? -1 : wire.length));
        }
        if (wire[0] != VERSION || wire[2] != 0 || wire[3] != 0) {
            throw new VfsException(VfsError.BAD_HANDLE, "unknown handle version");
        }
        int t = wire[1] & 0xff;
        if (t >= FileType.values().length) {
            throw new VfsException(VfsError.BAD_HANDLE, "unknown handle type");
        }
        byte[] copy = wire.clone();
        return new FileHandle(copy, getInt(copy, 4), getLong(copy, 8), getLong(copy, 16), FileType.values()[t]);
    }

    /** The wire form; a fresh copy. */
    public byte[] toBytes() {
        return bytes.clone();
    }

    public int volumeId() {
        return volumeId;
    }

    public long fileId() {
        return fileId;
    }

    public long generation() {
        return generation;
    }

    /** The type the file had when the handle was made (files do not change type). */
    public FileType type() {
        return typeHint;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof FileHandle h && Arrays.equals(h.bytes, bytes);
    }

    @Override
    public int hashCode() {
        return Long.hashCode(fileId) * 31 + volumeId;
    }

    @Override
    public String toString() {
        return HexFormat.of().formatHex(bytes);
    }

    private static void putInt(byte[] b, int off, int v) {
        for (int i = 0; i < 4; i++) {
            b[off + i] = (byte) (v >>> (24 - 8 * i));
        }
    }

    private static void putLong(byte[] b, int off, long v) {
        for (int i = 0; i < 8; i++) {
            b[off + i] = (byte) (v >>> (56 - 8 * i));
        }
    }

    private static int getInt(byte[] b, int off) {
        int v = 0;
        for (int i = 0; i < 4; i++) {
            v = (v << 8) | (b[off + i] & 0xff);
        }
        return v;
    }

    private static long getLong(byte[] b, int off) {
        long v = 0;
        for (int i = 0; i < 8; i++) {
            v = (v << 8) | (b[off + i] & 0xff);
        }
        return v;
    }
}
