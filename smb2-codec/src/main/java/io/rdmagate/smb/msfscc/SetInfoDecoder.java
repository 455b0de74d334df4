package io.rdmagate.smb.msfscc;

import io.rdmagate.smb.mssmb2.Smb2DecodeException;
import io.rdmagate.smb.mssmb2.Wire;
import io.rdmagate.smb.mserref.NtStatus;
import java.nio.ByteBuffer;

/**
 * Decoders of the file information classes SET_INFO accepts.
 *
 * <p>Accepts buffers at least as long as the class's fixed part (MS-FSCC 2.4.7, 2.4.37 SMB2 form,
 * 2.4.27 SMB2 form, 2.4.11, 2.4.13, 2.4.4, 2.4.35). Refuses shorter ones with STATUS_INFO_LENGTH_MISMATCH and a
 * rename or link target outside the buffer with STATUS_INVALID_PARAMETER.
 */
public final class SetInfoDecoder {
    private SetInfoDecoder() {
    }

    static void need(ByteBuffer b, int n, String what) throws Smb2DecodeException {
        if (b.limit() < n) {
            throw new Smb2DecodeException(NtStatus.INFO_LENGTH_MISMATCH, what + " needs " + n + " bytes, got " + b.limit());
        }
    }

    /** FILETIMEs: 0 = leave, -1 = stop updating (treated as leave), else set. */
    public record Basic(long creation, long lastAccess, long lastWrite, long change, int attributes) {
    }

    public static Basic basic(ByteBuffer b) throws Smb2DecodeException {
        need(b, 36, "FileBasicInformation");
        return new Basic(b.getLong(0), b.getLong(8), b.getLong(16), b.getLong(24), b.getInt(32));
    }

    public record Rename(boolean replaceIfExists, String target) {
    }

    // MS-FSCC 2.4.37.2 (the SMB2 form: RootDirectory is 8 bytes)
    public static Rename rename(ByteBuffer b) throws Smb2DecodeException {
        need(b, 20, "FileRenameInformation");
        long len = Wire.u32(b, 16);
        if (len == 0 || len > 65534) {
            throw new Smb2DecodeException("FileNameLength " + len);
        }
        return new Rename(b.get(0) != 0, Wire.utf16(b, 20, (int) len, "FileName"));
    }

    /** FileLinkInformation: RootDirectory is kept for the caller to refuse when not 0. */
    public record Link(boolean replaceIfExists, long rootDirectory, String target) {
    }

    // MS-FSCC 2.4.27.2 FILE_LINK_INFORMATION_TYPE_2: ReplaceIfExists (1), Reserved (7),
    // RootDirectory (8), FileNameLength (4), FileName
    public static Link link(ByteBuffer b) throws Smb2DecodeException {
        need(b, 20, "FileLinkInformation");
        long len = Wire.u32(b, 16);
        if (len == 0 || len > 65534) {
            throw new Smb2DecodeException("FileNameLength " + len);
        }
        return new Link(b.get(0) != 0, b.getLong(8), Wire.utf16(b, 20, (int) len, "FileName"));
    }

    public static boolean disposition(ByteBuffer b) throws Smb2DecodeException {
        need(b, 1, "FileDispositionInformation");
        return b.get(0) != 0;
    }

    /** FileEndOfFileInformation, FileAllocationInformation, FilePositionInformation: one 64-bit value. */
    public static long int64(ByteBuffer b, String what) throws Smb2DecodeException {
        need(b, 8, what);
        long v = b.getLong(0);
        if (v < 0) {
            throw new Smb2DecodeException(what + " " + v);
        }
        return v;
    }

    public static int mode(ByteBuffer b) throws Smb2DecodeException {
        need(b, 4, "FileModeInformation");
        return b.getInt(0);
    }
}
