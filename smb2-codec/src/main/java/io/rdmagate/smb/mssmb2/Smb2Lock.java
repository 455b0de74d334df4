package io.rdmagate.smb.mssmb2;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * LOCK (MS-SMB2 2.2.26 request with 2.2.26.1 elements, 2.2.27 response).
 *
 * <p>Accepts: StructureSize 48, 1..64 lock elements inside the message. Refuses LockCount 0
 * (3.3.5.14: STATUS_INVALID_PARAMETER), more than 64, or elements past the message.
 */
public final class Smb2Lock {
    public static final int SHARED_LOCK = 0x1;
    public static final int EXCLUSIVE_LOCK = 0x2;
    public static final int UNLOCK = 0x4;
    public static final int FAIL_IMMEDIATELY = 0x10;

    private Smb2Lock() {
    }

    public record Element(long offset, long length, int flags) {
    }

    public record Request(int lockSequence, FileId fileId, List<Element> locks) {
    }

    public static Request decode(ByteBuffer m) throws Smb2DecodeException {
        Wire.body(m, 48, 24, "LOCK");
        int b = Smb2Header.SIZE;
        int n = Wire.u16(m, b + 2);
        if (n == 0 || n > 64) {
            throw new Smb2DecodeException("LockCount " + n);
        }
        Wire.range(m, b + 24, 24L * n, "LOCK elements");
        List<Element> locks = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            int at = b + 24 + 24 * i;
            locks.add(new Element(m.getLong(at), m.getLong(at + 8), m.getInt(at + 16)));
        }
        return new Request(m.getInt(b + 4), FileId.read(m, b + 8), locks);
    }

    public static int write(ByteBuffer m) {
        return Smb2Simple.write(m);
    }
}
