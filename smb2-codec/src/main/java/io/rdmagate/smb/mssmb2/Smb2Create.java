package io.rdmagate.smb.mssmb2;

import java.nio.ByteBuffer;
import java.util.List;

/**
 * CREATE (MS-SMB2 2.2.13 request, 2.2.14 response).
 *
 * <p>Accepts: StructureSize 57; a UTF-16 name of 0..(2*32767) bytes inside the message; a create
 * context list inside it. Refuses: an odd name length, name or contexts out of bounds
 * (3.3.5.9: STATUS_INVALID_PARAMETER). {@link Request#validate} then refuses ImpersonationLevel
 * above 3 and CreateDisposition above 5 for a request that opens a file; a durable reconnect
 * ignores those fields (3.3.5.9.7), so it is not validated.
 */
public final class Smb2Create {
    // CreateDisposition
    public static final int FILE_SUPERSEDE = 0;
    public static final int FILE_OPEN = 1;
    public static final int FILE_CREATE = 2;
    public static final int FILE_OPEN_IF = 3;
    public static final int FILE_OVERWRITE = 4;
    public static final int FILE_OVERWRITE_IF = 5;
    // CreateAction
    public static final int FILE_SUPERSEDED = 0;
    public static final int FILE_OPENED = 1;
    public static final int FILE_CREATED = 2;
    public static final int FILE_OVERWRITTEN = 3;
    // CreateOptions
    public static final int FILE_DIRECTORY_FILE = 0x1;
    public static final int FILE_WRITE_THROUGH = 0x2;
    public static final int FILE_SEQUENTIAL_ONLY = 0x4;
    public static final int FILE_NO_INTERMEDIATE_BUFFERING = 0x8;
    public static final int FILE_SYNCHRONOUS_IO_ALERT = 0x10;
    public static final int FILE_SYNCHRONOUS_IO_NONALERT = 0x20;
    public static final int FILE_NON_DIRECTORY_FILE = 0x40;
    public static final int FILE_DELETE_ON_CLOSE = 0x1000;
    public static final int FILE_OPEN_BY_FILE_ID = 0x2000;
    public static final int FILE_OPEN_REPARSE_POINT = 0x200000;
    /** MS-FSA 2.1.5.1: the CreateOptions an open keeps as its Open.Mode (FileModeInformation, MS-FSCC 2.4.26). */
    public static final int OPEN_MODE = FILE_WRITE_THROUGH | FILE_SEQUENTIAL_ONLY | FILE_NO_INTERMEDIATE_BUFFERING
            | FILE_SYNCHRONOUS_IO_ALERT | FILE_SYNCHRONOUS_IO_NONALERT | FILE_DELETE_ON_CLOSE;
    // ShareAccess
    public static final int FILE_SHARE_READ = 0x1;
    public static final int FILE_SHARE_WRITE = 0x2;
    public static final int FILE_SHARE_DELETE = 0x4;
    // Oplock levels
    public static final int OPLOCK_LEVEL_NONE = 0;
    public static final int OPLOCK_LEVEL_II = 1;
    public static final int OPLOCK_LEVEL_EXCLUSIVE = 8;
    public static final int OPLOCK_LEVEL_BATCH = 9;
    public static final int OPLOCK_LEVEL_LEASE = 0xFF;

    private Smb2Create() {
    }

    public record Request(int oplockLevel, int impersonation, int desiredAccess, int fileAttributes, int shareAccess,
            int disposition, int options, String name, List<CreateContext> contexts) {
        /** The field checks of MS-SMB2 3.3.5.9 for a request that opens a file. */
        public void validate() throws Smb2DecodeException {
            if (impersonation < 0 || impersonation > 3) {
                throw new Smb2DecodeException(NtStatusBadImpersonation.VALUE, "ImpersonationLevel " + impersonation);
            }
            if (disposition < 0 || disposition > 5) {
                throw new Smb2DecodeException("CreateDisposition " + disposition);
            }
        }

        public CreateContext context(String n) {
            for (CreateContext c : contexts) {
                if (c.name().equals(n)) {
                    return c;
                }
            }
            return null;
        }
    }

    public static Request decode(ByteBuffer m) throws Smb2DecodeException {
        Wire.body(m, 57, 56, "CREATE");
        int b = Smb2Header.SIZE;
        int imp = m.getInt(b + 4);
        int disp = m.getInt(b + 36);
        int nameOff = Wire.u16(m, b + 44);
        int nameLen = Wire.u16(m, b + 46);
        String name = Wire.utf16(m, nameOff, nameLen, "Name");
        long ctxOff = Wire.u32(m, b + 48);
        long ctxLen = Wire.u32(m, b + 52);
        List<CreateContext> contexts = List.of();
        if (ctxLen > 0) {
            if (ctxOff < b + 56) {
                throw new Smb2DecodeException("CreateContextsOffset " + ctxOff);
            }
            contexts = CreateContext.decodeList(Wire.slice(m, ctxOff, ctxLen, "create contexts"));
        }
        return new Request(Wire.u8(m, b + 3), imp, m.getInt(b + 24), m.getInt(b + 28), m.getInt(b + 32), disp,
                m.getInt(b + 40), name, contexts);
    }

    /** Times are FILETIMEs. Returns the body length. */
    public record Response(int oplockLevel, int createAction, long creation, long lastAccess, long lastWrite,
            long change, long allocationSize, long endOfFile, int attributes, FileId fileId,
            List<CreateContext> contexts) {
    }

    public static int write(ByteBuffer m, Response r) {
        int b = Smb2Header.SIZE;
        m.putShort(b, (short) 89).put(b + 2, (byte) r.oplockLevel()).put(b + 3, (byte) 0).putInt(b + 4, r.createAction())
                .putLong(b + 8, r.creation()).putLong(b + 16, r.lastAccess()).putLong(b + 24, r.lastWrite())
                .putLong(b + 32, r.change()).putLong(b + 40, r.allocationSize()).putLong(b + 48, r.endOfFile())
                .putInt(b + 56, r.attributes()).putInt(b + 60, 0);
        r.fileId().write(m, b + 64);
        if (r.contexts().isEmpty()) {
            m.putInt(b + 80, 0).putInt(b + 84, 0).put(b + 88, (byte) 0);
            return 89;
        }
        int start = b + 88;
        int end = CreateContext.writeList(m, start, r.contexts());
        m.putInt(b + 80, start).putInt(b + 84, end - start);
        return end - b;
    }

    /** STATUS_BAD_IMPERSONATION_LEVEL (MS-SMB2 3.3.5.9). */
    static final class NtStatusBadImpersonation {
        static final int VALUE = 0xC00000A5;
    }
}
