package io.rdmagate.smb.mssmb2;

import java.nio.ByteBuffer;

/** SMB2_FILEID (MS-SMB2 2.2.14.1): Persistent and Volatile halves. All ones means "the last create of a compound". */
public record FileId(long persistent, long volatileId) {
    public static final FileId COMPOUND = new FileId(-1L, -1L);

    public static FileId read(ByteBuffer m, int at) {
        return new FileId(m.getLong(at), m.getLong(at + 8));
    }

    public void write(ByteBuffer m, int at) {
        m.putLong(at, persistent).putLong(at + 8, volatileId);
    }

    public boolean isCompound() {
        return persistent == -1L && volatileId == -1L;
    }
}
