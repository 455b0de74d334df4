package io.rdmagate.smb.mssmb2;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Leases on the wire: the SMB2_CREATE_REQUEST_LEASE ("RqLs") create context in its v1 (MS-SMB2
 * 2.2.13.2.8, 32 bytes) and v2 (2.2.13.2.10, 52 bytes) forms and their responses (2.2.14.2.10,
 * 2.2.14.2.11), the Lease Break Notification (2.2.23.2) and the Lease Break Response (2.2.25.2).
 *
 * <p>Accepts a context of at least 32 bytes (v1) or, when the caller allows v2, at least 52 bytes.
 * Refuses a shorter one (STATUS_INVALID_PARAMETER, 3.3.5.9). Lease states other than the R, H and W
 * bits are masked off by the caller.
 */
public final class Smb2Lease {
    public static final int READ = 0x1;
    public static final int HANDLE = 0x2;
    public static final int WRITE = 0x4;
    /** LeaseFlags (2.2.14.2.10/11). */
    public static final int FLAG_BREAK_IN_PROGRESS = 0x2;
    public static final int FLAG_PARENT_LEASE_KEY_SET = 0x4;
    /** Lease Break Notification Flags (2.2.23.2). */
    public static final int NOTIFY_ACK_REQUIRED = 0x1;
    public static final int V1_SIZE = 32;
    public static final int V2_SIZE = 52;

    private Smb2Lease() {
    }

    /** A lease request; {@code version} is 1 or 2; {@code parentKey} null unless v2 sets it. */
    public record Request(int version, byte[] key, int state, int flags, byte[] parentKey, int epoch) {
    }

    public static Request decode(ByteBuffer data, boolean allowV2) throws Smb2DecodeException {
        ByteBuffer d = data.duplicate().order(ByteOrder.LITTLE_ENDIAN);
        int base = d.position();
        int len = d.remaining();
        if (len < V1_SIZE) {
            throw new Smb2DecodeException("RqLs context of " + len + " bytes");
        }
        byte[] key = new byte[16];
        d.get(base, key);
        int state = d.getInt(base + 16);
        int flags = d.getInt(base + 20);
        if (allowV2 && len >= V2_SIZE) {
            byte[] parent = null;
            if ((flags & FLAG_PARENT_LEASE_KEY_SET) != 0) {
                parent = new byte[16];
                d.get(base + 32, parent);
            }
            return new Request(2, key, state, flags, parent, Short.toUnsignedInt(d.getShort(base + 48)));
        }
        return new Request(1, key, state, flags, null, 0);
    }

    /** The response context's data: v1 (32 bytes) or v2 (52 bytes). */
    public static ByteBuffer response(int version, byte[] key, int state, int flags, byte[] parentKey, int epoch) {
        ByteBuffer b = ByteBuffer.allocate(version == 2 ? V2_SIZE : V1_SIZE).order(ByteOrder.LITTLE_ENDIAN);
        b.put(0, key).putInt(16, state);
        if (version == 2) {
            if (parentKey != null) {
                b.put(32, parentKey);
                flags |= FLAG_PARENT_LEASE_KEY_SET;
            }
            b.putShort(48, (short) epoch);
        }
        b.putInt(20, flags);
        return b;
    }

    /** MS-SMB2 2.2.23.2 and 3.3.4.7: header as for an oplock break (MessageId all ones, no session), body of 44. */
    public static ByteBuffer breakNotification(int newEpoch, int flags, byte[] key, int current, int next) {
        ByteBuffer m = ByteBuffer.allocate(Smb2Header.SIZE + 44).order(ByteOrder.LITTLE_ENDIAN);
        Smb2Header.writeResponse(m, Smb2Command.OPLOCK_BREAK, 0, 0, 0, 0, Smb2OplockBreak.NOTIFICATION_MESSAGE_ID, 0, 0, 0);
        int b = Smb2Header.SIZE;
        m.putShort(b, (short) 44).putShort(b + 2, (short) newEpoch).putInt(b + 4, flags).put(b + 8, key)
                .putInt(b + 24, current).putInt(b + 28, next).putInt(b + 32, 0).putInt(b + 36, 0).putInt(b + 40, 0);
        return m;
    }

    /** MS-SMB2 2.2.25.2 Lease Break Response; returns the body length. */
    public static int writeBreakResponse(ByteBuffer m, byte[] key, int state) {
        int b = Smb2Header.SIZE;
        m.putShort(b, (short) 36).putShort(b + 2, (short) 0).putInt(b + 4, 0).put(b + 8, key).putInt(b + 24, state)
                .putLong(b + 28, 0);
        return 36;
    }
}
